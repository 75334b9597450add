/**
 * The task queues this codebase serves, each with the activities its workflows need. One queue per
 * kind of work, so each can be scaled (WORKER_QUEUES) and throttled on its own.
 */
import type { Connection } from 'mongoose';
import { createAiActivities } from '../activities/ai.activities';
import { createOpsActivities } from '../activities/ops.activities';
import { createNewsActivities } from '../activities/news.activities';
import { createSupportActivities } from '../activities/support.activities';
import { createSupportInboundActivities, createSupportInboundRelayActivities, createSupportMailActivities, createSupportMailRelayActivities } from '../activities/support-mail.activities';
import { createQuizActivities } from '../activities/quiz.activities';
import { createBillingActivities } from '../activities/billing.activities';
import { createWhatsAppActivities } from '../activities/whatsapp.activities';
import { createNotifyActivities } from '../activities/notify.activities';
import { createWebhookActivities } from '../activities/webhooks.activities';
import { createBillingRelayActivities, createWhatsAppRelayActivities } from '../activities/relay.activities';
import { createStripe } from '../models/infra/stripe';
import { createLlmClient } from '../models/infra/llm';
import { createOutbound } from '../models/infra/outbound';
import { createLeases, hostSlotsFrom } from '../models/infra/leases';
import { createPoliteFetcher } from '../models/infra/polite-fetch';
import type { Config } from '../models/config';
import type { Logger } from '../models/infra/logger';
import type { Storage } from '../models/infra/storage';
import { TASK_QUEUES, type TaskQueue } from '../workflows/ids';

export interface WorkerDeps {
  config: Config;
  logger: Logger;
  conn: Connection;
  storage: Storage;
}

export interface QueueDefinition {
  queue: TaskQueue;
  activities: (deps: WorkerDeps) => object;
  /** Concurrency sized for a 2-core machine; I/O-bound activities can run many at once. */
  maxConcurrentActivities: number;
  maxConcurrentWorkflowTasks: number;
}

