/**
 * Support by e-mail (issue 39), inbound: what a requester's mail (parsed by postal-mime, with the
 * SMTP envelope's recipients) means for the desk. Pure computation, no I/O: email-reply-parser
 * finds quoted history and signatures in text, linkedom (the news extraction's DOM) reads HTML,
 * file-type (through attachment.rules.ts) reads a file's type from its first bytes.
 *
 * - `automatedReason`: mail no person wrote (auto-replies, lists, bounces, our own mail coming
 *   back). Such mail is never acknowledged, so two robots cannot answer each other for ever.
 * - `bounceOf`: a delivery-status notification (RFC 3464), its recipients and the Message-ID of
 *   the mail that bounced.
 * - `threadCandidates`: which ticket a mail belongs to, strongest evidence first.
 * - `visibleReply`: the text the requester wrote, without the history their client quoted.
 * - `attachmentVerdicts`: which files are taken into the ticket and why the others are not.
 * - `isDeskRecipient`: the recipients the desk takes mail for (the receiver's and the webhook's rule).
 *
 * Bounded work: every text is cut (MAX_INPUT_CHARS) before any regular expression sees it, the
 * expressions here are linear, and email-reply-parser (whose expressions backtrack: `On a a a …`
 * over 200 KB takes it over 10 s) is given only a bounded view of the text (see `libraryView`).
 */
import EmailReplyParser from 'email-reply-parser';
import { parseHTML } from 'linkedom';
import type PostalMime from 'postal-mime';
import { detectType, MAX_ATTACHMENT_BYTES, SNIFF_BYTES } from './attachment.rules';
import { headerSafe } from '../shared/mail-text.rules';
import { messageIdOrNull, tokenOf } from './mail-out.rules';

type Email = PostalMime.Email;
type Attachment = PostalMime.Attachment;

/** The longest text or HTML read: the rest is cut before anything else looks at it. */
export const MAX_INPUT_CHARS = 200_000;
/** The longest header value read. */
const MAX_HEADER_CHARS = 2_000;

// ---- Recipients ---------------------------------------------------------------------------------

/**
 * Whether an envelope recipient is the desk's (`local@domain`) or one of its `local+anything@domain`,
 * case-insensitively: the only mail the desk takes, whichever way it came (SMTP, LMTP, Mailgun).
 */
export function isDeskRecipient(address: string, deskAddress: string): boolean {
  const split = (a: string) => {
    const at = a.lastIndexOf('@');
    return at <= 0 ? null : { local: a.slice(0, at).toLowerCase(), domain: a.slice(at + 1).toLowerCase() };
  };
  const desk = split(deskAddress);
  const given = split(address);
  if (!desk || !given || given.domain !== desk.domain) return false;
  return given.local === desk.local || given.local.startsWith(`${desk.local}+`);
}

// ---- Headers -----------------------------------------------------------------------------------

/** Every value of a header (by lowercase name), each cut at MAX_HEADER_CHARS. */
function headerValues(email: Pick<Email, 'headers'>, name: string): string[] {
  return (email.headers ?? []).filter((h) => h.key === name).map((h) => String(h.value ?? '').slice(0, MAX_HEADER_CHARS));
}
const firstHeader = (email: Pick<Email, 'headers'>, name: string): string | undefined => headerValues(email, name)[0];

/** A structured header's main value (before `;`), lowercased and trimmed. */
const mainValue = (value: string): string => value.split(';', 1)[0]!.trim().toLowerCase();

/** A structured header's parameters (`; name=value` or `; name="value"`), names lowercased. */
function paramsOf(value: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of value.split(';').slice(1, 50)) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const v = part.slice(eq + 1).trim();
    params.set(part.slice(0, eq).trim().toLowerCase(), v.startsWith('"') && v.endsWith('"') && v.length >= 2 ? v.slice(1, -1) : v);
  }
  return params;
}

/** The desk's address split (lowercase). */
function deskOf(desk: { address: string }): { local: string; domain: string } {
  const a = desk.address.trim().toLowerCase();
  const at = a.lastIndexOf('@');
  return { local: a.slice(0, at), domain: a.slice(at + 1) };
}

/** Whether an address is the desk's: its plain address or one of its reply addresses (local+…@domain). */
function isDeskAddress(desk: { address: string }, address: string): boolean {
  const { local, domain } = deskOf(desk);
  const a = address.trim().toLowerCase().replace(/^<|>$/g, '');
  const at = a.lastIndexOf('@');
  if (at < 1 || a.slice(at + 1) !== domain) return false;
  const l = a.slice(0, at);
  return l === local || l.startsWith(`${local}+`);
}

/** The sender's address (From; the first of a group), lowercased, or ''. */
function fromAddress(email: Pick<Email, 'from'>): string {
  const from = email.from;
  if (!from) return '';
  const address = from.address ?? from.group?.[0]?.address ?? '';
  return address.trim().toLowerCase().slice(0, 320);
}

// ---- Automated mail ----------------------------------------------------------------------------

