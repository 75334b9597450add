/**
 * Support by e-mail (issue 39), outbound: the mail a ticket's requester receives. A staff reply
 * (`composeReply`) and a new ticket's acknowledgement (`composeAcknowledgement`) are composed here
 * from what the caller read (the ticket, the message, its files, the thread's Message-IDs, the
 * reply token); operations/support/mail-delivery.ts sends them. Pure: no I/O, no clock, no
 * randomness, no node:crypto (Message-IDs and tokens are minted in mail-ids.ts and passed in).
 *
 * - The reply address `local+token@domain` routes the requester's answer back to the ticket
 *   (`tokenOf` reads it back); the thread's subject carries `[#<ticket>]` (`ticketNumberOf` in
 *   mail-in.rules.ts reads it back).
 * - Every header value built here is free of CR, LF and other control characters: a ticket's
 *   `main`, a staff member's name or a requester's Message-ID can never add a header
 *   (`headerSafe`, `messageIdOrNull`). Addresses that are not plain are refused (thrown).
 * - Bodies: text and HTML, in the ticket's language (Portuguese unless English). The HTML escapes
 *   everything that came from the ticket or the message and loads nothing (no image, style sheet
 *   or script): paragraphs from blank lines, <br> for the other line breaks.
 */
import type { TICKET_ISSUES } from './ticket.rules';
import { escapeHtml, headerSafe } from '../shared/mail-text.rules';

