/**
 * What the Mailpit `npm test` runs has caught (MAILPIT_URL), read through its REST API
 * (https://mailpit.axllent.org/docs/api-v1/): the mails sent to an address, one mail's text, the
 * sign-in code a mail carries, and emptying the mailbox.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../models/config';

/** A mail as a test reads it. */
export interface CaughtMail {
  /** Mailpit's id of the mail (for {@link messageText}). */
  id: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** When Mailpit received it. */
  received: Date;
}

interface MailpitAddress {
  Name: string;
  Address: string;
}

/** A mail as Mailpit lists it (GET /api/v1/messages, /api/v1/search), newest first. */
interface MailpitSummary {
  ID: string;
  From: MailpitAddress | null;
  To: MailpitAddress[] | null;
  Subject: string;
  Created: string;
}

/** One mail in full (GET /api/v1/message/{ID}). */
interface MailpitMessage {
  ID: string;
  From: MailpitAddress | null;
  To: MailpitAddress[] | null;
  Subject: string;
  Text: string;
  HTML: string;
}

interface MailpitList {
  total: number;
  count: number;
  messages: MailpitSummary[];
}

/** Mailpit's HTTP address: MAILPIT_URL, which npm test (and npm start) set. */
export function mailpitUrl(): string {
  const url = loadConfig().devServices.mailpitUrl;
  if (!url) throw new Error('MAILPIT_URL is not set: run the tests with npm test, which starts Mailpit');
  return url.replace(/\/$/, '');
}

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${mailpitUrl()}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`Mailpit ${init.method ?? 'GET'} ${path}: ${res.status} ${body}`);
  return (res.headers.get('content-type')?.includes('json') ? JSON.parse(body) : body) as T;
}

const addressOf = (a: MailpitAddress | null) => a?.Address ?? '';

/** The summaries of the mails to exactly `address` (any case), newest first. */
async function summariesTo(address: string): Promise<MailpitSummary[]> {
  // Mailpit's `to:` search matches part of the recipients; only exact recipients are kept.
  const query = new URLSearchParams({ query: `to:"${address}"`, limit: '200' });
  const list = await api<MailpitList>(`/api/v1/search?${query.toString()}`);
  const wanted = address.toLowerCase();
  return list.messages.filter((m) => (m.To ?? []).some((a) => a.Address.toLowerCase() === wanted));
}

/** One mail in full (reading it marks it read in Mailpit's UI). */
export async function readMessage(id: string): Promise<Omit<CaughtMail, 'received'>> {
  const m = await api<MailpitMessage>(`/api/v1/message/${encodeURIComponent(id)}`);
  // SMTP carries lines ended by CRLF; tests compare with the \n the mail was written with.
  const lf = (body: string) => body.replace(/\r\n/g, '\n');
  return { id: m.ID, from: addressOf(m.From), to: (m.To ?? []).map(addressOf), subject: m.Subject, text: lf(m.Text), html: lf(m.HTML) };
}

const withBody = async (s: MailpitSummary): Promise<CaughtMail> => ({ ...(await readMessage(s.ID)), received: new Date(s.Created) });

/** One mail's plain-text body (lines ended by \n). */
export async function messageText(id: string): Promise<string> {
  return (await readMessage(id)).text;
}

/** The mails sent to `address` (any case), newest first, each with its text and HTML. */
export async function messagesTo(address: string): Promise<CaughtMail[]> {
  return await Promise.all((await summariesTo(address)).map(withBody));
}

/**
 * Waits until at least `count` mails to `address` received at or after `since` are there, and
 * returns them (newest first).
 */
export async function waitForMessagesTo(address: string, options: { count?: number; since?: Date; timeoutMs?: number } = {}): Promise<CaughtMail[]> {
  const { count = 1, since, timeoutMs = 10_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await summariesTo(address)).filter((s) => !since || new Date(s.Created).getTime() >= since.getTime());
    if (found.length >= count) return await Promise.all(found.map(withBody));
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} mails to ${address} arrived within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The sign-in code (six digits) of the newest mail to `address` received at or after `since`, once it arrives. */
export async function latestCode(address: string, since?: Date, timeoutMs = 10_000): Promise<string> {
  const [newest] = await waitForMessagesTo(address, { ...(since ? { since } : {}), timeoutMs });
  const code = /\b(\d{6})\b/.exec(newest!.subject)?.[1] ?? /\b(\d{6})\b/.exec(newest!.text)?.[1];
  if (!code) throw new Error(`the newest mail to ${address} carries no six-digit code (subject: ${newest!.subject})`);
  return code;
}

/** How many mails Mailpit holds. */
export async function messageCount(): Promise<number> {
  return (await api<MailpitList>('/api/v1/messages?limit=1')).total;
}

/** Deletes every mail Mailpit holds. */
export async function deleteAllMessages(): Promise<void> {
  await api<string>('/api/v1/messages', { method: 'DELETE' });
}

/** One mail's headers, each name with its values (GET /api/v1/message/{ID}/headers). */
export async function messageHeaders(id: string): Promise<Record<string, string[]>> {
  return await api<Record<string, string[]>>(`/api/v1/message/${encodeURIComponent(id)}/headers`);
}

/** One mail's attachments as Mailpit lists them (name, type, size), and their bytes by part id. */
export async function messageAttachments(id: string): Promise<{ FileName: string; ContentType: string; Size: number; PartID: string }[]> {
  const m = await api<{ Attachments: { FileName: string; ContentType: string; Size: number; PartID: string }[] }>(`/api/v1/message/${encodeURIComponent(id)}`);
  return m.Attachments ?? [];
}

/** The raw message (RFC 5322 source) as Mailpit received it. */
export async function messageSource(id: string): Promise<string> {
  const res = await fetch(`${mailpitUrl()}/api/v1/message/${encodeURIComponent(id)}/raw`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`Mailpit raw ${id}: ${res.status}`);
  return await res.text();
}