const BULK_PRECEDENCE = new Set(['bulk', 'list', 'junk', 'auto_reply']);
const ROBOT_LOCAL_PARTS = new Set(['mailer-daemon', 'postmaster']);

/**
 * Why a mail was written by a program rather than a person, or null: `Auto-Submitted` other than
 * `no` (RFC 3834); `Precedence: bulk | list | junk | auto_reply`; an `X-Loop` naming the desk (our
 * own mail come back); `X-Autoreply`, `X-Autorespond` or `X-Autoresponder` (vacation programs);
 * `List-Id` (a mailing list, RFC 2919); a From of the desk itself (its address or a reply address),
 * or of `mailer-daemon@` or `postmaster@`. Such mail gets no acknowledgement. Bounces are read by
 * `bounceOf`; the rest may still be kept on the ticket, but never answered.
 */
export function automatedReason(email: Pick<Email, 'headers' | 'from'>, desk: { address: string }): string | null {
  for (const value of headerValues(email, 'auto-submitted')) {
    const v = mainValue(value);
    if (v && v !== 'no') return `Auto-Submitted: ${headerSafe(v, 60)}`;
  }
  for (const value of headerValues(email, 'precedence')) {
    const v = mainValue(value);
    if (BULK_PRECEDENCE.has(v)) return `Precedence: ${v}`;
  }
  for (const value of headerValues(email, 'x-loop')) {
    if (value.split(/[\s,;<>]+/).some((part) => part && isDeskAddress(desk, part))) return 'X-Loop names the desk (its own mail came back)';
  }
  for (const [name, shown] of [['x-autoreply', 'X-Autoreply'], ['x-autorespond', 'X-Autorespond'], ['x-autoresponder', 'X-Autoresponder']] as const) {
    if (headerValues(email, name).length) return `${shown} is set (a vacation program)`;
  }
  if (headerValues(email, 'list-id').length) return 'List-Id: a mailing list';
  const from = fromAddress(email);
  if (from && isDeskAddress(desk, from)) return 'From is the desk itself';
  const local = from.slice(0, from.lastIndexOf('@'));
  if (ROBOT_LOCAL_PARTS.has(local)) return `From ${local}@: a mail system`;
  return null;
}

// ---- Bounces -----------------------------------------------------------------------------------

export interface BounceRecipient {
  /** Final-Recipient's address, lowercased. */
  address: string;
  /** failed, delayed, delivered, relayed or expanded (RFC 3464 §2.3.3), lowercased. */
  action: string;
  /** The enhanced status code (RFC 3463), e.g. 5.1.1; '' when none was given. */
  status: string;
  /** Diagnostic-Code, e.g. `smtp; 550 5.1.1 User unknown`; '' when none. */
  diagnostic: string;
  /** A permanent failure: action failed with a 5.x.x status. Delays and 4.x.x are not. */
  hard: boolean;
}

export interface Bounce {
  recipients: BounceRecipient[];
  /** The Message-ID of the mail that bounced (its returned headers), or null. */
  originalMessageId: string | null;
  /** Some recipient failed for good. */
  hard: boolean;
}

const DSN_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const RETURNED_TYPES = new Set(['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers']);
const MAX_PART_CHARS = 100_000;
const MAX_BOUNCE_RECIPIENTS = 100;

/** An attachment's content as bytes (postal-mime gives an ArrayBuffer, or a string with `encoding`). */
function bytesOf(a: Pick<Attachment, 'content' | 'encoding'>): Buffer {
  const c = a.content;
  if (typeof c === 'string') return Buffer.from(c, a.encoding === 'base64' ? 'base64' : 'utf8');
  if (c instanceof ArrayBuffer) return Buffer.from(c);
  return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
}

/** An attachment as text (UTF-8, invalid bytes replaced), at most MAX_PART_CHARS. */
const textOf = (a: Pick<Attachment, 'content' | 'encoding'>): string => new TextDecoder('utf-8').decode(bytesOf(a).subarray(0, MAX_PART_CHARS * 4)).slice(0, MAX_PART_CHARS);

/** Header-like blocks (`Name: value` lines, continuation lines unfolded), separated by blank lines. */
function fieldBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let block = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      if (block.size) blocks.push(block);
      block = new Map();
      last = undefined;
      continue;
    }
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      block.set(last, `${block.get(last)} ${line.trim()}`.slice(0, MAX_HEADER_CHARS));
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 1 || colon > 100) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    if (!block.has(last)) block.set(last, line.slice(colon + 1).trim().slice(0, MAX_HEADER_CHARS));
    else last = undefined;
  }
  if (block.size) blocks.push(block);
  return blocks;
}

/** `rfc822; a@b` → `a@b` (lowercased, brackets removed). */
const addressField = (value: string): string => {
  const semi = value.indexOf(';');
  return (semi >= 0 ? value.slice(semi + 1) : value).trim().replace(/^<|>$/g, '').toLowerCase().slice(0, 320);
};

const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;
const STATUS_IN_TEXT = /\b([245]\.\d{1,3}\.\d{1,3})\b/;

