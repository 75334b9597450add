/**
 * The worker process: one Temporal Worker per task queue, sharing one connection and one
 * workflow bundle. SIGTERM/SIGINT stop polling and let in-flight activities finish
 * (shutdownGraceTime) before the process exits.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, type LogLevel, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { loadConfigOrExit } from '../models/config';
import { createLogger } from '../models/infra/logger';
import { connectMongo } from '../models/infra/mongo';
import { createStorage, ensureBucket } from '../models/infra/storage';
import { TASK_QUEUES, taskQueueName } from '../workflows/ids';
import { billingRelayScheduleOptions, ensureQuizSchedule, ensureSchedule, newsDigestScheduleOptions, supportInboundRelayScheduleOptions, supportMailRelayScheduleOptions, webhookRelayScheduleOptions, whatsappRelayScheduleOptions } from './schedules';
import { selectQueues } from './queues';
import { ensurePollers } from '../operations/news/sources';
import { createSourceRepo } from '../models/news/sources/source.repo';
import { ensurePageRetention } from '../operations/news/pipeline';

async function retry<T>(what: string, fn: () => Promise<T>, log: (m: string) => void): Promise<T> {
  let delay = 250;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      log(`${what} not reachable yet (${(err as Error).message}); retrying`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger({ name: 'worker', level: config.logLevel });
  const pinoLevel: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => {
      logger[pinoLevel[entry.level]]({ ...entry.meta }, entry.message);
    }),
  });
  const queues = selectQueues(config.temporal.workerQueues);
  const warn = (m: string) => logger.warn(m);

  const mongo = connectMongo(config, (err) => warn(`MongoDB not reachable yet (${(err as Error).message})`));
  const storage = createStorage(config);
  await retry('MinIO', () => ensureBucket(storage, config.minio.region), warn);
  const conn = await mongo.ready;
  const connection = await retry('Temporal', () => NativeConnection.connect({ address: config.temporal.address }), warn);

  // Bundled once and shared by every queue's worker; production images ship a prebuilt bundle.
  const workflowBundle = config.temporal.workflowBundle
    ? { codePath: config.temporal.workflowBundle }
    : await bundleWorkflowCode({ workflowsPath: path.join(__dirname, '..', 'workflows'), logger: new DefaultLogger('WARN') });

  const workers = await Promise.all(
    queues.map((q) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueueName(config.temporal.taskQueuePrefix, q.queue),
        workflowBundle,
        activities: q.activities({ config, logger, conn, storage }),
        maxConcurrentActivityTaskExecutions: q.maxConcurrentActivities,
        maxConcurrentWorkflowTaskExecutions: q.maxConcurrentWorkflowTasks,
        shutdownGraceTime: '20 seconds',
        // Heartbeats reach the server at least every 2 s, so cancellations reach activities fast.
        maxHeartbeatThrottleInterval: '2 seconds',
      }),
    ),
  );
  logger.info({ queues: queues.map((q) => taskQueueName(config.temporal.taskQueuePrefix, q.queue)) }, 'worker polling');
  // The workers serving quiz generation keep its daily schedule in step with the configuration;
  // those serving billing keep the event relay's.
  const wantsQuiz = config.quiz.generation.scheduled && queues.some((q) => q.queue === TASK_QUEUES.quiz);
  const wantsRelay = config.billing.relayScheduled && queues.some((q) => q.queue === TASK_QUEUES.billing);
  const wantsWhatsAppRelay = config.whatsapp.relayScheduled && queues.some((q) => q.queue === TASK_QUEUES.whatsapp);
  const wantsMailRelay = config.support.mail.relayScheduled && queues.some((q) => q.queue === TASK_QUEUES.supportMail);
  const wantsDigest = config.news.digestScheduled && queues.some((q) => q.queue === TASK_QUEUES.notify);
  const wantsWebhookRelay = config.news.webhooks.relayScheduled && queues.some((q) => q.queue === TASK_QUEUES.webhooks);
  // The workers serving news sources keep every enabled source's poller running, and MinIO's
  // expiry of raw pages in step with the configuration.
  const wantsSources = queues.some((q) => q.queue === TASK_QUEUES.newsSources);
  if (wantsSources) await retry('MinIO lifecycle', () => ensurePageRetention(storage, config.news.fetch.rawPageRetentionDays), warn);
  if (wantsQuiz || wantsRelay || wantsWhatsAppRelay || wantsMailRelay || wantsDigest || wantsWebhookRelay || wantsSources) {
    const clientConnection = await Connection.connect({ address: config.temporal.address });
    const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
    try {
      if (wantsQuiz) {
        const outcome = await retry('Temporal schedules', () => ensureQuizSchedule(client, config), warn);
        logger.info({ schedule: outcome, at: config.quiz.generation }, 'quiz generation schedule ready');
      }
      if (wantsRelay) {
        const outcome = await retry('Temporal schedules', () => ensureSchedule(client, billingRelayScheduleOptions(config)), warn);
        logger.info({ schedule: outcome }, 'billing event relay schedule ready');
      }
      if (wantsWhatsAppRelay) {
        const outcome = await retry('Temporal schedules', () => ensureSchedule(client, whatsappRelayScheduleOptions(config)), warn);
        logger.info({ schedule: outcome }, 'whatsapp message relay schedule ready');
      }
      if (wantsMailRelay) {
        const outcome = await retry('Temporal schedules', () => ensureSchedule(client, supportMailRelayScheduleOptions(config)), warn);
        logger.info({ schedule: outcome }, 'support mail relay schedule ready');
        const inbound = await retry('Temporal schedules', () => ensureSchedule(client, supportInboundRelayScheduleOptions(config)), warn);
        logger.info({ schedule: inbound }, 'support inbound relay schedule ready');
      }
      if (wantsDigest) {
        const outcome = await retry('Temporal schedules', () => ensureSchedule(client, newsDigestScheduleOptions(config)), warn);
        logger.info({ schedule: outcome }, 'news digest schedule ready');
      }
      if (wantsWebhookRelay) {
        const outcome = await retry('Temporal schedules', () => ensureSchedule(client, webhookRelayScheduleOptions(config)), warn);
        logger.info({ schedule: outcome }, 'webhook fan-out relay schedule ready');
      }
      if (wantsSources) {
        const outcome = await retry('Temporal (source pollers)', () => ensurePollers({ sources: createSourceRepo(conn), temporal: { client }, taskQueuePrefix: config.temporal.taskQueuePrefix }), warn);
        logger.info(outcome, 'news source pollers running');
      }
    } finally {
      await clientConnection.close();
    }
  }
  try {
    // Runtime's default shutdown signals (SIGINT, SIGTERM…) make every run() resolve.
    await Promise.all(workers.map((w) => w.run()));
  } finally {
    await connection.close().catch(() => undefined);
    await mongo.close();
    logger.info('worker stopped');
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`worker failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
