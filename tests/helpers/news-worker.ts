/**
 * A worker serving the news-sources task queue of a service's own configuration (its database and
 * task-queue prefix), in-process: for a test that runs the dashboard (or another service) on a
 * database and queues of its own, so that its pollers, enrichments and re-enrichments run on its
 * data alone (the pattern of startIsolatedNewsStack in ./news.ts, for any service's dependencies).
 */
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import type { Config } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import type { Storage } from '../../models/infra/storage';
import { TASK_QUEUES, taskQueueName } from '../../workflows/ids';
import { selectQueues } from '../../workers/queues';

export async function startNewsSourcesWorker(name: string, deps: { config: Config; conn: Connection; storage: Storage }): Promise<{ close(): Promise<void> }> {
  const { config } = deps;
  const logger = createLogger({ name: `${name}-worker`, level: 'warn' });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  const workers = await Promise.all(
    selectQueues([TASK_QUEUES.newsSources]).map((q) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueueName(config.temporal.taskQueuePrefix, q.queue),
        workflowBundle,
        activities: q.activities({ config, logger, conn: deps.conn, storage: deps.storage }),
        maxConcurrentActivityTaskExecutions: q.maxConcurrentActivities,
        // As workers/main.ts: heartbeats reach the server every 2 s, so cancellations reach activities fast.
        maxHeartbeatThrottleInterval: '2 seconds',
      }),
    ),
  );
  const running = workers.map((w) => w.run());
  return {
    async close() {
      for (const w of workers) w.shutdown();
      await Promise.allSettled(running);
      await connection.close();
    },
  };
}