/**
 * A delivery-status notification (RFC 3464): a multipart/report (report-type delivery-status) with
 * a message/delivery-status part (postal-mime gives it as an attachment). Each per-recipient block
 * becomes a recipient: Final-Recipient (else Original-Recipient), Action, Status (else the enhanced
 * code in Diagnostic-Code), Diagnostic-Code. The mail that bounced is named by the Message-ID in
 * the returned message/rfc822 or text/rfc822-headers part. Null for anything else (a bounce in a
 * non-standard shape is not guessed at).
 */
export function bounceOf(email: Pick<Email, 'headers' | 'attachments'>): Bounce | null {
  const contentType = firstHeader(email, 'content-type') ?? '';
  if (mainValue(contentType) !== 'multipart/report') return null;
  const reportType = paramsOf(contentType).get('report-type')?.toLowerCase();
  if (reportType && reportType !== 'delivery-status') return null;
  const attachments = email.attachments ?? [];
  const status = attachments.find((a) => DSN_TYPES.has(a.mimeType.toLowerCase()));
  if (!status) return null;

  const recipients: BounceRecipient[] = [];
  for (const block of fieldBlocks(textOf(status)).slice(0, MAX_BOUNCE_RECIPIENTS + 1)) {
    const address = addressField(block.get('final-recipient') ?? block.get('original-recipient') ?? '');
    const action = (block.get('action') ?? '').trim().toLowerCase().split(/\s/, 1)[0]!;
    if (!address || !action) continue; // the per-message block (Reporting-MTA, Arrival-Date…)
    const diagnostic = headerSafe(block.get('diagnostic-code') ?? '', 1_000);
    const given = (block.get('status') ?? '').trim().split(/\s/, 1)[0]!;
    const code = STATUS.test(given) ? given : (STATUS_IN_TEXT.exec(diagnostic)?.[1] ?? '');
    recipients.push({ address, action: headerSafe(action, 20), status: code, diagnostic, hard: action === 'failed' && code.startsWith('5.') });
  }

  let originalMessageId: string | null = null;
  const returned = attachments.find((a) => RETURNED_TYPES.has(a.mimeType.toLowerCase()));
  if (returned) {
    const headerPart = textOf(returned).replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/, 1)[0]!;
    originalMessageId = messageIdOrNull(fieldBlocks(headerPart)[0]?.get('message-id'));
  }
  return { recipients: recipients.slice(0, MAX_BOUNCE_RECIPIENTS), originalMessageId, hard: recipients.some((r) => r.hard) };
}

/** A complaint: a feedback report (ARF, RFC 5965) a mailbox provider sends when its user marks a mail as spam. */
export interface Complaint {
  /** Feedback-Type: abuse, fraud, virus, other, not-spam… (lowercased). */
  feedbackType: string;
  /** The complaining recipient (Original-Rcpt-To), when the provider did not redact it; else null. */
  recipient: string | null;
  /** The Message-ID of the mail complained about (its returned headers), or null. */
  originalMessageId: string | null;
}

const FEEDBACK_TYPES = new Set(['message/feedback-report']);

/**
 * A feedback report (RFC 5965): a multipart/report (report-type feedback-report) with a
 * message/feedback-report part, and the mail complained about (or its headers) as a returned part.
 * Null for anything else. `not-spam` reports are reports too; the caller decides what counts.
 */
export function complaintOf(email: Pick<Email, 'headers' | 'attachments'>): Complaint | null {
  const contentType = firstHeader(email, 'content-type') ?? '';
  if (mainValue(contentType) !== 'multipart/report') return null;
  if (paramsOf(contentType).get('report-type')?.toLowerCase() !== 'feedback-report') return null;
  const attachments = email.attachments ?? [];
  const report = attachments.find((a) => FEEDBACK_TYPES.has(a.mimeType.toLowerCase()));
  if (!report) return null;
  const fields = fieldBlocks(textOf(report))[0] ?? new Map<string, string>();
  const feedbackType = headerSafe((fields.get('feedback-type') ?? '').trim().toLowerCase().split(/\s/, 1)[0]!, 20);
  if (!feedbackType) return null;
  const rcpt = addressField(fields.get('original-rcpt-to') ?? '');
  let originalMessageId: string | null = null;
  const returned = attachments.find((a) => RETURNED_TYPES.has(a.mimeType.toLowerCase()));
  if (returned) {
    const headerPart = textOf(returned).replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/, 1)[0]!;
    originalMessageId = messageIdOrNull(fieldBlocks(headerPart)[0]?.get('message-id'));
  }
  return { feedbackType, recipient: rcpt.includes('@') ? rcpt : null, originalMessageId };
}

// ---- Threading ---------------------------------------------------------------------------------

