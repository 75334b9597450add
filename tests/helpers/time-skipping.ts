/**
 * Temporal's time-skipping test server (the launcher `npm test` fetches), for tests of workflow
 * timing. With it, a plain client: runs awaited through it let the clock move only when the test
 * says (`env.sleep`); the environment's own client lets the server skip time while it waits, and
 * it then jumps to the farthest pending timer.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowClient } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import mongoose from 'mongoose';
import { testConfig } from './service';

export async function timeSkippingEnvironment(): Promise<{ env: TestWorkflowEnvironment; client: WorkflowClient }> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = process.env.TEMPORAL_TEST_SERVER_BIN;
  if (!server) throw new Error('TEMPORAL_TEST_SERVER_BIN is not set: run through npm test');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server } } });
  return { env, client: new WorkflowClient({ connection: env.connection, namespace: env.namespace ?? 'default' }) };
}

/**
 * The time-skipping environment with a worker of this repository's workflows on a task queue of
 * its own, whose activities use a database of their own (dropped by `close`).
 */
export async function timeSkippingWorker(name: string, activities: (conn: mongoose.Connection, env: TestWorkflowEnvironment) => object) {
  const { env, client } = await timeSkippingEnvironment();
  const conn = await mongoose.createConnection(testConfig().mongo.uri!, { dbName: `${name.replace(/\W/g, '_')}_${randomUUID().slice(0, 8)}` }).asPromise();
  const taskQueue = `${name}-${randomUUID().slice(0, 6)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), activities: activities(conn, env) });
  const running = worker.run();
  return {
    env,
    client,
    conn,
    taskQueue,
    async close(): Promise<void> {
      worker.shutdown();
      await running;
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
      await env.teardown();
    },
  };
}
