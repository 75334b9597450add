/**
 * Enriching one article again (a use case: the admin API), after a prompt or model change: its
 * enrichment workflow `news-enrich-<articleId>` runs again, followed and cancelled in the Temporal
 * UI. Refused while one runs.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Connection } from 'mongoose';
import { AppError, notFound } from '../../errors';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../../workflows/ids';
import { newsEnrichWorkflow } from '../../../workflows/news/enrich.workflow';
import { createArticleRepo } from '../article.repo';

export async function enrichAgain(deps: { conn: Connection; temporal: { client: Pick<Client, 'workflow'> }; taskQueuePrefix: string }, articleId: string): Promise<{ workflowId: string }> {
  if (!(await createArticleRepo(deps.conn).findById(articleId))) notFound('Article');
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