/** The ticket number in a subject (`[#123]`, as subjectOf in mail-out.rules.ts writes it), or null. */
export function ticketNumberOf(subject: string | null | undefined): number | null {
  const m = /\[#(\d{1,15})\]/.exec((subject ?? '').slice(0, 1_000));
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

/** The msg-ids of an In-Reply-To or References value (`<…>` each), in order, at most `max`. */
export function messageIdsIn(value: string | readonly string[] | null | undefined, max = 100): string[] {
  const text = (Array.isArray(value) ? value.join(' ') : String(value ?? '')).slice(0, 20_000);
  const ids: string[] = [];
  let from = 0;
  while (ids.length < max) {
    const open = text.indexOf('<', from);
    if (open < 0) break;
    const close = text.indexOf('>', open + 1);
    if (close < 0) break;
    const id = messageIdOrNull(text.slice(open, close + 1));
    if (id && !ids.includes(id)) ids.push(id);
    from = close + 1;
  }
  // Some clients write one id without brackets.
  if (!ids.length && !text.includes('<')) {
    const id = messageIdOrNull(text.trim());
    if (id) ids.push(id);
  }
  return ids;
}

export type ThreadCandidate =
  /** A reply address's token (the ticket whose token it is). */
  | { by: 'token'; token: string }
  /** One of our Message-IDs, verified (mail-ids.ts ourMessageId): the ticket it was sent for. */
  | { by: 'message-id'; ticketId: number; messageId: number; id: string }
  /** A `[#n]` in the subject: weak, see threadCandidates. */
  | { by: 'subject'; ticketId: number }
  /** None of the above: a new ticket. */
  | { by: 'new' };

export interface ThreadInput {
  /** The SMTP envelope's recipients (RCPT TO), which hold the reply address even when To does not. */
  recipients: readonly string[];
  inReplyTo?: string | null;
  references?: string | readonly string[] | null;
  subject?: string | null;
}

/**
 * Where a mail may belong, strongest first; always ending with `{ by: 'new' }`. The caller takes
 * the first that names a ticket that exists (and is not deleted):
 * 1. `token`: a recipient is the desk's reply address `local+token@domain` (unguessable, 120 bits).
 * 2. `message-id`: an In-Reply-To or References id that `verify` (mail-ids.ts ourMessageId with
 *    the desk's secret and domain) accepts: only a mail we sent carries one, a guessed or altered
 *    id does not verify (In-Reply-To first, then References newest first; one per ticket).
 * 3. `subject`: a `[#n]` in the subject. Anyone can write one, so the caller may join ticket n by
 *    subject ONLY when the From address is that ticket's requester (its `email`) AND the mail passed
 *    DMARC for the From domain (mailauth); otherwise it goes on to the next candidate.
 * 4. `new`: a new ticket.
 */
export function threadCandidates(input: ThreadInput, desk: { address: string }, verify: (id: string) => { ticketId: number; messageId: number } | null): ThreadCandidate[] {
  const candidates: ThreadCandidate[] = [];
  const tokens = new Set<string>();
  for (const recipient of input.recipients.slice(0, 100)) {
    const token = tokenOf(desk, recipient);
    if (token && !tokens.has(token)) {
      tokens.add(token);
      candidates.push({ by: 'token', token });
    }
  }
  const tickets = new Set<number>();
  const ids = [...messageIdsIn(input.inReplyTo, 10), ...messageIdsIn(input.references, 100).reverse()];
  for (const id of ids) {
    const ours = verify(id);
    if (ours && !tickets.has(ours.ticketId)) {
      tickets.add(ours.ticketId);
      candidates.push({ by: 'message-id', ticketId: ours.ticketId, messageId: ours.messageId, id });
    }
  }
  const bySubject = ticketNumberOf(input.subject);
  if (bySubject !== null) candidates.push({ by: 'subject', ticketId: bySubject });
  candidates.push({ by: 'new' });
  return candidates;
}

// ---- The visible reply -------------------------------------------------------------------------

export interface VisibleReply {
  /** What the requester wrote: quoted history and signature removed, trimmed; '' when nothing is left. */
  text: string;
  /** Quoted history was found and removed. */
  quoted: boolean;
  /** A forwarded message: kept whole (what was forwarded is the requester's content, not a quote). */
  forwarded: boolean;
  /** Which body it was read from. */
  source: 'text' | 'html' | 'none';
  /** The input was longer than MAX_INPUT_CHARS and was cut. */
  cut: boolean;
}

/** Lines that start a forwarded message (Gmail, Apple Mail, Outlook; English and Portuguese). */
const FORWARD_MARKERS = [
  /^-{2,} ?(?:forwarded message|mensagem encaminhada|original message follows) ?-{2,}$/i,
  /^(?:begin forwarded message|in[ií]cio da mensagem encaminhada):?$/i,
];

/** Lines that start quoted history on their own ("-----Original Message-----", Outlook's and Apple's). */
const ORIGINAL_MESSAGE = /^-{2,} ?(?:original message|mensagem original) ?-{2,}$/i;
/** Outlook's header block: From/De, then within a few lines Sent/Enviado/Date/Data and To/Para/Subject/Assunto. */
const OUTLOOK_FROM = /^(?:\*{0,2})(?:from|de)(?:\*{0,2}) ?:/i;
const OUTLOOK_SENT = /^(?:\*{0,2})(?:sent|enviado|enviada em|date|data|sent on)(?:\*{0,2}) ?:/i;
const OUTLOOK_TO = /^(?:\*{0,2})(?:to|para|subject|assunto|cc)(?:\*{0,2}) ?:/i;
/** Outlook's separator before its header block (a line of underscores), or a rule drawn with dashes. */
const SEPARATOR = /^(?:_{10,}|-{10,})$/;

/** The longest line checked for a header; longer ones are content. */
const HEADER_LINE_MAX = 500;

/** The line (trimmed) as a header line's candidate: '' when too long to be one. */
const headOf = (line: string | undefined): string => (line !== undefined && line.length <= HEADER_LINE_MAX ? line.trim().replace(/^>+ ?/, '') : '');

/**
 * "On … wrote:" (Gmail, Apple Mail, Thunderbird) and "Em … escreveu:" (Portuguese Gmail and Apple
 * Mail), on one line or wrapped onto the next: the number of lines it takes (1 or 2), or 0.
 */
function attributionLines(lines: readonly string[], i: number): number {
  const head = headOf(lines[i]);
  const opener = /^(?:on|em)\s/i.test(head);
  if (!opener) return 0;
  const ends = (s: string) => /\s(?:wrote|escreveu):$/i.test(s) || /^(?:wrote|escreveu):$/i.test(s);
  if (ends(head)) return 1;
  const next = headOf(lines[i + 1]);
  return next && ends(`${head} ${next}`) ? 2 : 0;
}

/** Whether line i opens Outlook's "From: … Sent: … To: …" block (in the next five lines). */
function outlookBlock(lines: readonly string[], i: number): boolean {
  if (!OUTLOOK_FROM.test(headOf(lines[i]))) return false;
  let sent = false;
  for (let j = i + 1; j < Math.min(lines.length, i + 6); j++) {
    const head = headOf(lines[j]);
    if (OUTLOOK_SENT.test(head)) sent = true;
    else if (sent && OUTLOOK_TO.test(head)) return true;
  }
  return false;
}

/**
 * Where the quoted history starts (a line index), or -1; and whether a forward marker comes first
 * (then there is no history to cut: the forwarded message is the content). Linear: each line is
 * looked at a bounded number of times, and only its first HEADER_LINE_MAX characters.
 */
function historyStart(lines: readonly string[]): { at: number; forwarded: boolean } {
  // ownAfter[i]: some line after i is neither blank nor quoted (`>`): the requester wrote there.
  const ownAfter: boolean[] = new Array<boolean>(lines.length + 1).fill(false);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i + 1];
    ownAfter[i] = ownAfter[i + 1]! || (line !== undefined && line.trim() !== '' && !line.trimStart().startsWith('>'));
  }
  for (let i = 0; i < lines.length; i++) {
    const head = headOf(lines[i]);
    if (!head) continue;
    if (FORWARD_MARKERS.some((r) => r.test(head))) return { at: -1, forwarded: true };
    if (ORIGINAL_MESSAGE.test(head)) return { at: i, forwarded: false };
    // An attribution followed by quoted lines only: the history (top-posting). Followed by the
    // requester's own lines between quotes (an answer written inline), it is left to
    // email-reply-parser, which hides the quoted parts and keeps the answers.
    const n = attributionLines(lines, i);
    if (n && !ownAfter[i + n - 1]) return { at: i, forwarded: false };
    if (outlookBlock(lines, i)) {
      // Outlook draws a rule of underscores above the block; it goes with it.
      let at = i;
      for (let j = i - 1; j >= 0 && j >= i - 2; j--) {
        const above = headOf(lines[j]);
        if (SEPARATOR.test(above)) {
          at = j;
          break;
        }
        if (above) break;
      }
      return { at, forwarded: false };
    }
  }
  return { at: -1, forwarded: false };
}

