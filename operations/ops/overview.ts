/**
 * The operations overview of the staff console (issue 38, item 6): each dependency's health, the
 * four services' /health, the workflow backlog, and links into the Temporal UI by business id.
 *
 * - Dependencies (MongoDB, Temporal, MinIO, SMTP) are probed in-process, each bounded by
 *   PROBE_TIMEOUT_MS; only an error's kind goes out (messages may carry hosts or credentials).
 * - The other services are asked for their public /health at their public address (the one their
 *   customers use); the dashboard's own is this process's. A service that does not answer is
 *   `unreachable`: it may be down, or not reachable from where the dashboard runs.
 * - The backlog is read from Temporal's visibility API: running workflows counted per workflow type
 *   (one count each: the server groups counts by execution status only), and per task queue the
 *   approximate backlog of workflow and activity tasks and the workers polling (DescribeTaskQueue
 *   with stats). About thirty calls, eight at a time, all within one deadline (TEMPORAL_BUDGET_MS):
 *   what did not answer in time is null, and Temporal down costs the overview that long, no more.
 * - The Temporal UI links are built from TEMPORAL_UI_URL (models/ops/temporal-ui.rules.ts).
 *
 * The result is shared for OVERVIEW_REUSE_MS by every caller of one process (`sharedOverview`), so
 * a console polling it, or many staff at once, cost the dependencies one overview at a time.
 */
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../../models/config';
import { businessIdQuery, queryLiteral, runningOfTypeQuery, workflowsLink } from '../../models/ops/temporal-ui.rules';
import { billingRelayScheduleId, newsDigestScheduleId, quizScheduleId, supportInboundRelayScheduleId, supportMailRelayScheduleId, TASK_QUEUES, taskQueueName, webhookRelayScheduleId, whatsappRelayScheduleId, type workflowIds } from '../../workflows/ids';

export const PROBE_TIMEOUT_MS = 2_000;
export const TEMPORAL_BUDGET_MS = 3_000;
export const TEMPORAL_CONCURRENCY = 8;
export const OVERVIEW_REUSE_MS = 2_000;

