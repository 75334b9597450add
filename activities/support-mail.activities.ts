/**
 * Activities of the support mail (issue 39): the use cases are operations/support/mail-delivery.ts.
 * The worker builds the repositories, the mailer (one pool of SMTP connections) and the file links
 * once; an activity keeps what is Temporal's: DEPENDENCY_UNAVAILABLE (the SMTP server out of reach
 * or answering 4xx, MinIO or the database down) is retried by the workflow's policy, anything else
 * too (a bug fixed by a deploy), and the relay runs through the worker's own Temporal client.
 */
import type { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createMailer, type Mailer } from '../models/infra/mail';
import { storageCall, type Storage } from '../models/infra/storage';
import { createAttachmentRepo } from '../models/support/catalog.repo';
import { signFileLink } from '../models/support/file-links';
import { createMailRepo } from '../models/support/mail.repo';
import { createTicketRepo } from '../models/support/ticket.repo';
import { createMailAuthenticator, type MailAuthResolver } from '../models/infra/mail-auth';
import { relayMatcher } from '../models/infra/relays';
import { createInboundMailRepo } from '../models/support/inbound-mail.repo';
import { forwardStoredMail, giveUpInboundMail, processInboundMail, type InboundProcessDeps } from '../operations/support/inbound-process';
import { readerMailBounced, readerMailComplained } from '../operations/news/reader-mail-feedback';
import { createReaderMailRepo } from '../models/news/reader-mail.repo';
import { createPreferencesRepo } from '../models/news/preferences.repo';
import { deliverMail, forwardQueuedMail, giveUpMail, mailOutboxOf, type MailDeliveryDeps, type MailOutbox } from '../operations/support/mail-delivery';
import type { SupportInboundRelayActivities, SupportMailRelayActivities } from '../workflows/relay';
import type { SupportInboundActivities, SupportInboundOutcome, SupportMailActivities } from '../workflows/support/activities';
import { withAttempt } from './attempt';

export interface SupportMailActivityDeps {
  conn: Connection;
  storage: Storage;
  config: Pick<Config, 'support' | 'mail' | 'devServices' | 'http' | 'temporal'>;
  /** The SMTP connections (a test passes its own). */
  mailer?: Mailer;
}

export function deliveryDepsOf(deps: SupportMailActivityDeps): MailDeliveryDeps {
  const desk = deps.config.support.mail;
  const attachments = createAttachmentRepo(deps.conn);
  const supportUrl = deps.config.http.publicUrls.support;
  return {
    mail: createMailRepo(deps.conn),
    tickets: createTicketRepo(deps.conn),
    attachments,
    files: {
      open: (a) => storageCall(() => deps.storage.client.getObject(deps.storage.bucket, a.caminhoArquivo)),
      link: (a) => {
        const { expira, assinatura } = signFileLink(desk.secret, a._id, new Date());
        return `${supportUrl}/support/arquivos/${a._id}?${new URLSearchParams({ expira: String(expira), assinatura })}`;
      },
    },
    mailer: deps.mailer ?? createMailer(deps.config),
    desk: { address: desk.address, name: desk.name, secret: desk.secret, attachMaxBytes: desk.attachMaxBytes },
    now: () => new Date(),
  };
}

export function createSupportMailActivities(deps: SupportMailActivityDeps): SupportMailActivities {
  const delivery = deliveryDepsOf(deps);
  return {
    async deliverMail(input) {
      return await deliverMail(delivery, input);
    },
    async giveUpMail(input) {
      await giveUpMail(delivery, { ticketId: input.ticketId, messageId: input.messageId }, input.reason);
    },
  };
}

export function createSupportMailRelayActivities(deps: { conn: Connection; config: Pick<Config, 'support' | 'temporal'> }): SupportMailRelayActivities {
  const mail = createMailRepo(deps.conn);
  return {
    /** Starts the mail workflows of deliveries still queued (their start after the write was missed). */
    async forwardQueuedMail(input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
      return await withAttempt(({ signal }) =>
        forwardQueuedMail({ temporal: { client: Context.current().client }, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, sendDelayMs: 0, mail, now: () => new Date() }, input, signal),
      );
    },
  };
}