/** Placeholders' and sentinels' characters (Unicode private use): removed from the input first. */
const PRIVATE = /[\uE000\uE001]/g;
const PLACEHOLDER = /\uE000(\d{1,7})\uE001/g;

/** The longest line email-reply-parser sees (longer ones are content: they go in as placeholders). */
const LIBRARY_LINE_MAX = 200;
/**
 * Lines whose start would let one of email-reply-parser's quote-header expressions scan the rest of
 * the text (`[\s\S]+` after Dutch "Op", Polish "W dniu"/"Dnia", Chinese "在", Danish "abc. … skrev",
 * and the date-first ones): they go in as placeholders, so those locales' headers are not detected
 * (English and Portuguese ones are, by historyStart, before the library).
 */
const RISKY_START = /^(?:[0-9]|在|Op\s|W\sdniu|Dnia\s|[a-z]{3,4}\.\s)/;

/**
 * The text email-reply-parser is given, and how to restore it: lines longer than LIBRARY_LINE_MAX,
 * and risky ones (RISKY_START), replaced by a placeholder (keeping a leading `>`, so quotes stay
 * quotes), and runs of blank lines collapsed to one. Each of the library's expressions then works
 * within a line or two of at most LIBRARY_LINE_MAX characters, and 200,000 characters of any shape
 * take it well under a second (tests/unit/mail-in-rules.test.ts).
 */
