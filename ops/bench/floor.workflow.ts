/**
 * Workflow code for bench:ingest's floors only (never registered by the product's worker): the
 * enrichment workflow's shape with its one activity as a local activity, to compare with the
 * product's newsEnrichWorkflow whose ordinary activity answers at once. Both activities do nothing,
 * so the difference is what the ordinary activity's round trips cost on this stack.
 */
import { proxyLocalActivities } from '@temporalio/workflow';

interface FloorActivities {
  enrichArticle(articleId: string): Promise<{ state: 'enriched'; published: boolean; isBreaking: boolean; publishedAt: string }>;
}

const { enrichArticle } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '3 minutes' });

export async function localActivityFloorWorkflow(input: { articleId: string }): Promise<{ state: 'enriched'; published: boolean; alerted: boolean }> {
  const outcome = await enrichArticle(input.articleId);
  return { state: 'enriched', published: outcome.published, alerted: false };
}

interface DeliveryFloorActivities {
  deliverNothing(msgId: string): Promise<void>;
}

const { deliverNothing } = proxyLocalActivities<DeliveryFloorActivities>({ startToCloseTimeout: '1 minute' });

/**
 * bench:events' floor for webhooks: a workflow per message of webhookMessageWorkflow's shape on its
 * path to a 2xx (one local activity, then done), its activity doing nothing: what a workflow per
 * message costs Temporal and the worker on this stack, without the database or the HTTP request.
 */
export async function deliveryFloorWorkflow(input: { msgId: string }): Promise<void> {
  await deliverNothing(input.msgId);
}
