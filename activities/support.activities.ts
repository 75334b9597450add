/**
 * Activities of support workflows. A bulk chunk processes its tickets in groups of BULK_GROUP,
 * heartbeating the position after each so a retry resumes where the last attempt stopped; each
 * ticket's change carries the key `<operationId>:<ticketId>`, and its outcome is recorded under the
 * same key, so a ticket is processed exactly once even when the worker dies mid-chunk. Status
 * changes and deletions of a group take a few round trips in all (ticket.repo changeStatusMany);
 * drafted replies and messages go one ticket at a time.
 *
 * The chunk's reads carry its attempt's signal (activities/attempt.ts) and a time limit below the
 * heartbeat timeout, its model calls the signal, and it stops between tickets once the signal has
 * aborted: an attempt cancelled, or abandoned by the server after a timeout, stops its work
 * rather than running on beside the next attempt.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import { BUILTIN_AGENTS } from '../models/ai/agent.rules';
import { AppError } from '../models/errors';
import { classifyLlmError, type LlmClient } from '../models/infra/llm';
import { createQuickReplyRepo } from '../models/support/catalog.repo';
import { rankQuickReplies } from '../models/support/fast-response.rules';
import { toApplicationFailure } from './ai.activities';
import { createBulkRepo } from '../models/support/bulk.repo';
import type { TicketDoc } from '../models/support/support.model';
import { createTicketRepo } from '../models/support/ticket.repo';
import { BULK_GROUP, bulkKey, type BulkParams } from '../models/support/bulk.rules';
import { assertNotDeleted, TEXT_MAX, type TicketStatus } from '../models/support/ticket.rules';
import { withAttempt, type Attempt } from './attempt';

/**
 * A chunk's reads are stopped by the server after this long: below the chunk's 30 s heartbeat
 * timeout (workflows/support/bulk.workflow.ts), so a read that hangs fails this attempt before
 * the server gives up on it and starts the next.
 */
export const BULK_READ_MAX_MS = 20_000;

export interface SupportActivityDeps {
  conn: Connection;
  llm: LlmClient;
  model: string;
}