function libraryView(lines: readonly string[]): { view: string; originals: string[] } {
  const originals: string[] = [];
  const out: string[] = [];
  let blank = false;
  for (const line of lines) {
    if (line.trim() === '') {
      if (!blank) out.push('');
      blank = true;
      continue;
    }
    blank = false;
    const body = line.replace(/^[\s-]+/, '');
    if (line.length > LIBRARY_LINE_MAX || RISKY_START.test(body)) {
      originals.push(line);
      out.push(`${line.startsWith('>') ? '>' : ''}\uE000${originals.length - 1}\uE001`);
    } else out.push(line);
  }
  return { view: out.join('\n'), originals };
}

/**
 * A forward's subject: `Fwd:`/`Fw:` (Gmail, Outlook in English), `Enc:` (Outlook in Portuguese), `Tr:`,
 * before any `Re:`. Outlook marks a forward by its subject alone: its text has the same
 * "From: … Sent: …" block, and its HTML the same divRplyFwdMsg, as a reply's.
 */
export const isForwardSubject = (subject: string | null | undefined): boolean => /^\s{0,20}(?:\[[^\]]{0,40}\]\s{0,5})?(?:fwd?|enc|tr)\s{0,3}:/i.test((subject ?? '').slice(0, 200));

/** The text with its quoted history and signature removed (see visibleReply). */
function visibleText(text: string, forwardSubject: boolean): { text: string; quoted: boolean; forwarded: boolean } {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const { at, forwarded } = forwardSubject ? { at: -1, forwarded: true } : historyStart(lines);
  if (forwarded) return { text: tidy(lines.join('\n')), quoted: false, forwarded: true };
  const own = at >= 0 ? lines.slice(0, at) : lines;
  const { view, originals } = libraryView(own);
  const parsed = new EmailReplyParser().read(view);
  const quotedByLibrary = parsed.getFragments().some((f) => f.isQuoted() && !f.isEmpty());
  const visible = parsed
    .getVisibleText()
    .replace(/^>\uE000/gm, '\uE000')
    .replace(PLACEHOLDER, (_, n: string) => originals[Number(n)] ?? '');
  return { text: tidy(visible), quoted: at >= 0 || quotedByLibrary, forwarded: false };
}

// eslint-disable-next-line no-control-regex -- control characters are what is removed
const TEXT_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
/** Line breaks made LF, control characters (but tab) and private-use markers removed. */
const normalise = (text: string): string => text.replace(/\r\n?/g, '\n').replace(TEXT_CONTROLS, '').replace(PRIVATE, '');

/** Trailing spaces removed, runs of blank lines made one, trimmed. */
const tidy = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/**
 * What the requester wrote in this mail: the text part (else the HTML part as text) without the
 * history their client quoted (Gmail's "On … wrote:" and "Em … escreveu:", Apple Mail's "On …, at
 * …, X wrote:", Outlook's "From: … Sent: …" / "De: … Enviado: …" block and its divRplyFwdMsg, `>`
 * lines) and without the signature email-reply-parser recognises ("-- ", "Sent from my iPhone"…).
 * A forwarded message (a forward marker line before any quote header, or a forward's subject:
 * isForwardSubject) is kept whole: the forwarded text is the requester's content. Input longer
 * than MAX_INPUT_CHARS is cut first.
 */
export function visibleReply(email: Pick<Email, 'text' | 'html'> & { subject?: string | undefined }): VisibleReply {
  const forwardSubject = isForwardSubject(email.subject);
  const rawText = typeof email.text === 'string' ? email.text : '';
  if (rawText.trim()) {
    const cut = rawText.length > MAX_INPUT_CHARS;
    return { ...visibleText(normalise(rawText.slice(0, MAX_INPUT_CHARS)), forwardSubject), source: 'text', cut };
  }
  const rawHtml = typeof email.html === 'string' ? email.html : '';
  if (rawHtml.trim()) {
    const cut = rawHtml.length > MAX_INPUT_CHARS;
    const { text, removed } = htmlReplyText(rawHtml.slice(0, MAX_INPUT_CHARS), forwardSubject);
    const result = visibleText(text, forwardSubject);
    // A forward is kept whole, quoted parts included.
    if (result.forwarded) return { ...result, source: 'html', cut };
    return { ...result, quoted: result.quoted || removed, source: 'html', cut };
  }
  return { text: '', quoted: false, forwarded: false, source: 'none', cut: false };
}

// ---- HTML as text ------------------------------------------------------------------------------

/** Containers of quoted history: Gmail, Apple Mail and Thunderbird (cite), Yahoo, new Outlook. */
const QUOTE_CONTAINERS = ['.gmail_quote', 'blockquote[type="cite"]', '.moz-cite-prefix', '.yahoo_quoted', '#mail-editor-reference-message-container'];
/** Signatures the clients mark: Gmail's and Outlook's (removed like the ones email-reply-parser finds in text; not quotes). */
const SIGNATURE_CONTAINERS = ['.gmail_signature', '#Signature'];
/** Outlook (web and desktop): the header block and everything after it is the quoted message. */
const QUOTE_FROM_HERE = ['#divRplyFwdMsg', '#appendonsend'];