export type DependencyName = 'mongodb' | 'temporal' | 'minio' | 'smtp';
export const SERVICE_NAMES = ['news', 'support', 'quiz', 'web'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * A family of workflows whose ids carry a business key (workflows/ids.ts `workflowIds`), or the
 * runs of a schedule (`TemporalScheduledById`), with the query that finds them in the Temporal UI.
 */
export interface WorkflowFamily {
  /** The key in `workflowIds`, or `schedule:<name>`. */
  family: keyof typeof workflowIds | `schedule:${string}`;
  workflowType: string;
  /** What its ids look like. */
  idPattern: string;
  /** The start its ids share (null for a schedule's runs, found by the schedule instead). */
  idPrefix: string | null;
  taskQueue: string;
}

/** Every family of `workflowIds`, and the schedules' runs (tests/unit/ops-overview.test.ts holds the list to ids.ts). */
export function workflowFamilies(prefix: string): WorkflowFamily[] {
  const q = (queue: (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES]) => taskQueueName(prefix, queue);
  const byId = (family: keyof typeof workflowIds, workflowType: string, idPrefix: string, key: string, taskQueue: string): WorkflowFamily => ({
    family,
    workflowType,
    idPattern: `${idPrefix}${key}`,
    idPrefix,
    taskQueue,
  });
  return [
    byId('smoke', 'smokeWorkflow', 'smoke-', '<checkId>', q(TASK_QUEUES.ops)),
    byId('aiChat', 'aiChatWorkflow', 'ai-chat-', '<userId>-<requestId>', q(TASK_QUEUES.ai)),
    byId('ticketBulk', 'bulkTicketOperationWorkflow', 'ticket-bulk-', '<operationId>', q(TASK_QUEUES.support)),
    byId('ticketFastResponse', 'ticketFastResponseWorkflow', 'ticket-fast-response-', '<ticketId>-<runId>', q(TASK_QUEUES.support)),
    byId('supportMail', 'supportMailWorkflow', 'support-mail-', '<ticketId>-<messageId|ack>', q(TASK_QUEUES.supportMail)),
    byId('supportInbound', 'supportInboundMailWorkflow', 'support-inbound-', '<recordId>', q(TASK_QUEUES.supportMail)),
    byId('newsSource', 'newsSourceWorkflow', 'news-source-', '<sourceId>', q(TASK_QUEUES.newsSources)),
    byId('newsEnrich', 'newsEnrichWorkflow', 'news-enrich-', '<articleId>', q(TASK_QUEUES.newsSources)),
    byId('newsReenrich', 'newsReenrichWorkflow', 'news-reenrich-', '<operationId>', q(TASK_QUEUES.newsSources)),
    byId('newsImport', 'newsImportWorkflow', 'news-import-', '<importId>', q(TASK_QUEUES.news)),
    byId('quizGeneration', 'quizGenerationWorkflow', 'quiz-generation-', '<quizDate>', q(TASK_QUEUES.quiz)),
    byId('quizGenerationDay', 'quizDailyWorkflow', 'quiz-daily-manual-', '<date>', q(TASK_QUEUES.quiz)),
    byId('subscription', 'subscriptionWorkflow', 'subscription-', '<stripeCustomerId>', q(TASK_QUEUES.billing)),
    byId('whatsappConversation', 'whatsappConversationWorkflow', 'whatsapp-', '<phone>', q(TASK_QUEUES.whatsapp)),
    byId('whatsappAlerts', 'whatsappAlertsWorkflow', 'whatsapp-alerts-', '<articleId>', q(TASK_QUEUES.whatsapp)),
    byId('newsAlerts', 'newsAlertsWorkflow', 'news-alerts-', '<articleId>', q(TASK_QUEUES.notify)),
    byId('newsDigestManual', 'newsDigestWorkflow', 'news-digest-manual-', '<slot>', q(TASK_QUEUES.notify)),
    byId('webhookFanOut', 'webhookFanOutWorkflow', 'webhook-fanout-', '<eventKey>', q(TASK_QUEUES.webhooks)),
    byId('webhookMessage', 'webhookMessageWorkflow', 'webhook-message-', '<msgId>', q(TASK_QUEUES.webhooks)),
    byId('webhookReplay', 'webhookMessageWorkflow', 'webhook-replay-', '<msgId>-<replayId>', q(TASK_QUEUES.webhooks)),
    { family: 'schedule:quiz-daily-generation', workflowType: 'quizDailyWorkflow', idPattern: `${quizScheduleId(prefix)} runs: ${prefix}quiz-daily-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.quiz) },
    { family: 'schedule:billing-event-relay', workflowType: 'billingRelayWorkflow', idPattern: `${billingRelayScheduleId(prefix)} runs: ${prefix}billing-event-relay-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.billing) },
    { family: 'schedule:support-mail-relay', workflowType: 'supportMailRelayWorkflow', idPattern: `${supportMailRelayScheduleId(prefix)} runs: ${prefix}support-mail-relay-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.supportMail) },
    { family: 'schedule:support-inbound-relay', workflowType: 'supportInboundRelayWorkflow', idPattern: `${supportInboundRelayScheduleId(prefix)} runs: ${prefix}support-inbound-relay-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.supportMail) },
    { family: 'schedule:news-digest', workflowType: 'newsDigestWorkflow', idPattern: `${newsDigestScheduleId(prefix)} runs: ${prefix}news-digest-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.notify) },
    { family: 'schedule:webhook-fanout-relay', workflowType: 'webhookRelayWorkflow', idPattern: `${webhookRelayScheduleId(prefix)} runs: ${prefix}webhook-fanout-relay-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.webhooks) },
    { family: 'schedule:whatsapp-message-relay', workflowType: 'whatsappRelayWorkflow', idPattern: `${whatsappRelayScheduleId(prefix)} runs: ${prefix}whatsapp-message-relay-<scheduled time>`, idPrefix: null, taskQueue: q(TASK_QUEUES.whatsapp) },
  ];
}

