/**
 * Temporal's time-skipping test server (the launcher `npm test` fetches), for tests of workflow
 * timing. With it, a plain client: runs awaited through it let the clock move only when the test
 * says (`env.sleep`); the environment's own client lets the server skip time while it waits, and
 * it then jumps to the farthest pending timer.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowClient, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import mongoose from 'mongoose';
import { testConfig } from './service';

/**
 * The SDK's core waits 5 s for the test server to accept connections (a constant of
 * sdk-core's ephemeral_server); the server is a JVM, and on a loaded machine its start-up takes
 * longer (CI saw a whole file fail "did not start within 5s" with load average 15). A start that
 * timed out is tried again, up to three times; any other failure is not.
 */
async function startTimeSkipping(server: string): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server } } });
    } catch (err) {
      if (attempt >= 3 || !/did not start within/.test((err as Error).message)) throw err;
    }
  }
}

/** The SDK's runtime is installed once per test file (a second environment of the file shares it). */
let runtimeInstalled = false;

export async function timeSkippingEnvironment(): Promise<{ env: TestWorkflowEnvironment; client: WorkflowClient }> {
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
  const server = process.env.TEMPORAL_TEST_SERVER_BIN;
  if (!server) throw new Error('TEMPORAL_TEST_SERVER_BIN is not set: run through npm test');
  const env = await startTimeSkipping(server);
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

/** This repository's workflows (workflows/index.ts) bundled once: bundling takes seconds, a worker on a bundle does not. */
export async function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
}

/**
 * One test environment and one workflow bundle for a test file (set up before its tests, torn
 * down after): `suite.env`, `suite.client` (its workflow client, which on the time-skipping server
 * lets it skip time while a test waits on a result), `suite.bundle`.
 *
 * The time-skipping server unless `server: 'dev'`: the stack's Temporal dev server, for workflow
 * behaviour that needs no clock but must be what a real server does. Continue-as-new is one: the
 * Java test server does not make it atomic (temporalio/sdk-java#1537), and a signal meeting it
 * there was seen to stall a test in CI.
 */
export function workflowSuite(options: { server?: 'time-skipping' | 'dev' } = {}): { env: TestWorkflowEnvironment; client: TestWorkflowEnvironment['client']['workflow']; bundle: WorkflowBundleWithSourceMap } {
  const suite = {} as ReturnType<typeof workflowSuite>;
  beforeAll(async () => {
    if (options.server === 'dev') {
      const config = testConfig();
      suite.env = await TestWorkflowEnvironment.createFromExistingServer({ address: config.temporal.address, namespace: config.temporal.namespace });
    } else {
      ({ env: suite.env } = await timeSkippingEnvironment());
    }
    suite.client = suite.env.client.workflow;
    suite.bundle = await workflowBundle();
  }, 120_000);
  afterAll(async () => {
    // A test that timed out leaves its worker polling (its run never finished): stopped here, or
    // the connection cannot close and the worker keeps Jest's process alive after the last test.
    await stopWorkers();
    await suite.env?.teardown();
  });
  return suite;
}

/**
 * A worker of this repository's workflows whose activities are the given functions (mocks: no
 * database, storage or provider), on a task queue of its own unless one is named (`worker`: other
 * worker options, e.g. a short maxHeartbeatThrottleInterval so a cancellation reaches a heartbeating
 * activity at once). `run` keeps it polling while the given function runs, then shuts it down
 * (Worker.runUntil).
 */
export async function mockedActivitiesWorker(
  env: TestWorkflowEnvironment,
  activities: object,
  options: { bundle: WorkflowBundleWithSourceMap; taskQueue?: string; worker?: Partial<Omit<WorkerOptions, 'connection' | 'taskQueue' | 'activities'>> },
): Promise<{ taskQueue: string; worker: Worker; run: <R>(fn: () => Promise<R>) => Promise<R> }> {
  const taskQueue = options.taskQueue ?? `mocked-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowBundle: options.bundle, activities, ...options.worker });
  return {
    taskQueue,
    worker,
    run: (fn) => {
      const running = worker.runUntil(fn);
      const stopped = running.then(() => undefined, () => undefined);
      started.set(worker, stopped);
      void stopped.then(() => started.delete(worker));
      return running;
    },
  };
}

/** The mocked workers running, and when each has stopped. */
const started = new Map<Worker, Promise<void>>();

/** Stops every mocked worker still running and waits until each has. */
async function stopWorkers(): Promise<void> {
  for (const [worker, stopped] of started) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await stopped;
  }
}

/**
 * Waits (in real time, at most 10 s) until a workflow has no workflow task or activity in flight.
 * Terminate a long-lived workflow only then: seen with the 1.38 test server, a workflow terminated
 * while a task of it was in flight left time skipping locked, so every later `env.sleep` of the
 * file waited in real time (days: the test timed out).
 */
export async function quiescent(handle: WorkflowHandle): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.workflowTaskScheduledEventAttributes).length;
    const ended = events.filter((e) => e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes).length;
    const { raw } = await handle.describe();
    if ((scheduled === ended && (raw.pendingActivities ?? []).length === 0) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `fn` with the worker polling, then terminates the workflow (a long-lived one never ends by
 * itself) once it has nothing in flight (see `quiescent`).
 */
export async function runThenTerminate(worker: { run: <R>(fn: () => Promise<R>) => Promise<R> }, handle: WorkflowHandle, fn: () => Promise<void>): Promise<void> {
  await worker.run(async () => {
    try {
      await fn();
    } finally {
      await quiescent(handle).catch(() => undefined);
      await handle.terminate('test over').catch(() => undefined);
    }
  });
}

/**
 * Polls (in real time; a time-skipping server's clock stands still meanwhile) until `ok` holds of
 * what `read` gives, at most `timeoutMs`; returns the last value, for the test to assert on.
 */
export async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}