export const MAIL_LANGUAGES = ['pt', 'en'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

/** The desk as the mail shows it (config support.mail): its plain address (lowercase, no '+') and name. */
export interface MailDesk {
  address: string;
  name: string;
}

// ---- Tokens and reply addresses ------------------------------------------------------------------

/** RFC 4648 base32, lowercased (tokens and Message-ID codes must survive case-folding mail systems). */
export const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** Bytes as lowercase RFC 4648 base32, without padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** A ticket's reply token: 24 lowercase base32 characters (120 random bits, mail-ids.ts newReplyToken). */
export const REPLY_TOKEN_LENGTH = 24;
export const REPLY_TOKEN = /^[a-z2-7]{24}$/;

/** An address's local part and domain, lowercased; null unless it is a plain `local@domain` of sane length. */
function partsOf(address: string): { local: string; domain: string } | null {
  if (address.length > 320) return null;
  const a = address.trim().replace(/^<(.*)>$/, '$1').toLowerCase();
  const at = a.lastIndexOf('@');
  if (at < 1 || at === a.length - 1) return null;
  const local = a.slice(0, at);
  const domain = a.slice(at + 1);
  if (!PLAIN_LOCAL.test(local) || !PLAIN_DOMAIN.test(domain)) return null;
  return { local, domain };
}
const PLAIN_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;
const PLAIN_DOMAIN = /^[a-z0-9.-]{1,253}$/;

/** The desk's address split, or thrown: the configuration holds a plain address. */
function deskParts(desk: { address: string }): { local: string; domain: string } {
  const parts = partsOf(desk.address);
  if (!parts || parts.local.includes('+')) throw new Error(`The desk's address must be a plain local@domain without '+': ${JSON.stringify(desk.address.slice(0, 100))}`);
  return parts;
}

/** The ticket's reply address: the desk's local part, `+`, the token, at the desk's domain. */
export function replyAddressOf(desk: { address: string }, token: string): string {
  if (!REPLY_TOKEN.test(token)) throw new Error('A reply token is 24 lowercase base32 characters');
  const { local, domain } = deskParts(desk);
  return `${local}+${token}@${domain}`;
}

/**
 * The token of a reply address: `address` is the desk's local part plus `+` and a well-formed token,
 * at the desk's domain (case-insensitive; angle brackets allowed). Null for anything else (the
 * desk's plain address, another domain, a malformed token).
 */
export function tokenOf(desk: { address: string }, address: string): string | null {
  const parts = partsOf(address);
  if (!parts) return null;
  const own = deskParts(desk);
  if (parts.domain !== own.domain || !parts.local.startsWith(`${own.local}+`)) return null;
  const token = parts.local.slice(own.local.length + 1);
  return REPLY_TOKEN.test(token) ? token : null;
}

// ---- Header values -----------------------------------------------------------------------------


/** A msg-id as it may go in Message-ID, In-Reply-To and References: `<left@right>`, printable, no spaces. */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const MESSAGE_ID = /^<[^\s<>@"(),;\\\u0000-\u001f\u007f]{1,250}@[^\s<>@"(),;\\\u0000-\u001f\u007f]{1,250}>$/;

/** `id` as a msg-id (brackets added when missing), or null when it is not one: nothing else is ever echoed into a header. */
export function messageIdOrNull(id: string | null | undefined): string | null {
  if (!id || id.length > 600) return null;
  const t = id.trim();
  const bracketed = t.startsWith('<') ? t : `<${t}>`;
  return MESSAGE_ID.test(bracketed) ? bracketed : null;
}

/** A plain address for To (a ticket's requester), or thrown: a mail is never sent to anything else. */
function plainRecipient(address: string): string {
  const parts = partsOf(address);
  if (!parts) throw new Error('The recipient is not a plain address');
  return `${parts.local}@${parts.domain}`;
}

// ---- Subjects ----------------------------------------------------------------------------------

/** The spec's issues (TICKET_ISSUES, Portuguese) in English, for mail in English. */
export const ISSUE_LABELS_EN: Readonly<Record<(typeof TICKET_ISSUES)[number], string>> = {
  'Não recebi meus prêmios': 'I did not receive my prizes',
  'Não estou recebendo a edição': 'I am not receiving the edition',
  'Me desinscrevi e continuo recebendo': 'I unsubscribed and still receive it',
  'Alterações de cadastro': 'Changes to my registration',
  'Não estou conseguindo indicar': 'I cannot refer',
  'Não estou conseguindo indicar o The News': 'I cannot refer The News',
  'Prêmio com defeito': 'Defective prize',
  'Meus pontos no streak não estão contabilizando': 'My streak points are not counting',
  Outros: 'Other',
  Outro: 'Other',
};

const issueLabel = (issue: string, lang: MailLanguage): string => (lang === 'en' && Object.hasOwn(ISSUE_LABELS_EN, issue) ? ISSUE_LABELS_EN[issue as keyof typeof ISSUE_LABELS_EN] : issue);

/** What a subject says of a ticket. */
export interface SubjectTicket {
  _id: number;
  main: string;
  issue: string;
}

/** The longest subject built (RFC 5322 recommends lines of at most 78 characters; encoded words fold). */
export const SUBJECT_MAX = 200;

/**
 * The thread's subject: `[#<ticket>] <main>: <issue>` (the issue in the mail's language), prefixed
 * with `Re: ` for a reply. The `[#n]` tag is what `ticketNumberOf` (mail-in.rules.ts) reads back.
 * Free of control characters, at most SUBJECT_MAX characters.
 */
export function subjectOf(ticket: SubjectTicket, lang: MailLanguage, reply = false): string {
  return headerSafe(`${reply ? 'Re: ' : ''}[#${ticketIdOf(ticket._id)}] ${aboutOf(ticket, lang)}`, SUBJECT_MAX);
}

/** `<main>: <issue>`, each made header-safe and cut at 120 characters. */
function aboutOf(ticket: SubjectTicket, lang: MailLanguage): string {
  const main = headerSafe(ticket.main, 120);
  const issue = headerSafe(issueLabel(ticket.issue, lang), 120);
  return [main, issue].filter(Boolean).join(': ') || (lang === 'en' ? 'Support ticket' : 'Chamado');
}

function ticketIdOf(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new Error('A ticket id is a positive integer');
  return id;
}

// ---- Composition -------------------------------------------------------------------------------

/** A stored file of the message: its id, name, type and size (bytes). */
export interface AttachmentRef {
  id: number;
  name: string;
  type: string;
  size: number;
}

/** A file too large to attach: named in the mail with a link to download it. */
export interface LinkedFile {
  name: string;
  url: string;
  size: number;
}

/** What the mail needs of the ticket (a TicketDoc fits). */
export interface MailTicket extends SubjectTicket {
  email: string;
  createdAt: Date;
}

/** What both mails take. */
export interface MailCommon {
  ticket: MailTicket;
  desk: MailDesk;
  /** The ticket's reply token (mail-ids.ts newReplyToken, kept on the ticket). */
  token: string;
  /** This mail's own Message-ID (mail-ids.ts messageIdOf; 0 as the message for an acknowledgement). */
  messageId: string;
  /**
   * The thread's earlier Message-IDs, oldest first: ours (the acknowledgement's, earlier replies')
   * and the requester's mails. Ids that are not msg-ids are dropped; References keeps the first
   * and the newest, REFERENCES_MAX in all.
   */
  thread: readonly string[];
  /** The mail this one answers: the requester's last inbound Message-ID if any, else our last; absent: the thread's last. */
  inReplyTo?: string | null;
  language: MailLanguage;
}

export interface ReplyInput extends MailCommon {
  /** The staff message (a MessageDoc fits). `remetenteNome`: the staff member's display name, if any (never their address). */
  message: { _id: number; conteudo: string; remetenteNome?: string | null };
  /** The message's files, in the order they are shown. */
  attachments?: readonly AttachmentRef[];
  /** Files attached in order while their running total stays within this; the rest are linked (config support.mail.attachMaxBytes). */
  attachMaxBytes: number;
  /** The download link of a file too large to attach: a function of its id, or a map by id. */
  linkOf?: ((id: number) => string) | ReadonlyMap<number, string>;
}

export type AcknowledgementInput = MailCommon;

export interface ComposedMail {
  from: { name: string; address: string };
  /** The ticket's reply address (local+token@domain). */
  replyTo: string;
  to: string;
  subject: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  /** More headers; every value free of CR and LF. */
  headers: Record<string, string>;
  text: string;
  html: string;
  /** Files to attach, in order. */
  attach: AttachmentRef[];
  /** Files linked instead (too large together with the attached ones). */
  linked: LinkedFile[];
}

/** References holds at most this many ids: the thread's first and the newest (RFC 5322 §3.6.4 lets a long list be trimmed). */
export const REFERENCES_MAX = 20;

/** In-Reply-To and References from the thread's ids (each checked), the mail's own id excluded. */
export function threadHeaders(own: string, thread: readonly string[], inReplyTo?: string | null): { inReplyTo: string | null; references: string[] } {
  const seen = new Set<string>([own]);
  const ids: string[] = [];
  for (const raw of thread.slice(-1_000)) {
    const id = messageIdOrNull(raw);
    if (id && !seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  const parent = inReplyTo === undefined ? (ids.at(-1) ?? null) : messageIdOrNull(inReplyTo);
  if (parent && parent !== own) {
    // The parent goes last: References is the parent's References followed by the parent (RFC 5322 §3.6.4).
    const at = ids.indexOf(parent);
    if (at >= 0) ids.splice(at, 1);
    ids.push(parent);
  }
  const references = ids.length <= REFERENCES_MAX ? ids : [ids[0]!, ...ids.slice(-(REFERENCES_MAX - 1))];
  return { inReplyTo: parent && parent !== own ? parent : null, references };
}

/** Header, address and threading fields shared by both mails. */
function envelopeOf(input: MailCommon, fromName: string, reply: (answers: boolean) => boolean) {
  const desk = deskParts(input.desk);
  const messageId = messageIdOrNull(input.messageId);
  if (!messageId) throw new Error("The mail's own Message-ID is not a msg-id");
  const thread = threadHeaders(messageId, input.thread, input.inReplyTo);
  return {
    from: { name: headerSafe(fromName, 120).replace(/["<>\\]/g, '') || 'Support', address: `${desk.local}@${desk.domain}` },
    replyTo: replyAddressOf(input.desk, input.token),
    to: plainRecipient(input.ticket.email),
    subject: subjectOf(input.ticket, input.language, reply(thread.inReplyTo !== null)),
    messageId,
    ...thread,
  };
}

const TEXTS = {
  pt: {
    ticket: (id: number) => `Chamado #${id}`,
    replyHere: (id: number) => `Para responder, basta responder a este e-mail: sua resposta chega ao chamado #${id}.`,
    linked: 'Arquivos grandes demais para irem anexados; baixe-os pelos links:',
    ackGreeting: 'Olá,',
    ackBody: (id: number) => `Recebemos seu chamado #${id}. Nossa equipe vai respondê-lo por e-mail, neste mesmo assunto.`,
    ackMore: 'Para acrescentar informações ou arquivos, responda a este e-mail: sua resposta chega ao chamado.',
    ackAuto: 'Esta é uma confirmação automática.',
    htmlLang: 'pt-BR',
    decimal: ',',
  },
  en: {
    ticket: (id: number) => `Ticket #${id}`,
    replyHere: (id: number) => `To answer, just reply to this e-mail: your reply reaches ticket #${id}.`,
    linked: 'Files too large to be attached; download them from these links:',
    ackGreeting: 'Hello,',
    ackBody: (id: number) => `We received your ticket #${id}. Our team will answer it by e-mail, in this same thread.`,
    ackMore: 'To add information or files, reply to this e-mail: your reply reaches the ticket.',
    ackAuto: 'This is an automatic confirmation.',
    htmlLang: 'en',
    decimal: '.',
  },
} as const;

/** A size for people: bytes, KB or MB (1024-based), with the language's decimal mark. */
export function sizeLabel(bytes: number, lang: MailLanguage): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace('.', TEXTS[lang].decimal)} MB`;
}


/** Control characters other than tab and line breaks removed, line breaks made LF. */
// eslint-disable-next-line no-control-regex -- control characters are what is removed
const BODY_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const bodyText = (text: string): string => text.replace(/\r\n?/g, '\n').replace(BODY_CONTROLS, '').trim();

/** Paragraphs (split at blank lines) of lines. */
function paragraphsOf(text: string): string[][] {
  const paragraphs: string[][] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current.length) paragraphs.push(current);
      current = [];
    } else current.push(line.trimEnd());
  }
  if (current.length) paragraphs.push(current);
  return paragraphs;
}

/** Text as HTML paragraphs: each escaped, `<br>` between its lines. */
const htmlParagraphs = (text: string): string =>
  paragraphsOf(text)
    .map((lines) => `<p>${lines.map(escapeHtml).join('<br>\n')}</p>`)
    .join('\n');

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const HTTP_URL = /^https?:\/\/[^\s"'<>\\\u0000-\u001f\u007f]{1,2000}$/i;

function htmlDocument(lang: MailLanguage, subject: string, body: string, footer: string[]): string {
  return [
    '<!doctype html>',
    `<html lang="${TEXTS[lang].htmlLang}">`,
    `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>`,
    '<body>',
    body,
    '<hr>',
    `<p style="color:#555555;font-size:13px">${footer.map(escapeHtml).join('<br>\n')}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Which files go attached and which are linked: in order, attached while the running total stays
 * within `maxBytes`; from the first that does not fit on, every file is linked (the order the
 * staff gave is kept: no later, smaller file jumps ahead).
 */
export function splitAttachments(files: readonly AttachmentRef[], maxBytes: number): { attach: AttachmentRef[]; link: AttachmentRef[] } {
  const attach: AttachmentRef[] = [];
  const link: AttachmentRef[] = [];
  let total = 0;
  for (const file of files) {
    if (link.length === 0 && total + file.size <= maxBytes) {
      attach.push(file);
      total += file.size;
    } else link.push(file);
  }
  return { attach, link };
}

/** A file's name as the mail shows it (no control characters, at most 255 characters). */
const fileName = (name: string): string => headerSafe(name, 255) || 'arquivo';

/** A staff reply mailed to the requester. See the file's comment. */
export function composeReply(input: ReplyInput): ComposedMail {
  const lang = input.language;
  const t = TEXTS[lang];
  const id = ticketIdOf(input.ticket._id);
  const senderName = input.message.remetenteNome ? headerSafe(input.message.remetenteNome, 60).replace(/["<>\\]/g, '') : '';
  // A staff reply is always a reply (Re:), even the first mail of a ticket opened by the API.
  const envelope = envelopeOf(input, senderName ? `${senderName} (${input.desk.name})` : input.desk.name, () => true);
  const subject = envelope.subject;

  const { attach, link } = splitAttachments(
    (input.attachments ?? []).map((a) => ({ ...a, name: fileName(a.name) })),
    input.attachMaxBytes,
  );
  const linked: LinkedFile[] = link.map((a) => {
    const url = typeof input.linkOf === 'function' ? input.linkOf(a.id) : input.linkOf?.get(a.id);
    if (!url || !HTTP_URL.test(url)) throw new Error(`No http(s) download link for attachment ${a.id}`);
    return { name: a.name, url, size: a.size };
  });

  const content = bodyText(input.message.conteudo);
  const footer = [senderName ? `${senderName}, ${headerSafe(input.desk.name, 120)}` : headerSafe(input.desk.name, 120), `${t.ticket(id)} · ${aboutOf(input.ticket, lang)}`, t.replyHere(id)];
  const linkedText = linked.length ? ['', t.linked, ...linked.map((f) => `- ${f.name} (${sizeLabel(f.size, lang)}): ${f.url}`)] : [];
  const text = [content, ...linkedText, '', '-- ', ...footer, ''].join('\n');

  const linkedHtml = linked.length
    ? `\n<p>${escapeHtml(t.linked)}</p>\n<ul>\n${linked.map((f) => `<li><a href="${escapeHtml(f.url)}">${escapeHtml(f.name)}</a> (${escapeHtml(sizeLabel(f.size, lang))})</li>`).join('\n')}\n</ul>`
    : '';
  const html = htmlDocument(lang, subject, htmlParagraphs(content) + linkedHtml, footer);

  return { ...envelope, headers: { 'X-Loop': envelope.from.address }, text, html, attach, linked };
}

/**
 * A new ticket's acknowledgement: its number and subject, and that a reply to it reaches the
 * ticket. An automatic reply by RFC 3834 (`Auto-Submitted: auto-replied`; Exchange's
 * `X-Auto-Response-Suppress: All` asks the requester's server not to answer it automatically in
 * turn). It repeats nothing the requester wrote beyond the subject (`main`, the issue): the desk is
 * not a way to mail arbitrary text to whatever address a ticket was opened with.
 */
export function composeAcknowledgement(input: AcknowledgementInput): ComposedMail {
  const lang = input.language;
  const t = TEXTS[lang];
  const id = ticketIdOf(input.ticket._id);
  // Re: only when it answers a mail (a ticket opened by e-mail); else it starts the thread.
  const envelope = envelopeOf(input, input.desk.name, (answers) => answers);
  const subject = envelope.subject;
  const footer = [headerSafe(input.desk.name, 120), `${t.ticket(id)} · ${aboutOf(input.ticket, lang)}`, t.replyHere(id)];
  const body = [t.ackGreeting, '', t.ackBody(id), '', t.ackMore, '', t.ackAuto];
  const text = [...body, '', '-- ', ...footer, ''].join('\n');
  const html = htmlDocument(lang, subject, htmlParagraphs(body.join('\n')), footer);
  return {
    ...envelope,
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All', 'X-Loop': envelope.from.address },
    text,
    html,
    attach: [],
    linked: [],
  };
}