const SCHEDULE_IDS: Record<string, (prefix: string) => string> = {
  'schedule:quiz-daily-generation': quizScheduleId,
  'schedule:billing-event-relay': billingRelayScheduleId,
  'schedule:whatsapp-message-relay': whatsappRelayScheduleId,
  'schedule:support-mail-relay': supportMailRelayScheduleId,
  'schedule:support-inbound-relay': supportInboundRelayScheduleId,
  'schedule:news-digest': newsDigestScheduleId,
  'schedule:webhook-fanout-relay': webhookRelayScheduleId,
};

/** Registered workflow types no family starts any more, still counted (workflows/index.ts: kept so old runs finish). */
export const DEPRECATED_WORKFLOW_TYPES = ['newsIngestWorkflow'] as const;

/** Every workflow type the worker registers, each once, in the families' order. */
export const workflowTypes = (prefix = ''): string[] => [...new Set([...workflowFamilies(prefix).map((f) => f.workflowType), ...DEPRECATED_WORKFLOW_TYPES])];

/** The query of one family's workflows (the deployment's task queue too, when a prefix sets deployments apart). */
export function familyQuery(f: WorkflowFamily, prefix: string): string {
  const scheduleId = SCHEDULE_IDS[f.family];
  const base = scheduleId ? `\`TemporalScheduledById\` = ${queryLiteral(scheduleId(prefix))}` : businessIdQuery(f.idPrefix ?? '', f.workflowType);
  return prefix ? `${base} AND \`TaskQueue\` = ${queryLiteral(f.taskQueue)}` : base;
}

/** One dependency probe: resolves when the dependency answers. */
export interface DependencyCheck {
  name: DependencyName;
  check: () => Promise<void>;
}

/** The answer of a fetch the overview reads (`fetch`'s, narrowed). */
export interface HealthAnswer {
  status: number;
  json(): Promise<unknown>;
}

export interface OpsOverviewDeps {
  checks: DependencyCheck[];
  /** The other services' addresses (their /health is asked); the dashboard's own health is `checks`'. */
  services: { name: Exclude<ServiceName, 'web'>; url: string }[];
  fetch: (url: string, init: { signal: AbortSignal; redirect: 'manual'; headers: Record<string, string> }) => Promise<HealthAnswer>;
  temporal: { client: { workflow: Pick<Client['workflow'], 'count'>; workflowService: Pick<Client['workflowService'], 'describeTaskQueue'> }; connection: Pick<Connection, 'withDeadline'> };
  config: { temporal: Pick<Config['temporal'], 'namespace' | 'uiUrl' | 'taskQueuePrefix'>; web: Pick<Config['web'], 'url'> };
  now?: () => Date;
}

export interface DependencyHealth {
  name: DependencyName;
  status: 'up' | 'down';
  latencyMs: number;
  error: string | null;
}

export interface ServiceHealth {
  name: ServiceName;
  url: string;
  status: 'up' | 'degraded' | 'unreachable';
  httpStatus: number | null;
  latencyMs: number | null;
  /** The dependencies the service said were down. */
  down: string[];
  error: string | null;
}

export interface QueueBacklog {
  name: string;
  workflowTasks: number | null;
  activityTasks: number | null;
  workflowPollers: number | null;
  activityPollers: number | null;
  /** How long the oldest workflow or activity task has waited. */
  oldestTaskAgeMs: number | null;
}

export interface OpsOverview {
  generatedAt: Date;
  dependencies: DependencyHealth[];
  services: ServiceHealth[];
  backlog: {
    /** Running workflows of this deployment's task queues; null when Temporal did not answer in time. */
    running: number | null;
    byWorkflowType: { workflowType: string; running: number | null; temporalUiUrl: string }[];
    taskQueues: QueueBacklog[];
    /** Why some counts are null (the kind of error), or null when all answered. */
    error: string | null;
  };
  workflowFamilies: (WorkflowFamily & { query: string; temporalUiUrl: string })[];
  temporalUi: { url: string; namespace: string };
}

