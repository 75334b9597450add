/**
 * One chunk of a bulk ticket operation, the use case the bulk workflow's activity runs: the
 * tickets at positions [start, end) of the operation, a group of BULK_GROUP at a time, from where
 * an earlier attempt stopped. Each ticket's change carries the key `<operationId>:<ticketId>`, and
 * its outcome is recorded under the same key, so a ticket is processed exactly once even when the
 * worker dies mid-chunk. Status changes and deletions of a group take a few round trips in all
 * (ticket.repo changeStatusMany); drafted replies and messages go one ticket at a time.
 *
 * The chunk's reads carry its attempt's signal and a time limit below the heartbeat timeout, its
 * model calls the signal, and it stops between tickets once the signal has aborted: an attempt
 * cancelled, or abandoned by the server after a timeout, stops its work rather than running on
 * beside the next attempt.
 */
import { AppError } from '../../models/errors';
import { classifyLlmError } from '../../models/infra/llm';
import type { BulkRepo } from '../../models/support/bulk.repo';
import { BULK_GROUP, bulkKey, type BulkParams } from '../../models/support/bulk.rules';
import type { TicketDoc } from '../../models/support/support.model';
import type { TicketRepo } from '../../models/support/ticket.repo';
import { assertNotDeleted, type TicketStatus } from '../../models/support/ticket.rules';
import { draftReply, type ReplyDraftDeps } from './reply-draft';
import type { MessageDoc } from '../../models/support/support.model';
import type { MailOutbox } from './mail-delivery';
import type { MessageChannel } from '../../models/support/ticket.rules';

/** A message the operation wrote, its mail started when queued (a retried ticket finds its message: the mail's workflow id is the same). */
const mailQueued = async (deps: Pick<BulkChunkDeps, 'mailOutbox'>, ticketId: number, message: MessageDoc) => {
  if (message.entrega?.estado === 'queued') await deps.mailOutbox?.queue({ ticketId, messageId: message._id });
};

/**
 * A chunk's reads are stopped by the server after this long: below the chunk's 30 s heartbeat
 * timeout (workflows/support/bulk.workflow.ts), so a read that hangs fails this attempt before
 * the server gives up on it and starts the next.
 */
export const BULK_READ_MAX_MS = 20_000;

export interface BulkChunkDeps extends ReplyDraftDeps {
  bulk: Pick<BulkRepo, 'find' | 'summarize' | 'processedOf' | 'recordMany' | 'saveChunk'>;
  tickets: Pick<TicketRepo, 'findByIds' | 'changeStatusMany' | 'updateFields' | 'addMessage' | 'messages' | 'addTag' | 'removeTag' | 'assign' | 'setAssignee'>;
  now: () => Date;
  /** Starts the mail of each message a bulk operation writes (issue 39). */
  mailOutbox?: MailOutbox;
}

/** The activity attempt running the chunk (activities/attempt.ts Attempt is one). */
export interface ChunkAttempt {
  /** Aborted once the attempt is over (cancelled, or past its timeouts); its reason is what to throw. */
  readonly signal: AbortSignal;
  /** The workflow asked for the cancellation (not a timeout): the chunk's exact progress is saved before it stops. */
  readonly cancelRequested: boolean;
  /** The position reached in the chunk: a retry resumes there. */
  heartbeat(position: number): void;
  /** Keeps the attempt alive while one reply is drafted (the model call may outlast the heartbeat timeout); returns the stop. */
  keepBeating(): () => void;
}

type Outcome = { ticketId: number; error: string | null };

/**
 * Processes the chunk's tickets from `resumeAt` (the position an earlier attempt reported, 0 at
 * first). Once the attempt's signal aborts it stops (a read in flight is stopped by the driver;
 * otherwise before the next group or ticket); a cancelled operation first saves its exact
 * progress. A ticket's own fault (not found, deleted, refused by the AI provider) is its outcome;
 * anything else (the database, the provider unavailable: an LlmError) is thrown, and the next
 * attempt goes on from the last ticket recorded.
 */
