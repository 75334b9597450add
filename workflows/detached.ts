/**
 * Starting a workflow that outlives the one starting it (a child with the ABANDON close policy):
 * an import starting its breaking articles' alerts and its enrichments, a source's poller starting
 * an article's enrichment, an enrichment starting its alerts. The child runs on the deployment's
 * queue for its kind of work: the deployment's prefix is read off the parent's own queue.
 *
 * Workflow code (deterministic): imported by workflows only.
 */
import { WorkflowExecutionAlreadyStartedError, type Workflow } from '@temporalio/common';
import { ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { taskQueueName, type TaskQueue } from './ids';

/** This deployment's prefix: the parent's queue name less its base name. */
export function deploymentPrefix(ownQueue: TaskQueue): string {
  const queue = workflowInfo().taskQueue;
  return queue.endsWith(ownQueue) ? queue.slice(0, -ownQueue.length) : '';
}

/**
 * Starts `workflowType` as a detached child; false when a run of that id refused it: one runs
 * already, or (`once`) one ever ran (REJECT_DUPLICATE: an alert is sent once per article).
 */
export async function startDetached<W extends Workflow>(
  workflowType: string,
  o: { workflowId: string; ownQueue: TaskQueue; queue: TaskQueue; args: Parameters<W>; once?: boolean },
): Promise<boolean> {
  try {
    await startChild(workflowType, {
      workflowId: o.workflowId,
      taskQueue: taskQueueName(deploymentPrefix(o.ownQueue), o.queue),
      args: o.args as unknown[],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: o.once ? 'REJECT_DUPLICATE' : 'ALLOW_DUPLICATE',
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
