/**
 * Activities of support workflows. The use cases are the support operations: a bulk chunk
 * (operations/support/bulk-chunk.ts: the tickets of a chunk, a group at a time, each
 * processed exactly once even when the worker dies mid-chunk) and an AI reply (reply-draft.ts:
 * draft it, store it, send it once). An activity gives them the worker's repositories, built once
 * here, and keeps what is Temporal's: the attempt (activities/attempt.ts: its heartbeats, where a
 * retry resumes, its end stopping the chunk's reads and model calls) and errors as
 * ApplicationFailures.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import { classifyLlmError, LlmError, type LlmClient } from '../models/infra/llm';
import { createQuickReplyRepo } from '../models/support/catalog.repo';
import { createBulkRepo } from '../models/support/bulk.repo';
import { processBulkChunk } from '../operations/support/bulk-chunk';
import { draftReply, saveReply } from '../operations/support/reply-draft';
import { createTicketRepo } from '../models/support/ticket.repo';
import { toApplicationFailure } from './ai.activities';
import { withAttempt } from './attempt';
import { queueMail, type MailOutbox } from '../operations/support/mail-delivery';
import type { SupportActivities } from '../workflows/support/activities';

export interface SupportActivityDeps {
  conn: Connection;
  llm: LlmClient;
  model: string;
  /** Where the mail of the messages these write is started (issue 39): the deployment's queues and the reply delay. */
  mail?: { taskQueuePrefix: string; sendDelayMs: number };
}

/** The mail outbox of an activity: its workflows started through the worker's own client. */
const outboxOf = (mail: SupportActivityDeps['mail']): MailOutbox | undefined =>
  mail && { queue: (target) => queueMail({ temporal: { client: Context.current().client }, taskQueuePrefix: mail.taskQueuePrefix, sendDelayMs: mail.sendDelayMs }, target) };

const ticketNotFound = () => ApplicationFailure.create({ message: 'ticket not found', type: 'NOT_FOUND', nonRetryable: true });

export function createSupportActivities({ conn, llm, model, mail }: SupportActivityDeps): SupportActivities {
  const mailOutbox = outboxOf(mail);
  const tickets = createTicketRepo(conn);
  const bulk = createBulkRepo(conn);
  const quickReplies = createQuickReplyRepo(conn);
  const drafting = { tickets, quickReplies, llm, model };

  return {
    /**
     * The tickets at positions [start, end) of an operation, from where an earlier attempt stopped
     * (its heartbeat), a group at a time. Once the attempt's signal aborts it stops; a cancelled
     * operation first saves its exact progress. The AI provider unavailable fails the call (retried).
     */
    async processBulkChunk(input: { operationId: string; start: number; end: number }): Promise<{ processed: number }> {
      return await withAttempt(async (attempt) => {
        const resumeAt = (Context.current().info.heartbeatDetails as number | undefined) ?? 0;
        return await processBulkChunk({ ...drafting, bulk, now: () => new Date(), ...(mailOutbox ? { mailOutbox } : {}) }, { ...input, resumeAt }, attempt).catch((err: unknown) => {
          throw err instanceof LlmError ? toApplicationFailure(err) : err;
        });
      });
    },

    /** Drafts a reply to a ticket with the support-assistant instructions and matching quick replies. */
    async draftFastResponse(input: { ticketId: number }): Promise<{ draft: string }> {
      const ticket = await tickets.findById(input.ticketId);
      if (!ticket || ticket.status === 'deleted') throw ticketNotFound();
      try {
        return { draft: await draftReply(drafting, ticket) };
      } catch (err) {
        throw toApplicationFailure(classifyLlmError(err));
      }
    },

    /** Stores the draft in `replied` and, when asked, sends it once as an admin message. */
    async saveFastResponse(input: Parameters<SupportActivities['saveFastResponse']>[0]): Promise<{ messageId: number | null }> {
      const saved = await saveReply({ tickets, ...(mailOutbox ? { mailOutbox } : {}) }, input);
      if (!saved) throw ticketNotFound();
      return saved;
    },

    async finishBulkOperation(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed' }): Promise<void> {
      await bulk.finish(input.operationId, input.state);
    },
  };
}