/** An error's kind, never its message. */
export function errorKind(err: unknown): string {
  const grpc = (err as { code?: unknown }).code ?? ((err as { cause?: { code?: unknown } }).cause?.code);
  if (grpc === 14) return 'UNAVAILABLE';
  if (grpc === 4) return 'DEADLINE_EXCEEDED';
  if (typeof grpc === 'string' && /^[A-Z0-9_]{1,40}$/.test(grpc)) return grpc;
  const name = (err as { name?: unknown }).name;
  return typeof name === 'string' && /^[A-Za-z0-9_]{1,60}$/.test(name) ? name : 'Error';
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer within ${ms} ms`), { name: 'TimeoutError' })), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function probe(check: DependencyCheck): Promise<DependencyHealth> {
  const started = performance.now();
  try {
    await withTimeout(check.check(), PROBE_TIMEOUT_MS, check.name);
    return { name: check.name, status: 'up', latencyMs: Math.round(performance.now() - started), error: null };
  } catch (err) {
    return { name: check.name, status: 'down', latencyMs: Math.round(performance.now() - started), error: errorKind(err) };
  }
}

const DEPENDENCY_NAME = /^[a-z0-9_-]{1,32}$/;

/** The dependencies a /health body says are down (`data.checks.<name>.status`), bounded. */
function downIn(body: unknown): string[] {
  const checks = (body as { data?: { checks?: unknown } } | null)?.data?.checks;
  if (!checks || typeof checks !== 'object') return [];
  return Object.entries(checks as Record<string, { status?: unknown }>)
    .filter(([name, c]) => DEPENDENCY_NAME.test(name) && c?.status === 'down')
    .map(([name]) => name)
    .slice(0, 10);
}

async function serviceHealth(deps: OpsOverviewDeps, service: OpsOverviewDeps['services'][number]): Promise<ServiceHealth> {
  const url = `${service.url.replace(/\/+$/, '')}/health`;
  const started = performance.now();
  try {
    const answer = await deps.fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'manual', headers: { accept: 'application/json' } });
    const latencyMs = Math.round(performance.now() - started);
    const body = await withTimeout(answer.json(), PROBE_TIMEOUT_MS, 'health body').catch(() => null);
    const status = answer.status === 200 ? 'up' : answer.status === 503 ? 'degraded' : 'unreachable';
    return { name: service.name, url, status, httpStatus: answer.status, latencyMs, down: downIn(body), error: status === 'unreachable' ? `HTTP ${answer.status}` : null };
  } catch (err) {
    return { name: service.name, url, status: 'unreachable', httpStatus: null, latencyMs: null, down: [], error: errorKind(err) };
  }
}

/** Runs `tasks` at most `limit` at a time. */
async function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A protobuf int64 (Long, number or string) as a number, or null. */
function int64(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(typeof value === 'object' ? String(value) : value);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** A protobuf Duration as milliseconds, or null. */
function durationMs(value: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null {
  if (!value) return null;
  const seconds = int64(value.seconds ?? 0);
  if (seconds === null) return null;
  return seconds * 1_000 + Math.round((value.nanos ?? 0) / 1e6);
}

async function temporalBacklog(deps: OpsOverviewDeps): Promise<OpsOverview['backlog']> {
  const { namespace, uiUrl, taskQueuePrefix: prefix } = deps.config.temporal;
  const deadline = Date.now() + TEMPORAL_BUDGET_MS;
  const errors: string[] = [];
  const ask = async <T>(call: () => Promise<T>): Promise<T | null> => {
    try {
      // The deadline bounds the call; the timer bounds the wait for it too (a first call on a lazy
      // connection to an unreachable server was seen to take 5 s with a 3 s deadline).
      return await withTimeout(deps.temporal.connection.withDeadline(deadline, call), Math.max(0, deadline - Date.now()) + 100, 'temporal');
    } catch (err) {
      errors.push(errorKind(err));
      return null;
    }
  };
  const queues = Object.values(TASK_QUEUES).map((q) => taskQueueName(prefix, q));
  // This deployment's workflows: those of its task queues, when a prefix sets deployments apart in one namespace.
  const ours = prefix ? ` AND \`TaskQueue\` IN (${queues.map(queryLiteral).join(', ')})` : '';
  const count = (query: string) => () => ask(async () => (await deps.temporal.client.workflow.count(query)).count);
  const types = workflowTypes(prefix);
  const describe = (name: string, taskQueueType: 1 | 2) => () =>
    ask(async () => {
      const r = await deps.temporal.client.workflowService.describeTaskQueue({ namespace, taskQueue: { name }, taskQueueType, reportStats: true });
      return { backlog: int64(r.stats?.approximateBacklogCount ?? 0), pollers: r.pollers?.length ?? 0, ageMs: durationMs(r.stats?.approximateBacklogAge) };
    });
  // 1 = TASK_QUEUE_TYPE_WORKFLOW, 2 = TASK_QUEUE_TYPE_ACTIVITY.
  const tasks: (() => Promise<unknown>)[] = [
    count(`\`ExecutionStatus\` = "Running"${ours}`),
    ...types.map((t) => count(`${runningOfTypeQuery(t)}${ours}`)),
    ...queues.flatMap((name) => [describe(name, 1), describe(name, 2)]),
  ];
  const answers = await pooled(tasks, TEMPORAL_CONCURRENCY);
  const running = answers[0] as number | null;
  const byType = answers.slice(1, 1 + types.length) as (number | null)[];
  const described = answers.slice(1 + types.length) as ({ backlog: number | null; pollers: number; ageMs: number | null } | null)[];
  return {
    running,
    byWorkflowType: types.map((workflowType, i) => ({ workflowType, running: byType[i] ?? null, temporalUiUrl: workflowsLink(uiUrl, namespace, `${runningOfTypeQuery(workflowType)}${ours}`) })),
    taskQueues: queues.map((name, i) => {
      const wf = described[2 * i] ?? null;
      const act = described[2 * i + 1] ?? null;
      const ages = [wf?.ageMs, act?.ageMs].filter((a): a is number => typeof a === 'number');
      return {
        name,
        workflowTasks: wf?.backlog ?? null,
        activityTasks: act?.backlog ?? null,
        workflowPollers: wf ? wf.pollers : null,
        activityPollers: act ? act.pollers : null,
        oldestTaskAgeMs: ages.length ? Math.max(...ages) : null,
      };
    }),
    error: errors.length ? [...new Set(errors)].join(', ').slice(0, 200) : null,
  };
}

