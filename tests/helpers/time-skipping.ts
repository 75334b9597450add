/**
 * Temporal's time-skipping test server (the launcher `npm test` fetches), for tests of workflow
 * timing. With it, a plain client: runs awaited through it let the clock move only when the test
 * says (`env.sleep`); the environment's own client lets the server skip time while it waits, and
 * it then jumps to the farthest pending timer.
 */
import { WorkflowClient } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

export async function timeSkippingEnvironment(): Promise<{ env: TestWorkflowEnvironment; client: WorkflowClient }> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = process.env.TEMPORAL_TEST_SERVER_BIN;
  if (!server) throw new Error('TEMPORAL_TEST_SERVER_BIN is not set: run through npm test');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server } } });
  return { env, client: new WorkflowClient({ connection: env.connection, namespace: env.namespace ?? 'default' }) };
}