const SKIPPED = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'svg', 'math', 'object', 'iframe']);
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer',
  'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);
/** Blocks followed by a blank line (paragraphs). */
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'ul', 'ol']);

interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<DomNode>;
}

/**
 * A DOM subtree as text with line breaks: `<br>` a break, a block element starts and ends a line,
 * a paragraph is followed by a blank line; whitespace in text collapsed (but in <pre>). Iterative.
 */
function domText(root: DomNode): string {
  // Built as parts (indexing a string being built would flatten it each time): `trailing` counts
  // the line breaks at the end so far, `empty` says nothing was written yet.
  const parts: string[] = [];
  let trailing = 0;
  let empty = true;
  const write = (text: string) => {
    if (!text) return;
    parts.push(text);
    empty = false;
    let k = 0;
    while (k < text.length && text[text.length - 1 - k] === '\n') k++;
    trailing = k === text.length ? trailing + k : k;
  };
  const newline = (n: number) => {
    if (!empty && trailing < n) write('\n'.repeat(n - trailing));
  };
  type Step = { node: DomNode; pre: boolean } | { end: string };
  const stack: Step[] = [{ node: root, pre: false }];
  while (stack.length) {
    const step = stack.pop()!;
    if ('end' in step) {
      newline(PARAGRAPHS.has(step.end) ? 2 : 1);
      continue;
    }
    const { node, pre } = step;
    if (node.nodeType === 3) {
      const value = node.nodeValue ?? '';
      const text = pre ? value : value.replace(/\s+/g, ' ');
      write(trailing > 0 && !pre ? text.replace(/^ /, '') : text);
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = node.nodeName.toLowerCase();
    if (SKIPPED.has(name)) continue;
    if (name === 'br') {
      write('\n');
      continue;
    }
    if (BLOCKS.has(name)) {
      newline(1);
      stack.push({ end: name });
    }
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, pre: pre || name === 'pre' });
  }
  return parts.join('');
}

/**
 * An HTML body as text for visibleReply: a forward is read whole; otherwise the clients' quote
 * containers are removed first (Gmail's gmail_quote, Apple Mail's and Thunderbird's cite
 * blockquote, Outlook's divRplyFwdMsg and all that follows it). `removed`: some were.
 */