/** The processing deps of a requester's mail (operations/support/inbound-process.ts), built once per worker. */
export function inboundDepsOf(deps: SupportMailActivityDeps & { resolver?: MailAuthResolver }, outbox: MailOutbox): InboundProcessDeps {
  const { storage } = deps;
  const desk = deps.config.support.mail;
  return {
    inbound: createInboundMailRepo(deps.conn),
    raw: { read: (key, maxBytes) => readBounded(storage, key, maxBytes) },
    files: { put: async (key, bytes, type) => void (await storageCall(() => storage.client.putObject(storage.bucket, key, bytes, bytes.length, { 'Content-Type': type }))) },
    tickets: createTicketRepo(deps.conn),
    attachments: createAttachmentRepo(deps.conn),
    mail: createMailRepo(deps.conn),
    outbox,
    authenticate: createMailAuthenticator({ ...(deps.resolver ? { resolver: deps.resolver } : {}), mta: desk.address.split('@')[1]! }),
    desk: { address: desk.address, secret: desk.secret },
    trustedRelay: relayMatcher(desk.inbound.trustedRelays),
    readerMail: readerMailFeedbackOf(deps.conn),
    now: () => new Date(),
  };
}

/** Bounces and complaints about readers' mail, which returns to the same mailbox (operations/news/reader-mail-feedback.ts). */
function readerMailFeedbackOf(conn: Connection): NonNullable<InboundProcessDeps['readerMail']> {
  const feedback = { readerMail: createReaderMailRepo(conn), preferences: createPreferencesRepo(conn), now: () => new Date() };
  return {
    bounced: (original, recipients) => readerMailBounced(feedback, original, recipients),
    complained: (original, feedbackType) => readerMailComplained(feedback, original, feedbackType),
  };
}

/** A stored object's bytes, at most `maxBytes` (more is an error: not the message recorded); null when it is missing. */
async function readBounded(storage: Storage, key: string, maxBytes: number): Promise<Buffer | null> {
  let stream: Readable;
  try {
    stream = await storageCall(() => storage.client.getObject(storage.bucket, key));
  } catch (err) {
    if ((err as { code?: string }).code === 'NoSuchKey') return null;
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`the object ${key} is longer than the ${maxBytes} bytes recorded`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export function createSupportInboundActivities(deps: SupportMailActivityDeps & { resolver?: MailAuthResolver }): SupportInboundActivities {
  const base = inboundDepsOf(deps, { queue: async () => undefined });
  const outboxOf = (): MailOutbox => mailOutboxOf({ temporal: { client: Context.current().client }, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, sendDelayMs: 0 });
  return {
    async processInboundMail(input) {
      const ctx = Context.current();
      // Reading, parsing and DNS are bounded but not instant: the heartbeat says the attempt is alive.
      const heartbeat = setInterval(() => ctx.heartbeat(), 10_000);
      try {
        return (await processInboundMail({ ...base, outbox: outboxOf() }, input.id)) as SupportInboundOutcome;
      } finally {
        clearInterval(heartbeat);
      }
    },
    async giveUpInboundMail(input) {
      await giveUpInboundMail(base, input.id, input.reason);
    },
  };
}

export function createSupportInboundRelayActivities(deps: { conn: Connection; config: Pick<Config, 'temporal'> }): SupportInboundRelayActivities {
  const inbound = createInboundMailRepo(deps.conn);
  return {
    /** Hands over the requesters' mail still only stored (the receiver's hand-over was missed). */
    async forwardStoredMail(input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
      return await withAttempt(({ signal }) => forwardStoredMail({ temporal: { client: Context.current().client }, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, inbound, now: () => new Date() }, input, signal));
    },
  };
}
