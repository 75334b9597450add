/**
 * Support by e-mail, outbound (issue 39; docs/decisions.md "Support by e-mail"): a staff message,
 * or a new ticket's acknowledgement, mailed to the ticket's requester.
 *
 * The delivery is queued in the same write as the message (ticket.repo); `queueMail` then starts its
 * workflow (an id per message: a second start is the same run), and the mail relay starts the ones
 * whose start was missed. `deliverMail` is the workflow's one step: it claims the delivery (queued or
 * half-done → sending, one more attempt), builds the mail (its own Message-ID, threaded on the
 * ticket's earlier mails, a reply address that routes back to the ticket, the text and HTML in the
 * ticket's language, the message's files attached up to a size and linked beyond it) and hands it to
 * SMTP. Sent, refused (failed, with the server's reason) and not sent (no reply wanted, the address
 * bounces) end the delivery; a server out of reach or answering 4xx throws DEPENDENCY_UNAVAILABLE and
 * the workflow retries with back-off, the delivery left `sending`.
 *
 * Exactly once as far as SMTP allows: a delivery that has ended is never sent again, and a retry
 * after an attempt that stopped between the server's 250 and our write sends the same Message-ID
 * again (receivers and clients drop a repeated Message-ID).
 */
import type { Readable } from 'node:stream';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AppError } from '../../models/errors';
import type { Logger } from '../../models/infra/logger';
import type { Mailer, MailMessage } from '../../models/infra/mail';
import type { AttachmentDoc, MessageDoc, TicketDoc } from '../../models/support/support.model';
import type { DeliveryTarget, MailRepo } from '../../models/support/mail.repo';
import { messageIdOf, newReplyToken } from '../../models/support/mail-ids';
import { composeAcknowledgement, composeReply, type ComposedMail, type MailLanguage } from '../../models/support/mail-out.rules';
import type { DeliveryState } from '../../models/support/ticket.rules';
import { supportMailWorkflow } from '../../workflows/support/mail.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';

export interface MailDesk {
  address: string;
  name: string;
  secret: string;
  attachMaxBytes: number;
}

export interface MailDeliveryDeps {
  mail: Pick<MailRepo, 'claim' | 'setMailId' | 'finish' | 'mailToken' | 'threadIds' | 'recipient' | 'delivery'>;
  tickets: { findById(id: number): Promise<TicketDoc | null>; message(ticketId: number, messageId: number): Promise<MessageDoc | null> };
  attachments: { forMessage(ticketId: number, messageId: number): Promise<AttachmentDoc[]> };
  /** The stored files: read one, and a link to download one that is too large to attach. */
  files: { open(attachment: AttachmentDoc): Promise<Readable>; link(attachment: AttachmentDoc): string };
  mailer: Pick<Mailer, 'send'>;
  desk: MailDesk;
  now: () => Date;
}

export interface MailOutcome {
  estado: DeliveryState;
  motivo: string | null;
}

/** The ticket's language for its mail: Portuguese, the desk's, unless the ticket says English. */
const languageOf = (ticket: TicketDoc): MailLanguage => (ticket.idioma === 'en' ? 'en' : 'pt');