/** The overview, read now. */
export async function opsOverview(deps: OpsOverviewDeps): Promise<OpsOverview> {
  const { namespace, uiUrl, taskQueuePrefix: prefix } = deps.config.temporal;
  const [dependencies, services, backlog] = await Promise.all([
    Promise.all(deps.checks.map(probe)),
    Promise.all(deps.services.map((s) => serviceHealth(deps, s))),
    temporalBacklog(deps),
  ]);
  // The dashboard answers this request: its /health is its own dependencies' (those /health checks).
  const ownDown = dependencies.filter((d) => d.status === 'down' && d.name !== 'smtp').map((d) => d.name);
  const web: ServiceHealth = {
    name: 'web',
    url: `${deps.config.web.url.replace(/\/+$/, '')}/health`,
    status: ownDown.length ? 'degraded' : 'up',
    httpStatus: ownDown.length ? 503 : 200,
    latencyMs: null,
    down: ownDown,
    error: null,
  };
  return {
    generatedAt: (deps.now ?? (() => new Date()))(),
    dependencies,
    services: [...services, web],
    backlog,
    workflowFamilies: workflowFamilies(prefix).map((f) => {
      const query = familyQuery(f, prefix);
      return { ...f, query, temporalUiUrl: workflowsLink(uiUrl, namespace, query) };
    }),
    temporalUi: { url: uiUrl, namespace },
  };
}

/**
 * `read` shared by its callers: those during a read get it, and so do those within `reuseMs` of its
 * end. A console polling, or many staff at once, cost one overview at a time.
 */
export function sharedOverview<T>(read: () => Promise<T>, reuseMs: number = OVERVIEW_REUSE_MS, now: () => number = () => performance.now()): () => Promise<T> {
  let last: { endedAt: number; value: T } | undefined;
  let running: Promise<T> | undefined;
  return async () => {
    if (last && now() - last.endedAt < reuseMs) return last.value;
    running ??= read().then(
      (value) => {
        last = { endedAt: now(), value };
        running = undefined;
        return value;
      },
      (err: unknown) => {
        running = undefined;
        throw err;
      },
    );
    return await running;
  };
}
