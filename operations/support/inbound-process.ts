/**
 * Support by e-mail (issue 39), processing a requester's mail the receiver stored
 * (operations/support/inbound-mail.ts): the workflow's one step (workflows/support/inbound.workflow.ts).
 *
 * The raw message is read back from MinIO (never more than the size recorded), parsed (postal-mime)
 * and authenticated (mailauth: SPF for the client's IP and MAIL FROM, DKIM, DMARC for the From
 * domain); then:
 * - a delivery-status notification (RFC 3464) about a mail of ours (its Message-ID verifies) marks
 *   the hard-bounced recipients bouncing and the bounced delivery `bounced`; nothing else;
 * - any other mail joins a ticket by the first of `threadCandidates` that holds: a reply address's
 *   token, a Message-ID of ours, or the subject's `[#n]` ONLY when From is the ticket's requester
 *   and DMARC passed (never From alone); deleted tickets are skipped; else a new ticket is opened,
 *   acknowledged unless the mail is automated or failed DMARC (no backscatter to a spoofed From);
 * - the message is stored with its visible text (the quote stripped; the raw object's key kept on
 *   it), its authentication, a DMARC failure flagged; the files the rules accept are stored and
 *   recorded with the message's id, the refused ones listed on it with why;
 * - a person's mail (not automated, not failing DMARC) from an address marked bouncing clears it.
 * The record is settled `processed` (ticket, message, how it was threaded) or `failed` (with why:
 * the object is missing, the message cannot be parsed, it has no sender).
 *
 * Idempotent: a settled record answers its result; the ticket opened by a mail is keyed by its
 * sender and Message-ID (else the record's id), its message by the ticket and the Message-ID
 * (dedupeKey `email:<ticket>:<id>`); a file is
 * stored under a key derived from the record and its index, and recorded once. A retry after a
 * crash at any point completes what was left and adds nothing twice.
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import PostalMime from 'postal-mime';
import { AppError } from '../../models/errors';
import type { Logger } from '../../models/infra/logger';
import { keySafeName } from '../../models/support/attachment.rules';
import type { AttachmentRepo } from '../../models/support/catalog.repo';
import type { InboundMailDoc, InboundMailRepo } from '../../models/support/inbound-mail.repo';
import { ourMessageId } from '../../models/support/mail-ids';
import { attachmentVerdicts, automatedReason, bounceOf, complaintOf, threadCandidates, visibleReply, type ThreadCandidate } from '../../models/support/mail-in.rules';
import { messageIdOrNull } from '../../models/support/mail-out.rules';
import { receivedClient, UNKNOWN_CLIENT } from '../../models/support/mailgun';
import type { MailRepo } from '../../models/support/mail.repo';
import type { EmailAuth, MessageDoc, RefusedFile, TicketDoc } from '../../models/support/support.model';
import type { TicketRepo } from '../../models/support/ticket.repo';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { supportInboundMailWorkflow } from '../../workflows/support/inbound.workflow';
import type { MailOutbox } from './mail-delivery';

/** How a mail authenticated: what mailauth said of SPF, DKIM (the best signature) and DMARC. */
export type MailAuthentication = EmailAuth;

/** The mailauth call (a port: tests give it a resolver over a small fake zone). */
export type Authenticate = (raw: Buffer, client: { ip: string; helo: string; sender: string }) => Promise<MailAuthentication>;

export interface InboundProcessDeps {
  inbound: Pick<InboundMailRepo, 'get' | 'settle'>;
  /** The raw message's bytes, at most `maxBytes` (more is an error); null when the object is missing. */
  raw: { read(key: string, maxBytes: number): Promise<Buffer | null> };
  /** Stores one accepted file's bytes under `key`. */
  files: { put(key: string, bytes: Buffer, type: string): Promise<void> };
  tickets: Pick<TicketRepo, 'findById' | 'create' | 'addMessage'>;
  attachments: Pick<AttachmentRepo, 'create' | 'forMessage'>;
  mail: Pick<MailRepo, 'ticketByMailToken' | 'markBounced' | 'markBouncing' | 'clearBouncing'>;
  outbox: MailOutbox;
  authenticate: Authenticate;
  desk: { address: string; secret: string };
  /**
   * Bounces and complaints about readers' mail (alerts, digests: operations/news/reader-mail-feedback),
   * which returns to the same mailbox: each answers null when the Message-ID is not a reader mail's.
   */
  readerMail?: {
    bounced(originalMessageId: string, recipients: { address: string; status: string; diagnostic: string; hard: boolean }[]): Promise<{ mailId: string; suppressed: string[] } | null>;
    complained(originalMessageId: string, feedbackType: string): Promise<{ mailId: string; suppressed: string[] } | null>;
  };
  /** Whether the client that handed a mail over is an MTA of ours (SUPPORT_MAIL_TRUSTED_RELAYS): SPF is then checked for the client its Received header names. */
  trustedRelay?: (address: string) => boolean;
  logger?: Pick<Logger, 'info' | 'warn'>;
  now: () => Date;
}