/** Hands one delivery's mail to SMTP (the workflow's step). See the file's comment. */
export async function deliverMail(deps: MailDeliveryDeps, target: DeliveryTarget): Promise<MailOutcome> {
  const now = deps.now();
  const claimed = await deps.mail.claim(target, now);
  if (!claimed) {
    const ended = await deps.mail.delivery(target);
    return ended ? { estado: ended.estado, motivo: ended.motivo } : { estado: 'not-sent', motivo: 'nothing to deliver' };
  }
  const end = async (estado: 'sent' | 'failed' | 'not-sent', motivo: string | null): Promise<MailOutcome> => {
    await deps.mail.finish(target, estado, motivo, deps.now());
    return { estado, motivo };
  };

  const ticket = await deps.tickets.findById(target.ticketId);
  if (!ticket || ticket.deletedAt) return await end('not-sent', 'the ticket was deleted');
  const recipient = await deps.mail.recipient(ticket.email);
  if (recipient?.bouncing) return await end('not-sent', `the address bounces (since ${recipient.since?.toISOString() ?? 'earlier'}): ${recipient.reason ?? 'a delivery-status notification'}`);
  const message = target.messageId === 0 ? null : await deps.tickets.message(target.ticketId, target.messageId);
  if (target.messageId !== 0 && !message) return await end('not-sent', 'the message no longer exists');

  const token = await deps.mail.mailToken(ticket._id, newReplyToken());
  if (!token) return await end('not-sent', 'the ticket was deleted');
  const domain = deps.desk.address.split('@')[1]!;
  const mailId = claimed.messageId ?? messageIdOf(deps.desk.secret, domain, ticket._id, target.messageId);
  if (!claimed.messageId) await deps.mail.setMailId(target, mailId);
  const thread = await deps.mail.threadIds(ticket._id, message?.createdAt ?? ticket.createdAt);
  const common = { ticket, desk: { address: deps.desk.address, name: deps.desk.name }, token, messageId: mailId, thread: thread.ids, inReplyTo: thread.lastFromRequester ?? thread.ids.at(-1) ?? null, language: languageOf(ticket) };

  let composed: ComposedMail;
  let files: AttachmentDoc[] = [];
  if (message) {
    files = await deps.attachments.forMessage(ticket._id, message._id);
    composed = composeReply({ ...common, message, attachments: files.map((f) => ({ id: f._id, name: f.nomeArquivo, type: f.tipoArquivo, size: f.tamanhoArquivo })), attachMaxBytes: deps.desk.attachMaxBytes, linkOf: (id) => deps.files.link(files.find((f) => f._id === id)!) });
  } else {
    composed = composeAcknowledgement(common);
  }

  const attached = await Promise.all(
    composed.attach.map(async (a) => {
      const file = files.find((f) => f._id === a.id)!;
      return { filename: file.nomeArquivo, contentType: file.tipoArquivo, content: await deps.files.open(file) };
    }),
  );
  const mail: MailMessage = {
    from: composed.from,
    to: composed.to,
    replyTo: composed.replyTo,
    subject: composed.subject,
    messageId: composed.messageId,
    ...(composed.inReplyTo ? { inReplyTo: composed.inReplyTo } : {}),
    references: composed.references,
    headers: composed.headers,
    text: composed.text,
    html: composed.html,
    attachments: attached,
  };
  try {
    await deps.mailer.send(mail);
  } catch (err) {
    // Out of reach, or a 4xx: thrown, so the workflow tries again later (the delivery stays `sending`).
    if (err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE') throw err;
    return await end('failed', (err as Error).message);
  }
  return await end('sent', null);
}

/** Every attempt failed (the workflow's retries are spent): the delivery is failed, with why. */
export async function giveUpMail(deps: Pick<MailDeliveryDeps, 'mail' | 'now'>, target: DeliveryTarget, reason: string): Promise<void> {
  await deps.mail.finish(target, 'failed', reason.slice(0, 1_000), deps.now());
}

export interface MailQueueDeps {
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
  /** How long a staff reply waits before it is sent (config support.mail.sendDelayMs). */
  sendDelayMs: number;
  logger?: Pick<Logger, 'warn'>;
}

/** Starts deliveries' workflows: what the operations that store a staff reply or a ticket are given. */
export interface MailOutbox {
  queue(target: DeliveryTarget): Promise<unknown>;
}

export const mailOutboxOf = (deps: MailQueueDeps): MailOutbox => ({ queue: (target) => queueMail(deps, target) });

/**
 * Starts a delivery's workflow (its id is the delivery's: started twice, it is one run). A start
 * that fails is left to the mail relay (the delivery is queued in the database): nothing is thrown.
 */
export async function queueMail(deps: MailQueueDeps, target: DeliveryTarget): Promise<'started' | 'running' | 'left-to-relay'> {
  try {
    await deps.temporal.client.workflow.start(supportMailWorkflow, {
      workflowId: workflowIds.supportMail(target.ticketId, target.messageId),
      taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.supportMail),
      args: [{ ticketId: target.ticketId, messageId: target.messageId, ...(target.messageId !== 0 && deps.sendDelayMs ? { delayMs: deps.sendDelayMs } : {}) }],
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'running';
    deps.logger?.warn({ err: (err as Error).message, ticketId: target.ticketId, messageId: target.messageId }, 'mail delivery not started: the mail relay will');
    return 'left-to-relay';
  }
}

/** The mail relay's step: starts the workflow of each delivery queued before `olderThanMs` ago. */
export async function forwardQueuedMail(deps: MailQueueDeps & { mail: Pick<MailRepo, 'queued'>; now: () => Date }, input: { olderThanMs: number; limit: number }, signal?: AbortSignal): Promise<{ forwarded: number }> {
  const queued = await deps.mail.queued(new Date(deps.now().getTime() - input.olderThanMs), input.limit);
  let forwarded = 0;
  for (const target of queued) {
    if (signal?.aborted) break;
    if ((await queueMail(deps, target)) === 'started') forwarded++;
  }
  return { forwarded };
}