export function createSupportActivities({ conn, llm, model }: SupportActivityDeps) {
  const tickets = createTicketRepo(conn);
  const bulk = createBulkRepo(conn);
  const quickReplies = createQuickReplyRepo(conn);
  const assistant = BUILTIN_AGENTS.find((a) => a.name === 'support-assistant')!;

  async function draft(ticket: TicketDoc, signal?: AbortSignal): Promise<string> {
    const [messages, replies] = await Promise.all([tickets.messages(ticket._id), quickReplies.list()]);
    const matches = rankQuickReplies(`${ticket.issue} ${ticket.main} ${ticket.description} ${messages.map((m) => m.conteudo).join(' ')}`, replies).slice(0, 3);
    const conversation = [
      `Assunto: ${ticket.issue} (${ticket.main})`,
      `Leitor (${ticket.email}): ${ticket.description}`,
      ...messages.map((m) => `${m.origem === 'admin' ? 'Suporte' : 'Leitor'}: ${m.conteudo}`),
    ].join('\n');
    const templates = matches.length ? `\n\nRespostas prontas que podem servir de base:\n${matches.map((q) => `- ${q.title}: ${q.content}`).join('\n')}` : '';
    const reply = await llm.complete({
      model,
      temperature: assistant.temperature,
      messages: [
        { role: 'system', content: `${assistant.systemPrompt}\nEscreva apenas a resposta ao leitor, pronta para enviar.${templates}` },
        { role: 'user', content: conversation },
      ],
      user: `ticket-${ticket._id}`,
    }, signal ? { signal } : {});
    // Cut to what a person may write in a reply (TEXT_MAX), which the API documents.
    return reply.content.trim().slice(0, TEXT_MAX);
  }

  /** One ticket of a message or AI-reply operation (status changes and deletions go by group: changeStatuses). */
  async function processOne(operationId: string, type: string, params: BulkParams, by: string, ticketId: number, attempt: Attempt): Promise<void> {
    const { signal } = attempt;
    const key = bulkKey(operationId, ticketId);
    const [ticket] = await tickets.findByIds([ticketId], { signal, maxTimeMS: BULK_READ_MAX_MS });
    if (!ticket) throw new AppError('NOT_FOUND', 'ticket not found');
    assertNotDeleted(ticket, 'ticket is deleted');
    if (type === 'fast_response') {
      let text: string;
      // The model call may take longer than the heartbeat timeout (it has its own, 60 s).
      const stopBeating = attempt.keepBeating();
      try {
        text = await draft(ticket, signal);
      } catch (err) {
        signal.throwIfAborted(); // the call was cut short by the attempt's end, not refused
        const e = classifyLlmError(err);
        // The provider refused this ticket: report it; anything else retries the chunk from here.
        if (e.kind === 'rejected') throw new AppError('VALIDATION_FAILED', e.message);
        throw toApplicationFailure(e);
      } finally {
        stopBeating();
      }
      await tickets.updateFields(ticket._id, { replied: text });
      if (params.send) await tickets.addMessage(ticket, { conteudo: text, remetente: by, origem: 'admin', dedupeKey: key }, 'bulk');
    } else if (type === 'messages') {
      await tickets.addMessage(ticket, { conteudo: params.conteudo ?? '', remetente: by, origem: 'admin', dedupeKey: key }, 'bulk');
    } else {
      throw new AppError('INTERNAL', `unknown bulk type ${type}`);
    }
  }

  type Outcome = { ticketId: number; error: string | null };

  /** A group's status changes in a few round trips (ticket.repo changeStatusMany), outcomes recorded together. */
  async function changeStatuses(operationId: string, to: TicketStatus, by: string, ticketIds: readonly number[], signal: AbortSignal): Promise<Outcome[]> {
    const found = new Map((await tickets.findByIds(ticketIds, { signal, maxTimeMS: BULK_READ_MAX_MS })).map((t) => [t._id, t]));
    const outcomes: Outcome[] = [];
    const changes: { ticket: TicketDoc; to: TicketStatus; dedupeKey: string }[] = [];
    for (const ticketId of ticketIds) {
      const ticket = found.get(ticketId);
      if (!ticket) outcomes.push({ ticketId, error: 'ticket not found' });
      else if (to !== 'deleted' && ticket.status === 'deleted') outcomes.push({ ticketId, error: 'ticket is deleted' });
      else changes.push({ ticket, to, dedupeKey: bulkKey(operationId, ticketId) });
    }
    const results = await tickets.changeStatusMany(changes, by, 'bulk');
    for (const c of changes) {
      const r = results.get(c.dedupeKey);
      outcomes.push({ ticketId: c.ticket._id, error: r instanceof AppError ? r.message : null });
    }
    await bulk.recordMany(operationId, outcomes);
    return outcomes;
  }

  /**
   * Other operations, one ticket at a time (each drafts a reply or writes a message), each outcome
   * recorded as soon as it is known: a retry after an infrastructure fault never asks the AI
   * provider again for a ticket already done. Stops before the next ticket once `signal` aborts.
   */
  async function eachTicket(
    operationId: string,
    type: string,
    params: BulkParams,
    by: string,
    ticketIds: readonly number[],
    attempt: Attempt,
    onOutcome: (o: Outcome) => Promise<void>,
  ): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const ticketId of ticketIds) {
      attempt.signal.throwIfAborted();
      let outcome: Outcome;
      try {
        await processOne(operationId, type, params, by, ticketId, attempt);
        outcome = { ticketId, error: null };
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // infrastructure: retry the chunk from this ticket
        outcome = { ticketId, error: err.message };
      }
      await onOutcome(outcome);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  return {
    /**
     * The tickets at positions [start, end) of an operation, from where an earlier attempt stopped
     * (its heartbeat), a group at a time. Once the attempt's signal aborts it stops (a read in
     * flight is stopped by the driver; otherwise before the next group or ticket); a cancelled
     * operation first saves its exact progress.
     */
    async processBulkChunk(input: { operationId: string; start: number; end: number }): Promise<{ processed: number }> {
      return await withAttempt(async (attempt) => {
        const { signal } = attempt;
        const reads = { signal, maxTimeMS: BULK_READ_MAX_MS };
        const op = await bulk.find(input.operationId, reads);
        // Gone, or abandoned because its start was reported failed although it reached Temporal.
        if (!op || op.state !== 'running') return { processed: 0 };
        const ids = op.ticketIds.slice(input.start, input.end);
        const resumeAt = (Context.current().info.heartbeatDetails as number | undefined) ?? 0;
        const by = op.createdByEmail ?? op.createdBy;
        // Progress while running: counted here, then replaced by the exact summary at the end.
        const live = resumeAt > 0 ? await bulk.summarize(input.operationId, ids.slice(0, resumeAt), reads) : { processed: 0, succeeded: 0, failed: 0, errors: [] as { ticketId: number; error: string }[] };
        try {
          for (let i = resumeAt; i < ids.length; i += BULK_GROUP) {
            signal.throwIfAborted();
            const group = ids.slice(i, i + BULK_GROUP);
            const done = await bulk.processedOf(input.operationId, group, reads);
            const todo = group.filter((t) => !done.has(t));
            const outcomes =
              op.type === 'status' || op.type === 'delete'
                ? await changeStatuses(input.operationId, op.type === 'delete' ? 'deleted' : op.params.status!, by, todo, signal)
                : await eachTicket(input.operationId, op.type, op.params, by, todo, attempt, async (o) => {
                    await bulk.recordMany(input.operationId, [o]);
                    attempt.heartbeat(i + group.indexOf(o.ticketId) + 1);
                  });
            for (const o of outcomes) {
              live.processed += 1;
              if (o.error === null) live.succeeded += 1;
              else {
                live.failed += 1;
                live.errors.push({ ticketId: o.ticketId, error: o.error });
              }
            }
            attempt.heartbeat(i + group.length);
            await bulk.saveChunk(input.operationId, input.start, live);
          }
        } catch (err) {
          // A cancelled operation keeps its exact progress (the workflow marks it cancelled next).
          // Not after a timeout: the database may be what hangs, and the next attempt counts anyway.
          if (signal.aborted && attempt.cancelRequested) {
            const exact = bulk.summarize(input.operationId, ids, { maxTimeMS: BULK_READ_MAX_MS });
            await exact.then((summary) => bulk.saveChunk(input.operationId, input.start, summary)).catch(() => undefined);
          }
          throw err;
        }
        await bulk.saveChunk(input.operationId, input.start, await bulk.summarize(input.operationId, ids, reads));
        return { processed: ids.length };
      });
    },

    /** Drafts a reply to a ticket with the support-assistant instructions and matching quick replies. */
    async draftFastResponse(input: { ticketId: number }): Promise<{ draft: string }> {
      const ticket = await tickets.findById(input.ticketId);
      if (!ticket || ticket.status === 'deleted') throw ApplicationFailure.create({ message: 'ticket not found', type: 'NOT_FOUND', nonRetryable: true });
      try {
        return { draft: await draft(ticket) };
      } catch (err) {
        throw toApplicationFailure(classifyLlmError(err));
      }
    },

    /** Stores the draft in `replied` and, when asked, sends it once as an admin message. */
    async saveFastResponse(input: { ticketId: number; draft: string; send: boolean; by: string; key: string }): Promise<{ messageId: number | null }> {
      const ticket = await tickets.findById(input.ticketId);
      if (!ticket) throw ApplicationFailure.create({ message: 'ticket not found', type: 'NOT_FOUND', nonRetryable: true });
      await tickets.updateFields(ticket._id, { replied: input.draft });
      if (!input.send) return { messageId: null };
      const { message } = await tickets.addMessage(ticket, { conteudo: input.draft, remetente: input.by, origem: 'admin', dedupeKey: input.key });
      return { messageId: message._id };
    },

    async finishBulkOperation(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed' }): Promise<void> {
      await bulk.finish(input.operationId, input.state);
    },
  };
}
