/**
 * News sources, the use cases (issue 25): add, change, remove, poll now, and keep every enabled
 * source's poller running. The admin API, the CLI (`source add|list|disable`) and `seed` call
 * these. A source's poller is its workflow `news-source-<sourceId>`: saved first, then started
 * (or woken: signal-with-start), so a change takes effect at once; a disabled or deleted source's
 * poller sees that when woken and ends.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { AppError, notFound } from '../../models/errors';
import { saveThenStart } from '../../models/infra/save-then-start';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { newsSourceWorkflow, pollNowSignal } from '../../workflows/news/source.workflow';
import { DuplicateFeed, type SourceRepo } from '../../models/news/sources/source.repo';
import { feedKeyOf, NEW_HEALTH, type SourceDoc, type SourceInput, type SourcePatch } from '../../models/news/sources/source.rules';

/** What starting and waking pollers uses. */
export interface PollerDeps {
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
}

export interface SourceDeps extends PollerDeps {
  sources: Pick<SourceRepo, 'create' | 'get' | 'list' | 'update' | 'remove'>;
  now?: () => Date;
}

const conflict = (err: unknown): never => {
  if (err instanceof DuplicateFeed) throw new AppError('CONFLICT', err.message);
  throw err;
};

/** Wakes a source's poller, starting it when it is not running. */
async function wake(deps: PollerDeps, sourceId: string): Promise<void> {
  await deps.temporal.client.workflow.signalWithStart(newsSourceWorkflow, {
    workflowId: workflowIds.newsSource(sourceId),
    taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.newsSources),
    args: [{ sourceId }],
    signal: pollNowSignal,
  });
}

/** Wakes a running poller only (a disabled or deleted source's poller then ends); none running is fine. */
async function wakeIfRunning(deps: PollerDeps, sourceId: string): Promise<void> {
  try {
    await deps.temporal.client.workflow.getHandle(workflowIds.newsSource(sourceId)).signal(pollNowSignal);
  } catch (err) {
    if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
  }
}

export async function addSource(deps: SourceDeps, input: SourceInput): Promise<SourceDoc> {
  const now = (deps.now ?? (() => new Date()))();
  const { sources } = deps;
  const doc: SourceDoc = {
    _id: randomUUID(),
    ...input,
    feedKey: feedKeyOf(input.feedUrl),
    http: { etag: null, lastModified: null },
    health: { ...NEW_HEALTH },
    createdAt: now,
    updatedAt: now,
  };
  await saveThenStart({
    save: () => sources.create(doc).catch(conflict),
    start: () => (doc.enabled ? wake(deps, doc._id) : Promise.resolve()),
    // Nothing runs without its poller: the source is taken back, and the client may try again.
    abandon: async () => {
      await sources.remove(doc._id);
    },
  });
  return doc;
}

export async function changeSource(deps: SourceDeps, id: string, patch: SourcePatch): Promise<SourceDoc> {
  const now = (deps.now ?? (() => new Date()))();
  const updated = await deps.sources.update(id, patch, now).catch(conflict);
  if (!updated) notFound('Source');
  // A change is saved even when Temporal is away: the poller reads the source on every poll, and
  // ensurePollers (worker start) starts those that should run.
  if (updated.enabled) await wake(deps, id);
  else await wakeIfRunning(deps, id);
  return updated;
}

export async function removeSource(deps: SourceDeps, id: string): Promise<void> {
  if (!(await deps.sources.remove(id))) notFound('Source');
  await wakeIfRunning(deps, id);
}

export async function pollSourceNow(deps: SourceDeps, id: string): Promise<SourceDoc> {
  const source = await deps.sources.get(id);
  if (!source) notFound('Source');
  if (!source.enabled) throw new AppError('CONFLICT', 'The source is disabled: enable it to poll it');
  await wake(deps, id);
  return source;
}

/**
 * Starts the poller of every enabled source that has none running (a worker serving the sources
 * queue calls this when it starts): after a restore, a Temporal outage during a change, or a
 * poller terminated by hand. Running pollers are left as they are (not woken).
 */
export async function ensurePollers(deps: PollerDeps & { sources: Pick<SourceRepo, 'list'> }): Promise<{ sources: number }> {
  const enabled = await deps.sources.list({ enabled: true });
  for (const s of enabled) {
    await deps.temporal.client.workflow.start(newsSourceWorkflow, {
      workflowId: workflowIds.newsSource(s._id),
      taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.newsSources),
      args: [{ sourceId: s._id }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }
  return { sources: enabled.length };
}