function htmlReplyText(html: string, forwardSubject: boolean): { text: string; removed: boolean } {
  if (tagCount(html, HTML_MAX_TAGS + 1) > HTML_MAX_TAGS) return { text: normalise(strippedHtml(html)), removed: false };
  const { document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`);
  const body = document.body as unknown as DomNode;
  const whole = normalise(domText(body));
  if (forwardSubject || historyStart(whole.split('\n').map((l) => l.trimEnd())).forwarded) return { text: whole, removed: false };
  let removed = false;
  type El = { remove(): void; nextSibling: El | null; previousSibling: El | null; nodeType: number; nodeName: string; isConnected?: boolean };
  for (const selector of QUOTE_FROM_HERE) {
    const first = document.querySelector(selector) as unknown as El | null;
    if (!first) continue;
    // Outlook draws an <hr> just before the block.
    let prev = first.previousSibling;
    while (prev && prev.nodeType === 3 && !(prev as unknown as DomNode).nodeValue?.trim()) prev = prev.previousSibling;
    if (prev && prev.nodeName.toLowerCase() === 'hr') prev.remove();
    const doomed: El[] = [];
    for (let n: El | null = first; n; n = n.nextSibling) doomed.push(n);
    doomed.forEach((n) => n.remove());
    removed = true;
  }
  for (const selector of QUOTE_CONTAINERS) {
    const found = Array.from(document.querySelectorAll(selector) as unknown as ArrayLike<El>);
    found.forEach((n) => n.remove());
    if (found.length) removed = true;
  }
  for (const selector of SIGNATURE_CONTAINERS) Array.from(document.querySelectorAll(selector) as unknown as ArrayLike<El>).forEach((n) => n.remove());
  return { text: normalise(domText(body)), removed };
}

/**
 * More tags than this and the HTML is not given to linkedom: its parser closes unclosed nested
 * elements in quadratic time (66,000 `<b><i>` take it seconds), and no mail a person writes has
 * this many. Such HTML is read by `strippedHtml` instead (no quote containers removed).
 */
const HTML_MAX_TAGS = 10_000;

/** How many tags (`<` then a letter, `/` or `!`) the HTML has, counting up to `limit`. */
function tagCount(html: string, limit: number): number {
  let count = 0;
  for (let at = html.indexOf('<'); at >= 0 && count < limit; at = html.indexOf('<', at + 1)) {
    if (/[A-Za-z/!]/.test(html[at + 1] ?? '')) count++;
  }
  return count;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A character reference decoded (numeric, or the few named ones above); others are left as they are. */
function entity(ref: string, body: string): string {
  if (body.startsWith('#')) {
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ref;
  }
  return ENTITIES[body.toLowerCase()] ?? ref;
}

/**
 * HTML as text without a DOM, in one pass: tags dropped (block tags and <br> make line breaks),
 * script and style skipped, character references decoded. Linear; used for tag-heavy input.
 */
function strippedHtml(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    const textEnd = open < 0 ? html.length : open;
    if (textEnd > at) parts.push(html.slice(at, textEnd).replace(/\s+/g, ' '));
    if (open < 0) break;
    const close = html.indexOf('>', open + 1);
    if (close < 0) break;
    const name = /^<\/?([a-z][a-z0-9]{0,15})/.exec(lower.slice(open, open + 20))?.[1] ?? '';
    at = close + 1;
    if (name === 'script' || name === 'style') {
      const end = lower.indexOf(`</${name}`, at);
      at = end < 0 ? html.length : end;
      continue;
    }
    if (name === 'br') parts.push('\n');
    else if (BLOCKS.has(name)) parts.push(PARAGRAPHS.has(name) ? '\n\n' : '\n');
  }
  return parts
    .join('')
    .replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});/g, entity)
    .split('\n')
    .map((line) => line.trim())
    .join('\n');
}

// ---- Attachments -------------------------------------------------------------------------------

/** What a mail's files may be: the ticket's own rules (attachment.rules.ts), and how many one mail brings. */
export interface AttachmentRules {
  /** Each file at most (default MAX_ATTACHMENT_BYTES, the upload route's 10 MB). */
  maxBytes: number;
  /** Files taken from one mail at most (default 20); the rest are refused. */
  maxCount: number;
}
export const INBOUND_ATTACHMENT_RULES: AttachmentRules = { maxBytes: MAX_ATTACHMENT_BYTES, maxCount: 20 };

export type AttachmentRefusal = 'too-large' | 'type-not-allowed' | 'empty' | 'too-many';

interface VerdictBase {
  /** Its index in `email.attachments`. */
  index: number;
  /** The name it is kept under: the mail's (control characters removed, no folders, at most 255), else `arquivo-<n>`. */
  filename: string;
  /** The type the mail declared (lowercase). */
  declaredType: string;
  size: number;
  /** Shown in the body (an inline image by Content-ID or disposition inline) rather than attached. */
  inline: boolean;
  /** Its Content-ID without brackets (what `cid:` in the HTML names), or null. */
  contentId: string | null;
}
export type AttachmentVerdict = (VerdictBase & { accepted: true; type: string }) | (VerdictBase & { accepted: false; reason: AttachmentRefusal; detail: string });

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

/** A file name from a mail: the last path segment, control characters made spaces, at most 255 characters. */
function cleanName(name: string | null | undefined): string {
  const last = (name ?? '').slice(-1_000).split(/[/\\]/).pop() ?? '';
  return headerSafe(last, 255).replace(/^\.+/, '');
}

/**
 * Each file of a mail, accepted (with the type read from its content: detectType, as an upload's)
 * or refused with a reason: more than `maxCount` files, larger than `maxBytes`, empty, or a type
 * not in ALLOWED_TYPES. Inline images (a Content-ID, or disposition inline) are files like the
 * others, marked `inline`.
 */
export async function attachmentVerdicts(attachments: readonly Attachment[], rules: Partial<AttachmentRules> = {}): Promise<AttachmentVerdict[]> {
  const { maxBytes, maxCount } = { ...INBOUND_ATTACHMENT_RULES, ...rules };
  const verdicts: AttachmentVerdict[] = [];
  for (const [index, a] of attachments.entries()) {
    const bytes = bytesOf(a);
    const declaredType = String(a.mimeType ?? 'application/octet-stream').toLowerCase().slice(0, 255);
    const contentId = a.contentId ? headerSafe(a.contentId.replace(/^<|>$/g, ''), 255) || null : null;
    const inline = a.disposition === 'inline' || (!!a.related && !!contentId);
    const named = cleanName(a.filename);
    const base = { index, declaredType, size: bytes.length, inline, contentId };
    const refuse = (reason: AttachmentRefusal, detail: string): AttachmentVerdict => ({ ...base, filename: named || `arquivo-${index + 1}`, accepted: false, reason, detail });
    if (index >= maxCount) {
      verdicts.push(refuse('too-many', `only the first ${maxCount} files of a mail are taken`));
      continue;
    }
    if (bytes.length > maxBytes) {
      verdicts.push(refuse('too-large', `larger than ${Math.floor(maxBytes / (1024 * 1024))} MB (${bytes.length} bytes)`));
      continue;
    }
    if (bytes.length === 0) {
      verdicts.push(refuse('empty', 'the file is empty'));
      continue;
    }
    const type = await detectType(bytes.subarray(0, SNIFF_BYTES), declaredType, named);
    if (!type) {
      verdicts.push(refuse('type-not-allowed', `type not allowed (declared ${declaredType}; checked from the file's content)`));
      continue;
    }
    verdicts.push({ ...base, filename: named || `arquivo-${index + 1}.${EXTENSIONS[type] ?? 'bin'}`, accepted: true, type });
  }
  return verdicts;
}