export type ThreadedBy = ThreadCandidate['by'];

export type InboundResult =
  | { state: 'processed'; kind: 'message'; ticketId: number; messageId: number; threadedBy: ThreadedBy; acknowledged: boolean; automated: string | null; dmarc: string; refusedFiles: number }
  | { state: 'processed'; kind: 'bounce'; bounced: { ticketId: number; messageId: number } | null; bouncing: string[]; ignored: string | null; readerMail?: string }
  | { state: 'processed'; kind: 'complaint'; readerMail: string | null; suppressed: string[]; ignored: string | null }
  | { state: 'failed'; reason: string };

/** Who may bring a new ticket's content: the ticket's main category and issue for mail. */
export const EMAIL_TICKET = { main: 'E-mail', issue: 'Outro' } as const;
/** A message's text when the mail had none (an empty body, only files). */
const NO_TEXT = '(mensagem sem texto)';
/** A message's text at most (the API's TEXT_MAX), and a new ticket's description (the API's 10,000): the whole mail stays in MinIO. */
const CONTENT_MAX = 20_000;
const DESCRIPTION_MAX = 10_000;

const addressOf = (value: string | undefined | null): string => (value ?? '').trim().replace(/^<|>$/g, '').toLowerCase();

/** A stored file's key: the ticket's folder and day, then the record and the file's index (the same key on a retry). */
export function inboundFileKey(ticketId: number, at: Date, recordId: string, index: number, filename: string): string {
  return `tickets/${ticketId}/${at.toISOString().slice(0, 10)}/${recordId}-${index}-${keySafeName(filename)}`;
}