export async function processBulkChunk(deps: BulkChunkDeps, input: { operationId: string; start: number; end: number; resumeAt: number }, attempt: ChunkAttempt): Promise<{ processed: number }> {
  const { bulk } = deps;
  const { signal } = attempt;
  const reads = { signal, maxTimeMS: BULK_READ_MAX_MS };
  const op = await bulk.find(input.operationId, reads);
  // Gone, or abandoned because its start was reported failed although it reached Temporal.
  if (!op || op.state !== 'running') return { processed: 0 };
  const ids = op.ticketIds.slice(input.start, input.end);
  const { resumeAt } = input;
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
          ? await changeStatuses(deps, input.operationId, op.type === 'delete' ? 'deleted' : op.params.status!, by, todo, signal)
          : await eachTicket(deps, input.operationId, op.type, op.params, { by, ...(op.canal ? { canal: op.canal } : {}) }, todo, attempt, async (o) => {
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
}

/** A group's status changes in a few round trips (ticket.repo changeStatusMany), outcomes recorded together. */
async function changeStatuses(deps: BulkChunkDeps, operationId: string, to: TicketStatus, by: string, ticketIds: readonly number[], signal: AbortSignal): Promise<Outcome[]> {
  const found = new Map((await deps.tickets.findByIds(ticketIds, { signal, maxTimeMS: BULK_READ_MAX_MS })).map((t) => [t._id, t]));
  const outcomes: Outcome[] = [];
  const changes: { ticket: TicketDoc; to: TicketStatus; dedupeKey: string }[] = [];
  for (const ticketId of ticketIds) {
    const ticket = found.get(ticketId);
    if (!ticket) outcomes.push({ ticketId, error: 'ticket not found' });
    else if (to !== 'deleted' && ticket.status === 'deleted') outcomes.push({ ticketId, error: 'ticket is deleted' });
    else changes.push({ ticket, to, dedupeKey: bulkKey(operationId, ticketId) });
  }
  const results = await deps.tickets.changeStatusMany(changes, by, 'bulk');
  for (const c of changes) {
    const r = results.get(c.dedupeKey);
    outcomes.push({ ticketId: c.ticket._id, error: r instanceof AppError ? r.message : null });
  }
  await deps.bulk.recordMany(operationId, outcomes);
  return outcomes;
}

/**
 * Other operations, one ticket at a time (each drafts a reply or writes a message), each outcome
 * recorded as soon as it is known: a retry after an infrastructure fault never asks the AI
 * provider again for a ticket already done. Stops before the next ticket once the signal aborts.
 */
async function eachTicket(
  deps: BulkChunkDeps,
  operationId: string,
  type: string,
  params: BulkParams,
  author: Author,
  ticketIds: readonly number[],
  attempt: ChunkAttempt,
  onOutcome: (o: Outcome) => Promise<void>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const ticketId of ticketIds) {
    attempt.signal.throwIfAborted();
    let outcome: Outcome;
    try {
      await processOne(deps, operationId, type, params, author, ticketId, attempt);
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

/** One ticket of a message or AI-reply operation (status changes and deletions go by group: changeStatuses). */
/** Who wrote an operation's messages, and where they asked for it (the console or the API). */
interface Author {
  by: string;
  canal?: MessageChannel;
}

async function processOne(deps: BulkChunkDeps, operationId: string, type: string, params: BulkParams, author: Author, ticketId: number, attempt: ChunkAttempt): Promise<void> {
  const by = author.by;
  const canal = author.canal ? { canal: author.canal } : {};
  const { signal } = attempt;
  const key = bulkKey(operationId, ticketId);
  const [ticket] = await deps.tickets.findByIds([ticketId], { signal, maxTimeMS: BULK_READ_MAX_MS });
  if (!ticket) throw new AppError('NOT_FOUND', 'ticket not found');
  assertNotDeleted(ticket, 'ticket is deleted');
  if (type === 'fast_response') {
    let text: string;
    // The model call may take longer than the heartbeat timeout (it has its own, 60 s).
    const stopBeating = attempt.keepBeating();
    try {
      text = await draftReply(deps, ticket, signal);
    } catch (err) {
      signal.throwIfAborted(); // the call was cut short by the attempt's end, not refused
      const e = classifyLlmError(err);
      // The provider refused this ticket: report it; anything else retries the chunk from here.
      if (e.kind === 'rejected') throw new AppError('VALIDATION_FAILED', e.message);
      throw e;
    } finally {
      stopBeating();
    }
    await deps.tickets.updateFields(ticket._id, { replied: text });
    if (params.send) await mailQueued(deps, ticket._id, (await deps.tickets.addMessage(ticket, { conteudo: text, remetente: by, origem: 'admin', dedupeKey: key, ...canal }, 'bulk')).message);
  } else if (type === 'messages') {
    await mailQueued(deps, ticket._id, (await deps.tickets.addMessage(ticket, { conteudo: params.conteudo ?? '', remetente: by, origem: 'admin', dedupeKey: key, ...canal }, 'bulk')).message);
  } else if (type === 'tags') {
    // $addToSet and $pull: a retried ticket writes nothing new.
    for (const tag of params.addTags ?? []) await deps.tickets.addTag(ticket._id, tag);
    for (const tag of params.removeTags ?? []) await deps.tickets.removeTag(ticket._id, tag);
  } else if (type === 'assign') {
    const to = params.assignee ?? null;
    if (params.override) {
      if (!(await deps.tickets.setAssignee(ticket._id, to, deps.now()))) throw new AppError('CONFLICT', 'ticket is deleted');
    } else {
      // An agent's bulk take: only tickets no one has (or its own); a retry finds its own.
      const current = ticket.assignee ?? null;
      if (current === to) return;
      if (current !== null && current !== by.toLowerCase()) throw new AppError('CONFLICT', `assigned to ${current}`);
      if (!(await deps.tickets.assign(ticket._id, current, to, deps.now()))) throw new AppError('CONFLICT', 'the assignee changed meanwhile');
    }
  } else {
    throw new AppError('INTERNAL', `unknown bulk type ${type}`);
  }
}
