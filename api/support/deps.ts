/** What the support service's routes use, built once per process. */
import { createAttachmentRepo, createQuickReplyRepo, createTagRepo, type AttachmentRepo, type QuickReplyRepo, type TagRepo } from '../../models/support/catalog.repo';
import { createBulkRepo, type BulkRepo } from '../../models/support/bulk.repo';
import { createTicketRepo, type TicketRepo } from '../../models/support/ticket.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import type { Infra } from '../shared/infra';
import { createMongoLimiter, type Limiter } from '../shared/rate-limit';

export interface SupportDeps extends Infra {
  tickets: TicketRepo;
  tags: TagRepo;
  attachments: AttachmentRepo;
  quickReplies: QuickReplyRepo;
  bulk: BulkRepo;
  llm: LlmClient;
  /** Every request, per client IP. */
  ipLimiter: Limiter;
  /** Public ticket creation, per client IP. */
  createLimiter: Limiter;
}

export function makeSupportDeps(infra: Infra): SupportDeps {
  const { conn, ready } = infra.mongo;
  const { rateLimitPerMinute, createRateLimitPerMinute } = infra.config.support;
  return {
    ...infra,
    tickets: createTicketRepo(conn),
    tags: createTagRepo(conn),
    attachments: createAttachmentRepo(conn),
    quickReplies: createQuickReplyRepo(conn),
    bulk: createBulkRepo(conn),
    llm: createLlmClient(infra.config),
    ipLimiter: createMongoLimiter(ready, infra.config.mongo.db, {
      name: 'support-ip',
      points: rateLimitPerMinute,
      durationSec: 60,
      message: `Rate limit exceeded: ${rateLimitPerMinute} requests per minute`,
    }),
    createLimiter: createMongoLimiter(ready, infra.config.mongo.db, {
      name: 'support-create-ip',
      points: createRateLimitPerMinute,
      durationSec: 60,
      message: `Too many tickets created: ${createRateLimitPerMinute} per minute`,
    }),
  };
}
