/**
 * Bulk ticket operations, the use cases: start one (save, then start its workflow), read its
 * progress (repairing a record whose workflow never started), cancel it. Routes parse and present;
 * these decide.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { AppError, notFound } from '../../models/errors';
import { saveThenStartOnce } from '../../models/infra/idempotency';
import { uuidFromRequestKey } from '../../models/infra/idempotency.rules';
import { NOT_STARTED, saveThenStart, settleOrphan } from '../../models/infra/save-then-start';
import { bulkTicketOperationWorkflow } from '../../workflows/support/bulk.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { BULK_CHUNK_SIZE, type BulkParams, type BulkState, type BulkType } from '../../models/support/bulk.rules';
import { SUPPORT_MANAGER } from '../../models/support/ticket.rules';
import type { BulkOperationDoc, BulkRepo, ChunkSummary } from '../../models/support/bulk.repo';
import type { MessageChannel } from '../../models/support/ticket.rules';

export interface BulkDeps {
  bulk: BulkRepo;
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
  now: () => Date;
  newId?: () => string;
}

export interface StartBulkInput {
  by: { sub: string; email?: string | undefined };
  /** Where it was asked for (the messages it writes carry it). */
  canal?: MessageChannel | undefined;
  type: BulkType;
  ticketIds: number[];
  params: BulkParams;
  /** The request's Idempotency-Key identity: the operation's id derives from it, so a repeat finds it. */
  requestKey?: string | undefined;
}

export interface StartedBulk {
  operationId: string;
  workflowId: string;
  type: BulkType;
  total: number;
  state: BulkState;
}

/**
 * Saves the operation, then starts its workflow. Under a requestKey (an Idempotency-Key) the
 * operation's id derives from it: a repeat after any fault finds the operation the first attempt
 * saved (and starts it if that attempt's start failed), so one request makes one operation.
 */
export async function startBulkOperation(deps: BulkDeps, input: StartBulkInput): Promise<StartedBulk> {
  const operationId = input.requestKey ? uuidFromRequestKey(input.requestKey, 'bulk-operation') : (deps.newId ?? randomUUID)();
  const workflowId = workflowIds.ticketBulk(operationId);
  const total = input.ticketIds.length;
  const steps = {
    save: () =>
      deps.bulk.create({
        _id: operationId,
        type: input.type,
        params: input.params,
        ticketIds: input.ticketIds,
        total,
        state: 'running',
        createdBy: input.by.sub,
        createdByEmail: input.by.email ?? null,
        ...(input.canal ? { canal: input.canal } : {}),
        createdAt: deps.now(),
        finishedAt: null,
      }),
    start: () =>
      deps.temporal.client.workflow.start(bulkTicketOperationWorkflow, {
        taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.support),
        workflowId,
        args: [{ operationId, total, chunkSize: BULK_CHUNK_SIZE }],
      }),
    abandon: async (reason: string) => {
      await deps.bulk.abandon(operationId, reason, deps.now());
    },
  };
  if (!input.requestKey) {
    await saveThenStart(steps);
    return { operationId, workflowId, type: input.type, total, state: 'running' };
  }
  const found = await saveThenStartOnce({
    ...steps,
    find: () => deps.bulk.find(operationId),
    abandoned: (op) => op.state === 'failed' && op.error === NOT_STARTED,
    revive: () => deps.bulk.revive(operationId),
    workflowId,
    temporal: deps.temporal.client,
  });
  return found ? { operationId, workflowId, type: found.type, total: found.total, state: found.state } : { operationId, workflowId, type: input.type, total, state: 'running' };
}

/** Whether Temporal knows the workflow; undefined when Temporal cannot say (it is unreachable). */
async function workflowExists(deps: BulkDeps, workflowId: string): Promise<boolean | undefined> {
  try {
    await deps.temporal.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    return err instanceof WorkflowNotFoundError ? false : undefined;
  }
}

export type BulkStatus = BulkOperationDoc & { progress: ChunkSummary };

/** The operation with its progress; one still running without a workflow is marked failed first. */
export async function bulkOperationStatus(deps: BulkDeps, operationId: string): Promise<BulkStatus> {
  let op = (await deps.bulk.find(operationId)) ?? notFound('bulk operation');
  if (op.state === 'running') {
    const now = deps.now();
    const settled = await settleOrphan(op, now, {
      exists: async () => (await workflowExists(deps, workflowIds.ticketBulk(operationId))) ?? true,
      abandon: async (reason) => {
        await deps.bulk.abandon(operationId, reason, now);
      },
    });
    if (settled) op = (await deps.bulk.find(operationId)) ?? op;
  }
  return { ...op, progress: deps.bulk.progress(op) };
}

/** Asks the operation's workflow to stop between tickets (what was done stays done). */
export async function cancelBulkOperation(deps: BulkDeps, operationId: string): Promise<{ operationId: string; state: 'cancelling' }> {
  const op = (await deps.bulk.find(operationId)) ?? notFound('bulk operation');
  if (op.state !== 'running') throw new AppError('CONFLICT', `The operation is already ${op.state}`);
  try {
    await deps.temporal.client.workflow.getHandle(workflowIds.ticketBulk(op._id)).cancel();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  return { operationId: op._id, state: 'cancelling' };
}

/**
 * A bulk assignment's parameters, checked before anything starts (as a single assignment is): a
 * manager assigns an active agent (or no one) and reassigns tickets others have (`override`); an
 * agent only takes tickets for itself (or lets its own go), and tickets others have are reported.
 */
export async function bulkAssignParams(
  deps: { agents: { isAgent(email: string): Promise<boolean> } },
  principal: { email?: string | undefined; permissions: readonly string[] },
  assignee: string | null,
): Promise<BulkParams> {
  if (!principal.email) throw new AppError('FORBIDDEN', 'Assigning tickets needs a caller with an e-mail');
  const me = principal.email.toLowerCase();
  const to = assignee === null ? null : assignee.toLowerCase();
  const manager = principal.permissions.includes(SUPPORT_MANAGER) || principal.permissions.includes('*');
  if (!manager && to !== null && to !== me) throw new AppError('FORBIDDEN', 'An agent can only take tickets for itself: assigning them to someone else needs support.manager');
  if (to !== null && to !== me && !(await deps.agents.isAgent(to))) {
    throw new AppError('VALIDATION_FAILED', `${to} is not an active support agent`, { details: [{ path: 'body.assignee', message: 'not an active staff member with support.agent' }] });
  }
  return { assignee: to, override: manager };
}

/** A bulk tag change's parameters: every tag named exists (404 otherwise), none both added and removed. */
export async function bulkTagParams(deps: { tags: { findMany(ids: number[]): Promise<{ _id: number }[]> } }, add: number[], remove: number[]): Promise<BulkParams> {
  const both = add.filter((t) => remove.includes(t));
  if (both.length > 0) throw new AppError('VALIDATION_FAILED', `Tag ${both[0]} is both added and removed`, { details: [{ path: 'body.remove', message: 'a tag also in add' }] });
  const ids = [...new Set([...add, ...remove])];
  const found = new Set((await deps.tags.findMany(ids)).map((t) => t._id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) notFound(`tag ${missing}`);
  return { addTags: add, removeTags: remove };
}
