/**
 * Enriching articles again after a prompt or model change (use cases of the admin API):
 * - one article: its enrichment workflow `news-enrich-<articleId>` runs again, followed and
 *   cancelled in the Temporal UI; refused while one runs;
 * - the articles a filter matches: an operation (`news_reenrichments`) whose workflow
 *   `news-reenrich-<operationId>` enriches them one after the other, with progress and cancel,
 *   as the support bulk operations. Start it (save, then start), read its progress (repairing a
 *   record whose workflow never started), cancel it.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { AppError, notFound } from '../../models/errors';
import { saveThenStartOnce, startFound } from '../../models/infra/idempotency';
import { uuidFromRequestKey } from '../../models/infra/idempotency.rules';
import { NOT_STARTED, saveThenStart, settleOrphan } from '../../models/infra/save-then-start';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { newsEnrichWorkflow } from '../../workflows/news/enrich.workflow';
import { newsReenrichWorkflow } from '../../workflows/news/reenrich.workflow';
import type { ArticleRepo } from '../../models/news/article.repo';
import { PROMPT_VERSION } from '../../models/news/enrichment.rules';
import { isEmptyFilter, REENRICH_CHUNK_SIZE, REENRICH_MAX_ARTICLES, reenrichQuery, type ReenrichFilter } from '../../models/news/reenrich.rules';
import type { ReenrichmentDoc, ReenrichmentRepo } from '../../models/news/reenrichment.repo';

export interface EnrichAgainDeps {
  articles: Pick<ArticleRepo, 'findById'>;
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
}

export async function enrichAgain(deps: EnrichAgainDeps, articleId: string): Promise<{ workflowId: string }> {
  if (!(await deps.articles.findById(articleId))) notFound('Article');
  const workflowId = workflowIds.newsEnrich(articleId);
  try {
    await deps.temporal.client.workflow.start(newsEnrichWorkflow, {
      workflowId,
      taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.newsSources),
      args: [{ articleId }],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'The article is being enriched already');
    throw err;
  }
  return { workflowId };
}

export interface ReenrichDeps {
  reenrichments: ReenrichmentRepo;
  articles: Pick<ArticleRepo, 'idsMatching'>;
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
  now: () => Date;
  newId?: () => string;
}

export type Reenrichment = Omit<ReenrichmentDoc, 'articleIds' | 'positions'>;

/**
 * Resolves the filter to its articles (newest first; more than REENRICH_MAX_ARTICLES is refused:
 * narrow the filter), saves the operation with them, then starts its workflow on `news-sources`.
 * A filter matching nothing makes an operation that completes at once. Under a requestKey (an
 * Idempotency-Key) the operation's id derives from it: a repeat after any fault finds the
 * operation the first attempt saved (starting it if that attempt's start failed).
 */
export async function startReenrichment(deps: ReenrichDeps, input: { by: string; filter: ReenrichFilter; requestKey?: string | undefined }): Promise<Reenrichment> {
  if (isEmptyFilter(input.filter)) throw new AppError('VALIDATION_FAILED', 'Give at least one filter field (sourceId, sector, from, to, promptVersionNot, articleIds)');
  const operationId = input.requestKey ? uuidFromRequestKey(input.requestKey, 'news-reenrichment') : (deps.newId ?? randomUUID)();
  const workflowId = workflowIds.newsReenrich(operationId);
  /** The operation's article count: the one found under the key, or the one made now. */
  let total = 0;
  const steps = {
    start: () =>
      deps.temporal.client.workflow.start(newsReenrichWorkflow, {
        taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.newsSources),
        workflowId,
        args: [{ operationId, total, chunkSize: REENRICH_CHUNK_SIZE }],
      }),
    abandon: async (reason: string) => {
      await deps.reenrichments.abandon(operationId, reason, deps.now());
    },
  };
  const once = input.requestKey
    ? {
        find: () => deps.reenrichments.find(operationId),
        abandoned: (op: Reenrichment) => op.state === 'failed' && op.error === NOT_STARTED,
        revive: () => deps.reenrichments.revive(operationId),
        workflowId,
        temporal: deps.temporal.client,
      }
    : undefined;
  // Found under its key: the articles it fixed when it was created stay its articles.
  const earlier = await once?.find();
  if (once && earlier) {
    total = earlier.total;
    return await startFound(earlier, { ...steps, ...once });
  }
  const articleIds = await deps.articles.idsMatching(reenrichQuery(input.filter), REENRICH_MAX_ARTICLES + 1);
  if (articleIds.length > REENRICH_MAX_ARTICLES) {
    throw new AppError('VALIDATION_FAILED', `The filter matches more than ${REENRICH_MAX_ARTICLES.toLocaleString('en-US')} articles: narrow it (a source, a sector, a shorter period, promptVersionNot)`);
  }
  const doc: ReenrichmentDoc = {
    _id: operationId,
    filter: Object.fromEntries(Object.entries(input.filter).filter(([, v]) => v !== undefined)),
    promptVersion: PROMPT_VERSION,
    articleIds,
    total: articleIds.length,
    done: 0,
    failed: 0,
    gone: 0,
    waiting: 0,
    resumeAt: null,
    errors: [],
    positions: {},
    state: 'running',
    createdBy: input.by,
    createdAt: deps.now(),
    finishedAt: null,
    error: null,
  };
  total = doc.total;
  const save = () => deps.reenrichments.create(doc);
  const { articleIds: _ids, positions: _positions, ...started } = doc;
  if (!once) {
    await saveThenStart({ ...steps, save });
    return started;
  }
  return (await saveThenStartOnce({ ...steps, ...once, save })) ?? started;
}

/** Whether Temporal knows the workflow; undefined when Temporal cannot say (it is unreachable). */
async function workflowExists(deps: ReenrichDeps, workflowId: string): Promise<boolean | undefined> {
  try {
    await deps.temporal.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    return err instanceof WorkflowNotFoundError ? false : undefined;
  }
}

/** The operation with its counts; one still running without a workflow is marked failed first. */
export async function reenrichmentProgress(deps: ReenrichDeps, operationId: string): Promise<Reenrichment> {
  let op = (await deps.reenrichments.find(operationId)) ?? notFound('Re-enrichment');
  if (op.state === 'running') {
    const now = deps.now();
    const settled = await settleOrphan(op, now, {
      exists: async () => (await workflowExists(deps, workflowIds.newsReenrich(operationId))) ?? true,
      abandon: async (reason) => {
        await deps.reenrichments.abandon(operationId, reason, now);
      },
    });
    if (settled) op = (await deps.reenrichments.find(operationId)) ?? op;
  }
  return op;
}

/** Asks the operation's workflow to stop between articles (what was done stays done). */
export async function cancelReenrichment(deps: ReenrichDeps, operationId: string): Promise<{ id: string; state: 'cancelling' }> {
  const op = (await deps.reenrichments.find(operationId)) ?? notFound('Re-enrichment');
  if (op.state !== 'running') throw new AppError('CONFLICT', `The re-enrichment is already ${op.state}`);
  try {
    await deps.temporal.client.workflow.getHandle(workflowIds.newsReenrich(op._id)).cancel();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  return { id: op._id, state: 'cancelling' };
}