export const QUEUES: QueueDefinition[] = [
  {
    queue: TASK_QUEUES.ops,
    activities: (d) => createOpsActivities({ conn: d.conn, storage: d.storage }),
    maxConcurrentActivities: 10,
    maxConcurrentWorkflowTasks: 10,
  },
  {
    queue: TASK_QUEUES.ai,
    activities: (d) =>
      createAiActivities({
        conn: d.conn,
        llm: createLlmClient(d.config),
        outbound: createOutbound(d.config),
        mcpStdioProviders: d.config.ai.mcpStdioProviders,
      }),
    // Model calls wait on the network, not the CPU.
    maxConcurrentActivities: 50,
    maxConcurrentWorkflowTasks: 20,
  },
  {
    queue: TASK_QUEUES.support,
    activities: (d) =>
      createSupportActivities({
        conn: d.conn,
        llm: createLlmClient(d.config),
        model: d.config.ai.models.mini,
        mail: { taskQueuePrefix: d.config.temporal.taskQueuePrefix, sendDelayMs: d.config.support.mail.sendDelayMs },
      }),
    // Bulk chunks are database-bound: a few at a time keep FerretDB/MongoDB responsive for the APIs.
    maxConcurrentActivities: 4,
    maxConcurrentWorkflowTasks: 10,
  },
  {
    queue: TASK_QUEUES.supportMail,
    activities: (d) => ({
      ...createSupportMailActivities({ conn: d.conn, storage: d.storage, config: d.config }),
      ...createSupportMailRelayActivities({ conn: d.conn, config: d.config }),
      ...createSupportInboundActivities({ conn: d.conn, storage: d.storage, config: d.config }),
      ...createSupportInboundRelayActivities({ conn: d.conn, config: d.config }),
    }),
    // Handing a mail to SMTP waits on the network; the mailer pools 3 connections.
    maxConcurrentActivities: 10,
    maxConcurrentWorkflowTasks: 10,
  },
  {
    queue: TASK_QUEUES.news,
    activities: (d) => createNewsActivities({ conn: d.conn, storage: d.storage, whatsappEnabled: d.config.whatsapp.api !== undefined, taskQueuePrefix: d.config.temporal.taskQueuePrefix }),
    // Imports run side by side (the unique source-URL index decides duplicates); two at a time
    // per worker keep the database responsive for the APIs.
    maxConcurrentActivities: 2,
    maxConcurrentWorkflowTasks: 5,
  },
  {
    queue: TASK_QUEUES.newsSources,
    activities: (d) => {
      const leases = createLeases(d.conn);
      const f = d.config.news.fetch;
      return createNewsActivities({
        conn: d.conn,
        storage: d.storage,
        whatsappEnabled: d.config.whatsapp.api !== undefined,
        fetcher: createPoliteFetcher({ userAgent: f.userAgent, timeoutMs: f.timeoutMs, maxBytes: f.maxBytes, allowHosts: f.allowHosts, hostSlots: hostSlotsFrom(leases, f.hostConcurrency) }),
        llm: createLlmClient(d.config),
        leases,
        config: d.config,
        taskQueuePrefix: d.config.temporal.taskQueuePrefix,
      });
    },
    // Feed polls, page reads and model calls wait on the network. Each site's requests are limited
    // across workers (NEWS_HOST_CONCURRENCY), model calls too (NEWS_ENRICH_CONCURRENCY).
    maxConcurrentActivities: 20,
    maxConcurrentWorkflowTasks: 20,
  },
  {
    queue: TASK_QUEUES.quiz,
    activities: (d) => createQuizActivities({ conn: d.conn, llm: createLlmClient(d.config), model: d.config.quiz.model }),
    // A few quizzes a day; model calls wait on the network.
    maxConcurrentActivities: 10,
    maxConcurrentWorkflowTasks: 10,
  },
  {
    queue: TASK_QUEUES.billing,
    activities: (d) => ({
      ...createBillingActivities({ conn: d.conn, stripe: createStripe(d.config), prices: d.config.billing.prices }),
      ...createBillingRelayActivities({ conn: d.conn, config: d.config }),
    }),
    // Webhook bursts: many customers' workflows at once, each a small database write.
    maxConcurrentActivities: 20,
    maxConcurrentWorkflowTasks: 20,
  },
  {
    queue: TASK_QUEUES.notify,
    activities: (d) => createNotifyActivities({ conn: d.conn, config: d.config }),
    // Alerts wait on the mail server and the Cloud API; pages of readers are small reads.
    maxConcurrentActivities: 10,
    maxConcurrentWorkflowTasks: 10,
  },
  {
    queue: TASK_QUEUES.webhooks,
    activities: (d) => createWebhookActivities({ conn: d.conn, config: d.config }),
    // Each attempt waits on a customer's endpoint (up to the sender's timeout): many at once.
    maxConcurrentActivities: 50,
    maxConcurrentWorkflowTasks: 20,
  },
  {
    queue: TASK_QUEUES.whatsapp,
    activities: (d) => ({
      ...createWhatsAppActivities({ conn: d.conn, config: d.config, codeSecret: d.config.whatsapp.appSecret ?? d.config.auth.jwtSecret }),
      ...createWhatsAppRelayActivities({ conn: d.conn, config: d.config }),
    }),
    // Many conversations at once, each waiting on the Cloud API or a small database read.
    maxConcurrentActivities: 30,
    maxConcurrentWorkflowTasks: 20,
  },
];

export function selectQueues(requested: string[] | undefined): QueueDefinition[] {
  if (!requested?.length) return QUEUES;
  const unknown = requested.filter((q) => !QUEUES.some((d) => d.queue === q));
  if (unknown.length) {
    throw new Error(`WORKER_QUEUES names unknown task queues: ${unknown.join(', ')} (known: ${QUEUES.map((q) => q.queue).join(', ')})`);
  }
  return QUEUES.filter((d) => requested.includes(d.queue));
}
