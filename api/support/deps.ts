/** What the support service's routes use, built once per process. */
import { createListTotals } from '../../models/infra/list-totals';
import { createAttachmentRepo, createQuickReplyRepo, createTagRepo, type AttachmentRepo, type QuickReplyRepo, type TagRepo } from '../../models/support/catalog.repo';
import { createBulkRepo, type BulkRepo } from '../../models/support/bulk.repo';
import { createTicketRepo, type TicketRepo } from '../../models/support/ticket.repo';
import { createReportRepo, type ReportRepo } from '../../models/support/report.repo';
import { createReportCache, type ReportCache } from '../../models/support/report-cache.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { createStaffRepo } from '../../models/staff/staff.repo';
import { permissionsOf } from '../../models/staff/staff.rules';
import { SUPPORT_AGENT } from '../../models/support/ticket.rules';
import { windowLimiter } from '../shared/bundles';
import type { Infra } from '../shared/infra';
import type { Limiter } from '../shared/rate-limit';
import { makeLiveDeps, type LiveDeps } from './live.deps';
import { mailOutboxOf, type MailOutbox } from '../../operations/support/mail-delivery';
import { createInboundMailRepo } from '../../models/support/inbound-mail.repo';
import { createMailgunTokenRepo } from '../../models/support/mailgun-token.repo';
import { handOverInboundMail } from '../../operations/support/inbound-process';
import type { MailgunMailDeps } from '../../operations/support/inbound-mailgun';

export interface SupportDeps extends Infra {
  tickets: TicketRepo;
  tags: TagRepo;
  attachments: AttachmentRepo;
  quickReplies: QuickReplyRepo;
  bulk: BulkRepo;
  reports: ReportRepo;
  reportCache: ReportCache;
  /** The clock reports count days by (tests set it). */
  now: () => Date;
  llm: LlmClient;
  /** Who a manager may assign a ticket to: the active staff members holding support.agent. */
  agents: { isAgent(email: string): Promise<boolean> };
  /** Live updates: this process's hub and presence (issue 38). */
  live: LiveDeps;
  /** Starts the mail of stored staff replies and acknowledgements (issue 39). */
  mailOutbox: MailOutbox;
  /**
   * Mailgun's inbound webhook (issue 39): what a message is accepted with (as the SMTP receiver
   * does: MinIO, the inbound record, the hand-over to its processing workflow) and the tokens taken.
   */
  mailgun: MailgunMailDeps;
  /** Every request, per client IP. */
  ipLimiter: Limiter;
  /** Public ticket creation, per client IP. */
  createLimiter: Limiter;
}

export function makeSupportDeps(infra: Infra): SupportDeps {
  const { conn } = infra.mongo;
  const { rateLimitPerMinute, createRateLimitPerMinute } = infra.config.support;
  const inbound = createInboundMailRepo(conn);
  const handOverDeps = { temporal: infra.temporal, taskQueuePrefix: infra.config.temporal.taskQueuePrefix, inbound, now: () => new Date(), logger: infra.logger };
  return {
    ...infra,
    tickets: createTicketRepo(conn, createListTotals({ maxAgeMs: infra.config.lists.totalMaxAgeMs })),
    tags: createTagRepo(conn),
    attachments: createAttachmentRepo(conn),
    quickReplies: createQuickReplyRepo(conn),
    bulk: createBulkRepo(conn),
    reports: createReportRepo(conn),
    reportCache: createReportCache(conn, { ttlMs: infra.config.support.reports.cacheTtlMs }),
    now: () => new Date(),
    llm: createLlmClient(infra.config),
    agents: agentsOf(createStaffRepo(conn)),
    live: makeLiveDeps(infra),
    mailOutbox: mailOutboxOf({ temporal: infra.temporal, taskQueuePrefix: infra.config.temporal.taskQueuePrefix, sendDelayMs: infra.config.support.mail.sendDelayMs, logger: infra.logger }),
    mailgun: {
      // A failed hand-over leaves the record `stored`: the inbound relay hands it over (as for the receiver).
      accept: { inbound, storage: infra.storage, logger: infra.logger, handOver: async (id) => void (await handOverInboundMail(handOverDeps, id)) },
      tokens: createMailgunTokenRepo(conn),
      logger: infra.logger,
    },
    ipLimiter: windowLimiter(infra, {
      name: 'support-ip',
      points: rateLimitPerMinute,
      durationSec: 60,
      message: `Rate limit exceeded: ${rateLimitPerMinute} requests per minute`,
    }),
    createLimiter: windowLimiter(infra, {
      name: 'support-create-ip',
      points: createRateLimitPerMinute,
      durationSec: 60,
      message: `Too many tickets created: ${createRateLimitPerMinute} per minute`,
    }),
  };
}

function agentsOf(staff: Pick<ReturnType<typeof createStaffRepo>, 'findMember'>): SupportDeps['agents'] {
  return {
    async isAgent(email) {
      const member = await staff.findMember(email.toLowerCase());
      return member?.status === 'active' && (permissionsOf(member.roles) as string[]).includes(SUPPORT_AGENT);
    },
  };
}