/** Processes one stored mail; see the file's comment. Throws (to be retried) only when a dependency is out of reach. */
export async function processInboundMail(deps: InboundProcessDeps, id: string): Promise<InboundResult> {
  const record = await deps.inbound.get(id);
  if (!record) return { state: 'failed', reason: `no inbound mail ${id}` };
  if (record.state === 'processed' || record.state === 'failed') return (record.result ?? { state: record.state, reason: 'settled earlier' }) as InboundResult;

  const fail = async (reason: string): Promise<InboundResult> => {
    const result: InboundResult = { state: 'failed', reason };
    await deps.inbound.settle(id, 'failed', result, deps.now());
    deps.logger?.warn({ id, reason }, 'inbound mail failed');
    return result;
  };
  const done = async (result: InboundResult): Promise<InboundResult> => {
    await deps.inbound.settle(id, 'processed', result as unknown as Record<string, unknown>, deps.now());
    return result;
  };

  let raw: Buffer | null;
  try {
    raw = await deps.raw.read(record.objectKey, record.size);
  } catch (err) {
    if (err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE') throw err;
    return await fail(`the raw message could not be read: ${(err as Error).message}`);
  }
  if (!raw) return await fail(`the raw message is missing (${record.objectKey})`);

  let email: PostalMime.Email;
  try {
    email = await PostalMime.parse(raw);
  } catch (err) {
    return await fail(`the message cannot be parsed: ${(err as Error).message}`);
  }
  // Handed over by an MTA of ours, the client SPF is about is the one that MTA took it from.
  const client = record.via !== 'mailgun' && deps.trustedRelay?.(record.remote.address) ? (receivedClient(raw) ?? UNKNOWN_CLIENT) : record.remote;
  const auth = await deps.authenticate(raw, { ip: client.address, helo: client.helo, sender: record.envelope.mailFrom });
  const domain = deps.desk.address.split('@')[1]!;
  const verify = (mid: string) => ourMessageId(deps.desk.secret, domain, mid);

  const bounce = bounceOf(email);
  if (bounce) return await done(await recordBounce(deps, bounce, verify));
  const complaint = complaintOf(email);
  if (complaint) {
    const about = complaint.originalMessageId ? await deps.readerMail?.complained(complaint.originalMessageId, complaint.feedbackType) : null;
    return await done({ state: 'processed', kind: 'complaint', readerMail: about?.mailId ?? null, suppressed: about?.suppressed ?? [], ignored: about ? null : 'a feedback report about no reader mail of ours' });
  }

  const from = addressOf(email.from?.address) || addressOf(record.envelope.mailFrom);
  if (!from || !from.includes('@')) return await fail('the message has no sender address');
  const automated = automatedReason(email, deps.desk);
  const dmarcFailed = auth.dmarc === 'fail';
  const mailId = messageIdOrNull(email.messageId);
  // A mail received twice (a sender that retried after a lost 250) is one mail: keyed by its
  // Message-ID, scoped by its sender for the ticket it opens and by the ticket for its message, so
  // no mail can take the place of another sender's, or of one sent to another ticket.
  const mailKey = mailId ?? `record:${record._id}`;
  const visible = visibleReply(email);
  const subject = (email.subject ?? '').trim();
  const content = (visible.text || subject || NO_TEXT).slice(0, CONTENT_MAX);

  // Which ticket: the first candidate that holds (threadCandidates' comment).
  let ticket: TicketDoc | null = null;
  let threadedBy: ThreadedBy = 'new';
  for (const c of threadCandidates({ recipients: record.envelope.rcptTo, inReplyTo: email.inReplyTo ?? null, references: email.references ?? null, subject }, deps.desk, verify)) {
    if (c.by === 'new') break;
    const found = c.by === 'token' ? await deps.mail.ticketByMailToken(c.token) : await deps.tickets.findById(c.ticketId);
    if (!found || found.deletedAt || found.status === 'deleted') continue;
    if (c.by === 'subject' && !(addressOf(found.email) === from && auth.dmarc === 'pass')) continue;
    ticket = found;
    threadedBy = c.by;
    break;
  }
  const noAck = automated ? `automated mail (${automated})` : dmarcFailed ? 'the mail failed DMARC: its sender may be forged' : undefined;
  let opened = false;
  if (!ticket) {
    ticket = await deps.tickets.create({ ...EMAIL_TICKET, description: (subject || content).slice(0, DESCRIPTION_MAX), email: from, wantReply: true, canal: 'email', noAcknowledgement: noAck }, from, `email:${from}:${mailKey}`);
    opened = true;
  }

  const verdicts = await attachmentVerdicts(email.attachments ?? []);
  const refused: RefusedFile[] = verdicts.flatMap((v) => (v.accepted ? [] : [{ nome: v.filename, tipo: v.declaredType, tamanho: v.size, motivo: v.reason, detalhe: v.detail }]));
  const { message } = await deps.tickets.addMessage(ticket, {
    conteudo: content,
    remetente: from,
    origem: 'usuario',
    canal: 'email',
    dedupeKey: `email:${ticket._id}:${mailKey}`,
    automated: automated !== null,
    ...(mailId ? { emailMessageId: mailId } : {}),
    email: { emailRaw: record.objectKey, emailAuth: auth, ...(dmarcFailed ? { dmarcFalhou: true } : {}), ...(refused.length ? { arquivosRecusados: refused } : {}) },
  });
  await storeFiles(deps, record, ticket, message, email, verdicts);

  if (!automated && !dmarcFailed) await deps.mail.clearBouncing(from, deps.now());
  // The acknowledgement was queued in the ticket's own write (or marked not sent): start its mail.
  const acknowledged = opened && !noAck;
  if (acknowledged) await deps.outbox.queue({ ticketId: ticket._id, messageId: 0 });
  deps.logger?.info({ id, ticketId: ticket._id, messageId: message._id, threadedBy, automated, dmarc: auth.dmarc }, 'inbound mail processed');
  return await done({ state: 'processed', kind: 'message', ticketId: ticket._id, messageId: message._id, threadedBy, acknowledged, automated, dmarc: auth.dmarc, refusedFiles: refused.length });
}

/** A DSN: only about a mail of ours (its Message-ID verifies), else ignored; hard bounces mark their addresses. */
async function recordBounce(deps: InboundProcessDeps, bounce: NonNullable<ReturnType<typeof bounceOf>>, verify: (id: string) => unknown): Promise<InboundResult> {
  const original = bounce.originalMessageId;
  if (original && !verify(original)) {
    const reader = await deps.readerMail?.bounced(original, bounce.recipients);
    if (reader) return { state: 'processed', kind: 'bounce', bounced: null, bouncing: reader.suppressed, ignored: reader.suppressed.length ? null : 'no recipient failed for good', readerMail: reader.mailId };
  }
  if (!original || !verify(original)) return { state: 'processed', kind: 'bounce', bounced: null, bouncing: [], ignored: 'a delivery-status notification about no mail of ours' };
  const now = deps.now();
  const hard = bounce.recipients.filter((r) => r.hard);
  for (const r of hard) await deps.mail.markBouncing(r.address, `${r.status} ${r.diagnostic}`.trim().slice(0, 1_000), now);
  const reason = hard.map((r) => `${r.address}: ${r.status} ${r.diagnostic}`.trim()).join('; ').slice(0, 1_000);
  const bounced = hard.length ? ((await deps.mail.markBounced(original, reason, now)) ?? null) : null;
  return { state: 'processed', kind: 'bounce', bounced, bouncing: hard.map((r) => r.address), ignored: hard.length ? null : 'no recipient failed for good' };
}

/** Stores and records the accepted files (each once, under a key a retry finds again). */
async function storeFiles(deps: InboundProcessDeps, record: InboundMailDoc, ticket: TicketDoc, message: MessageDoc, email: PostalMime.Email, verdicts: Awaited<ReturnType<typeof attachmentVerdicts>>): Promise<void> {
  const accepted = verdicts.filter((v) => v.accepted);
  if (!accepted.length) return;
  const existing = new Set((await deps.attachments.forMessage(ticket._id, message._id)).map((a) => a.caminhoArquivo));
  for (const v of accepted) {
    const key = inboundFileKey(ticket._id, record.receivedAt, record._id, v.index, v.filename);
    if (existing.has(key)) continue;
    const a = email.attachments[v.index]!;
    const bytes = typeof a.content === 'string' ? Buffer.from(a.content, a.encoding === 'base64' ? 'base64' : 'utf8') : a.content instanceof ArrayBuffer ? Buffer.from(a.content) : Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
    await deps.files.put(key, bytes, v.type);
    await deps.attachments.create({ supportId: ticket._id, mensagemId: message._id, nomeArquivo: v.filename, caminhoArquivo: key, tipoArquivo: v.type, tamanhoArquivo: bytes.length, uploadedBy: addressOf(message.remetente), createdAt: deps.now() });
  }
}

/** Every attempt failed (the workflow's retries are spent): the record is failed, with why. */
export async function giveUpInboundMail(deps: Pick<InboundProcessDeps, 'inbound' | 'now'>, id: string, reason: string): Promise<void> {
  await deps.inbound.settle(id, 'failed', { state: 'failed', reason: reason.slice(0, 1_000) }, deps.now());
}

export interface InboundHandOverDeps {
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
  inbound: Pick<InboundMailRepo, 'markHandedOver'>;
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * The receiver's hand-over: starts the mail's processing workflow (its id is the record's: a second
 * start is the run already there), then marks the record handed over. A start that fails throws:
 * the receiver logs it and the record stays `stored` for the relay.
 */
export async function handOverInboundMail(deps: InboundHandOverDeps, id: string): Promise<'started' | 'running'> {
  let outcome: 'started' | 'running' = 'started';
  try {
    await deps.temporal.client.workflow.start(supportInboundMailWorkflow, {
      workflowId: workflowIds.supportInbound(id),
      taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.supportMail),
      args: [{ id }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    outcome = 'running';
  }
  await deps.inbound.markHandedOver(id, deps.now());
  return outcome;
}

/** The inbound relay's step: hands over each record still `stored` received before `olderThanMs` ago. */
export async function forwardStoredMail(deps: Omit<InboundHandOverDeps, 'inbound'> & { inbound: Pick<InboundMailRepo, 'markHandedOver' | 'pendingHandOver'> }, input: { olderThanMs: number; limit: number }, signal?: AbortSignal): Promise<{ forwarded: number }> {
  const pending = await deps.inbound.pendingHandOver(new Date(deps.now().getTime() - input.olderThanMs), input.limit);
  let forwarded = 0;
  for (const record of pending) {
    if (signal?.aborted) break;
    try {
      if ((await handOverInboundMail(deps, record._id)) === 'started') forwarded++;
    } catch (err) {
      deps.logger?.warn({ id: record._id, err: (err as Error).message }, 'inbound mail not handed over: the next relay run will');
      throw err;
    }
  }
  return { forwarded };
}
