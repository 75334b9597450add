/** The news service in-process, and accounts with API keys on a given plan. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeNewsDeps, newsService, type NewsDeps } from '../../api/news/service';
import type { KeyMode, KeyScope } from '../../models/news/api-key.rules';
import type { Plan } from '../../models/shared/plan.rules';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { createLogger } from '../../models/infra/logger';
import { TASK_QUEUES, taskQueueName } from '../../workflows/ids';
import { selectQueues } from '../../workers/queues';
import { startTestService, testConfig, tokenFor, type TestService } from './service';

export type NewsService = TestService<NewsDeps>;

export const startNewsService = (env: Record<string, string> = {}) => startTestService(newsService, makeNewsDeps, { config: testConfig(env) });

/** A new account on `plan` with one key (live, all scopes unless said). */
export async function accountWithKey(
  svc: NewsService,
  plan: Plan,
  options: { mode?: KeyMode; scopes?: KeyScope[]; expiresAt?: Date | null } = {},
): Promise<{ userId: string; key: string; keyId: string; jwt: string }> {
  const userId = `news-${plan}-${randomUUID().slice(0, 8)}`;
  await svc.deps.users.setPlan(userId, plan);
  const { key, record } = await svc.deps.apiKeys.create({ userId, name: 'test', mode: options.mode ?? 'live', scopes: options.scopes ?? ['*'], expiresAt: options.expiresAt ?? null });
  return { userId, key, keyId: record.keyId, jwt: await tokenFor(userId, [], `${userId}@example.com`) };
}

export const withKey = (svc: NewsService, key: string, path: string) => request(svc.callback).get(path).set('X-API-Key', key);

/**
 * The news service with a database and task queues of its own, and an in-process worker serving
 * its news-sources queue: for tests whose sources keep publishing articles
 * (their pollers run on), so other files counting articles in the shared database never see them.
 * `close` stops the worker and drops the database; the pollers left in Temporal have no worker.
 */
export async function startIsolatedNewsStack(name: string): Promise<{ svc: NewsService; close(): Promise<void> }> {
  const tag = randomUUID().slice(0, 8);
  const env = { MONGODB_DB: `${name.replace(/\W/g, '_')}_${tag}`, TASK_QUEUE_PREFIX: `${name}-${tag}-` };
  const svc = await startNewsService(env);
  const config = testConfig(env);
  const logger = createLogger({ name: `${name}-worker`, level: 'warn' });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  const workers = await Promise.all(
    selectQueues([TASK_QUEUES.newsSources, TASK_QUEUES.webhooks]).map((q) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueueName(config.temporal.taskQueuePrefix, q.queue),
        workflowBundle,
        activities: q.activities({ config, logger, conn: svc.deps.mongo.conn, storage: svc.deps.storage }),
        maxConcurrentActivityTaskExecutions: q.maxConcurrentActivities,
        // As workers/main.ts: heartbeats reach the server every 2 s, so cancellations reach activities fast.
        maxHeartbeatThrottleInterval: '2 seconds',
      }),
    ),
  );
  const running = workers.map((w) => w.run());
  return {
    svc,
    async close() {
      for (const w of workers) w.shutdown();
      await Promise.allSettled(running);
      await connection.close();
      await svc.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
      await svc.close();
    },
  };
}
