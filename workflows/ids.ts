/**
 * Task queues and workflow ids, in one place (GUIDE §5). Workflow ids carry the business key so
 * operators find runs in the Temporal UI by what they are about.
 *
 * Pure: imported by workflows, APIs and workers alike.
 */
export const TASK_QUEUES = {
  /** Platform checks and maintenance (the smoke workflow). */
  ops: 'platform-ops',
} as const;

export type TaskQueueKey = keyof typeof TASK_QUEUES;
export type TaskQueue = (typeof TASK_QUEUES)[TaskQueueKey];

export const workflowIds = {
  /** One smoke check: API → Temporal → worker → activities → MongoDB and MinIO. */
  smoke: (checkId: string) => `smoke-${checkId}`,
};
