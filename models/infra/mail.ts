/**
 * The product's mail (sign-in codes…) through an SMTP server: SMTP_URL, or the Mailpit that
 * `npm start` and `npm test` run. Pooled connections, with bounded waits for the connection, the
 * server's greeting and each reply.
 *
 * A server that cannot be reached or cannot take mail now (refused, timed out, TLS or login failed,
 * a temporary 4xx reply) is DEPENDENCY_UNAVAILABLE naming mail (503, retry later). Mail carries
 * sign-in codes: nothing here logs a message, and a failure keeps only nodemailer's code and the
 * server's reply, never the message or the connection's credentials.
 */
import nodemailer, { type NodemailerError, type SMTPPoolOptions } from 'nodemailer';
import { smtpUrl, type Config } from '../config';
import { dependencyUnavailable } from '../errors';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text`. */
  html?: string | undefined;
  /** The sender, when not MAIL_FROM (the support desk's replies, issue 39): an address, or a name and <address>. */
  from?: string | { name: string; address: string };
  replyTo?: string;
  /** Its own Message-ID (`<…@…>`); nodemailer makes one when absent. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /** More headers (Auto-Submitted, X-Auto-Response-Suppress…). Values must hold no CR or LF. */
  headers?: Record<string, string>;
  /** Attached files, read as they are sent (a stream is never held whole). */
  attachments?: { filename: string; contentType: string; content: NodeJS.ReadableStream | Buffer }[];
  /** The return path (SMTP MAIL FROM): where bounces go, when not the From (readers' mail: our inbound mailbox). */
  envelopeFrom?: string;
}

/** What the SMTP server answered to an accepted message. */
export interface SentMail {
  /** Its final reply ("250 2.0.0 Ok: queued as …"). */
  response: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail | void>;
  /** Closes the pooled connections (a message being sent finishes first). */
  close(): void;
}

export interface MailerTimeouts {
  /** Connecting to the server (TCP, and TLS for smtps://). */
  connectionMs?: number;
  /** The server's greeting once connected. */
  greetingMs?: number;
  /** Silence on an open connection (a reply that never comes). */
  socketMs?: number;
}

const DEFAULT_TIMEOUTS: Required<MailerTimeouts> = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 30_000 };

/** The pooled transport's options for an smtp:// (STARTTLS when offered) or smtps:// (TLS) URL. */
export function smtpOptions(url: string, timeouts: MailerTimeouts = {}): SMTPPoolOptions & { pool: true } {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  return {
    pool: true,
    maxConnections: 3,
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    // Without a port nodemailer takes 465 for smtps:// and 587 (submission) for smtp://.
    ...(u.port ? { port: Number(u.port) } : {}),
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: t.connectionMs,
    greetingTimeout: t.greetingMs,
    socketTimeout: t.socketMs,
    // Never log (messages hold sign-in codes); messages never read files or URLs into themselves.
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** Failures that mean the server is out of reach or cannot take mail now, rather than this message refused. */
const UNAVAILABLE_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'EPROXY',
  'EPROTOCOL',
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'EMAXLIMIT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * A send's failure as the product sees it: DEPENDENCY_UNAVAILABLE naming mail when the server is out
 * of reach or answered with a temporary (4xx) reply; otherwise an Error saying the server refused the
 * message. Either way the cause is rebuilt from the code and the server's reply only.
 */
export function mailFailure(err: unknown): Error {
  const e = (err ?? {}) as NodemailerError;
  const code = e.code ?? e.originalCode;
  const reply = e.responseCode === undefined ? '' : ` ${e.responseCode}`;
  const cause = new Error(`SMTP ${code ?? 'error'}${reply}${e.timeoutType ? ` (${e.timeoutType})` : ''}: ${e.response ?? e.message ?? String(err)}`);
  const temporary = e.responseCode !== undefined && (e.permanent === false || (e.responseCode >= 400 && e.responseCode < 500));
  if ((code !== undefined && UNAVAILABLE_CODES.has(code)) || temporary) return dependencyUnavailable('mail', cause);
  return new Error(`the mail server refused the message: ${cause.message}`, { cause });
}

/**
 * Headers of printable ASCII go as written: nodemailer would otherwise MIME-encode a value with
 * quotes or angle brackets (List-Id's `"name" <id>`), which readers of those headers do not decode.
 * Anything else (non-ASCII) is left to nodemailer's encoding.
 */
function asWritten(headers: Record<string, string>): Record<string, string | { prepared: true; value: string }> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, /^[\x20-\x7e]{0,900}$/.test(value) ? { prepared: true as const, value } : value]));
}

/** The mailer of a process: one pool of SMTP connections to SMTP_URL (or the dev Mailpit), sending as MAIL_FROM. */
export function createMailer(config: Pick<Config, 'mail' | 'devServices'>, timeouts: MailerTimeouts = {}): Mailer {
  const transport = nodemailer.createTransport(smtpOptions(smtpUrl(config), timeouts), { from: config.mail.from });
  return {
    async send({ to, subject, text, html, from, replyTo, messageId, inReplyTo, references, headers, attachments, envelopeFrom }) {
      try {
        const info = await transport.sendMail({
          to,
          subject,
          text,
          ...(html === undefined ? {} : { html }),
          ...(from === undefined ? {} : { from }),
          ...(replyTo === undefined ? {} : { replyTo }),
          ...(messageId === undefined ? {} : { messageId }),
          ...(inReplyTo === undefined ? {} : { inReplyTo }),
          ...(references?.length ? { references } : {}),
          ...(headers === undefined ? {} : { headers: asWritten(headers) }),
          // The return path (SMTP MAIL FROM), where servers send bounces; the From otherwise.
          ...(envelopeFrom === undefined ? {} : { envelope: { from: envelopeFrom, to } }),
          ...(attachments?.length ? { attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content as Buffer })) } : {}),
        });
        return { response: String(info.response ?? '') };
      } catch (err) {
        throw mailFailure(err);
      }
    },
    close() {
      transport.close();
    },
  };
}
