/**
 * Activities of the support mail (issue 39): the use cases are operations/support/mail-delivery.ts.
 * The worker builds the repositories, the mailer (one pool of SMTP connections) and the file links
 * once; an activity keeps what is Temporal's: DEPENDENCY_UNAVAILABLE (the SMTP server out of reach
 * or answering 4xx, MinIO or the database down) is retried by the workflow's policy, anything else
 * too (a bug fixed by a deploy), and the relay runs through the worker's own Temporal client.
 */
import { Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createMailer, type Mailer } from '../models/infra/mail';
import { storageCall, type Storage } from '../models/infra/storage';
import { createAttachmentRepo } from '../models/support/catalog.repo';
import { signFileLink } from '../models/support/file-links';
import { createMailRepo } from '../models/support/mail.repo';
import { createTicketRepo } from '../models/support/ticket.repo';
import { deliverMail, forwardQueuedMail, giveUpMail, type MailDeliveryDeps } from '../operations/support/mail-delivery';
import type { SupportMailRelayActivities } from '../workflows/relay';
import type { SupportMailActivities } from '../workflows/support/activities';
import { withAttempt } from './attempt';

export interface SupportMailActivityDeps {
  conn: Connection;
  storage: Storage;
  config: Pick<Config, 'support' | 'mail' | 'devServices' | 'http'>;
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
