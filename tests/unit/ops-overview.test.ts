/**
 * The operations overview (operations/ops/overview.ts) with fakes of its probes, of the services'
 * /health and of Temporal's visibility and task-queue calls; the families of workflows held to
 * workflows/ids.ts and to the types the worker registers. tests/integration/web-ops-overview.test.ts
 * reads it from the real stack.
 */
import { TASK_QUEUES, workflowIds } from '../../workflows/ids';
import * as registered from '../../workflows';
import {
  familyQuery,
  opsOverview,
  PROBE_TIMEOUT_MS,
  sharedOverview,
  TEMPORAL_CONCURRENCY,
  workflowFamilies,
  workflowTypes,
  type HealthAnswer,
  type OpsOverviewDeps,
} from '../../operations/ops/overview';

/** A sample call of each workflowIds function. */
const SAMPLES: Record<keyof typeof workflowIds, () => string> = {
  smoke: () => workflowIds.smoke('c1'),
  aiChat: () => workflowIds.aiChat('u1', 'r1'),
  ticketBulk: () => workflowIds.ticketBulk('op1'),
  ticketFastResponse: () => workflowIds.ticketFastResponse(42, 'r1'),
  supportMail: () => workflowIds.supportMail(42, 7),
  supportInbound: () => workflowIds.supportInbound('0b6f4e0c-2b1a-4d8e-9c61-3f2a1b7d9e10'),
  newsSource: () => workflowIds.newsSource('s1'),
  newsEnrich: () => workflowIds.newsEnrich('a1'),
  newsReenrich: () => workflowIds.newsReenrich('op1'),
  newsImport: () => workflowIds.newsImport('i1'),
  quizGeneration: () => workflowIds.quizGeneration('2031-03-04-night'),
  quizGenerationDay: () => workflowIds.quizGenerationDay('2031-03-04'),
  subscription: () => workflowIds.subscription('cus_1'),
  whatsappConversation: () => workflowIds.whatsappConversation('5511999990000'),
  whatsappAlerts: () => workflowIds.whatsappAlerts('a1'),
  newsAlerts: () => workflowIds.newsAlerts('a1'),
  newsDigestManual: () => workflowIds.newsDigestManual('2031-03-04T10:00:00.000Z'),
  webhookFanOut: () => workflowIds.webhookFanOut('article:a1'),
  webhookMessage: () => workflowIds.webhookMessage('msg_AAAAAAAAAAAAAAAAAAAAAA'),
  webhookReplay: () => workflowIds.webhookReplay('msg_AAAAAAAAAAAAAAAAAAAAAA', 'r1'),
};

describe('the families of workflows', () => {
  it('name every family of workflows/ids.ts, each by the start its ids really have', () => {
    const families = workflowFamilies('');
    expect(families.filter((f) => !f.family.startsWith('schedule:')).map((f) => f.family).sort()).toEqual(Object.keys(workflowIds).sort());
    for (const f of families.filter((x) => x.idPrefix !== null)) {
      expect(SAMPLES[f.family as keyof typeof workflowIds]!()).toMatch(new RegExp(`^${f.idPrefix!.replace(/[-]/g, '\\-')}`));
    }
  });

  it('count every workflow type the worker registers', () => {
    expect(new Set(workflowTypes())).toEqual(new Set(Object.keys(registered)));
  });

  it("find a family by its ids' start and type, a schedule's runs by the schedule, and a deployment's by its task queue", () => {
    const [bulk] = workflowFamilies('').filter((f) => f.family === 'ticketBulk');
    expect(familyQuery(bulk!, '')).toBe('`WorkflowId` STARTS_WITH "ticket-bulk-" AND `WorkflowType` = "bulkTicketOperationWorkflow"');
    const [quiz] = workflowFamilies('p-').filter((f) => f.family === 'schedule:quiz-daily-generation');
    expect(familyQuery(quiz!, 'p-')).toBe('`TemporalScheduledById` = "p-quiz-daily-generation" AND `TaskQueue` = "p-quiz-generation"');
  });
});

type DescribeArgs = { taskQueue: { name: string }; taskQueueType: number; reportStats: boolean };

/** Fakes of every port: what each dependency, service and Temporal call answers, and what was asked. */
function fakes(o: {
  check?: Partial<Record<'mongodb' | 'temporal' | 'minio' | 'smtp', () => Promise<void>>>;
  health?: Partial<Record<string, () => Promise<HealthAnswer>>>;
  count?: (query: string) => Promise<{ count: number }>;
  describe?: (args: DescribeArgs) => Promise<unknown>;
  prefix?: string;
} = {}) {
  const queries: string[] = [];
  const described: DescribeArgs[] = [];
  const deadlines: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const tracked = async <T>(work: () => Promise<T>): Promise<T> => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((r) => setImmediate(r));
      return await work();
    } finally {
      inFlight -= 1;
    }
  };
  const up = async () => undefined;
  const deps: OpsOverviewDeps = {
    checks: (['mongodb', 'temporal', 'minio', 'smtp'] as const).map((name) => ({ name, check: o.check?.[name] ?? up })),
    services: [
      { name: 'news', url: 'http://news.test/' },
      { name: 'support', url: 'http://support.test' },
      { name: 'quiz', url: 'http://quiz.test' },
    ],
    fetch: async (url) => {
      const answer = o.health?.[new URL(url).host];
      if (answer) return await answer();
      return { status: 200, json: async () => ({ success: true, data: { status: 'ok', checks: { mongodb: { status: 'up' } } } }) };
    },
    temporal: {
      client: {
        workflow: {
          count: ((query: string) =>
            tracked(async () => {
              queries.push(query);
              return await (o.count ?? (async () => ({ count: 2, groups: [] })))(query);
            })) as never,
        },
        workflowService: {
          describeTaskQueue: ((args: DescribeArgs) =>
            tracked(async () => {
              described.push(args);
              return await (o.describe ?? (async () => ({ stats: { approximateBacklogCount: { toString: () => '5' }, approximateBacklogAge: { seconds: 1, nanos: 500_000_000 } }, pollers: [{}, {}] })))(args);
            })) as never,
        },
      },
      connection: {
        withDeadline: (async (deadline: number, fn: () => Promise<unknown>) => {
          deadlines.push(deadline);
          return await fn();
        }) as never,
      },
    },
    config: { temporal: { namespace: 'default', uiUrl: 'http://ui.test', taskQueuePrefix: o.prefix ?? '' }, web: { url: 'http://dash.test' } },
    now: () => new Date('2031-03-04T10:00:00Z'),
  };
  return { deps, queries, described, deadlines, maxInFlight: () => maxInFlight };
}

describe('the overview', () => {
  it('gives each dependency, each service, the backlog per type and queue, and a Temporal UI link per family', async () => {
    const f = fakes();
    const o = await opsOverview(f.deps);
    expect(o.generatedAt).toEqual(new Date('2031-03-04T10:00:00Z'));
    expect(o.dependencies.map((d) => [d.name, d.status, d.error])).toEqual([
      ['mongodb', 'up', null],
      ['temporal', 'up', null],
      ['minio', 'up', null],
      ['smtp', 'up', null],
    ]);
    expect(o.services).toEqual([
      expect.objectContaining({ name: 'news', url: 'http://news.test/health', status: 'up', httpStatus: 200, down: [] }),
      expect.objectContaining({ name: 'support', status: 'up' }),
      expect.objectContaining({ name: 'quiz', status: 'up' }),
      { name: 'web', url: 'http://dash.test/health', status: 'up', httpStatus: 200, latencyMs: null, down: [], error: null },
    ]);
    expect(o.backlog.running).toBe(2);
    expect(o.backlog.error).toBeNull();
    expect(o.backlog.byWorkflowType.map((t) => t.workflowType)).toEqual(workflowTypes());
    expect(o.backlog.byWorkflowType.every((t) => t.running === 2)).toBe(true);
    expect(o.backlog.byWorkflowType.find((t) => t.workflowType === 'newsSourceWorkflow')!.temporalUiUrl).toBe(
      `http://ui.test/namespaces/default/workflows?query=${encodeURIComponent('`WorkflowType` = "newsSourceWorkflow" AND `ExecutionStatus` = "Running"')}`,
    );
    expect(o.backlog.taskQueues).toHaveLength(Object.keys(TASK_QUEUES).length);
    expect(o.backlog.taskQueues[0]).toEqual({ name: 'platform-ops', workflowTasks: 5, activityTasks: 5, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: 1_500 });
    // Workflow (1) and activity (2) tasks of each queue, with their statistics.
    expect(f.described.filter((d) => d.taskQueue.name === 'quiz-generation').map((d) => [d.taskQueueType, d.reportStats])).toEqual([
      [1, true],
      [2, true],
    ]);
    const bulk = o.workflowFamilies.find((x) => x.family === 'ticketBulk')!;
    expect(bulk).toMatchObject({ workflowType: 'bulkTicketOperationWorkflow', idPrefix: 'ticket-bulk-', idPattern: 'ticket-bulk-<operationId>', taskQueue: 'support-ops' });
    expect(bulk.temporalUiUrl).toBe(`http://ui.test/namespaces/default/workflows?query=${encodeURIComponent(bulk.query)}`);
    expect(o.temporalUi).toEqual({ url: 'http://ui.test', namespace: 'default' });
  });

  it("asks Temporal a bounded number of things, a few at a time, all within one deadline, and about this deployment's queues when a prefix sets them apart", async () => {
    const f = fakes({ prefix: 'p-' });
    const before = Date.now();
    const o = await opsOverview(f.deps);
    expect(f.queries.length + f.described.length).toBe(1 + workflowTypes().length + 2 * Object.keys(TASK_QUEUES).length);
    expect(f.maxInFlight()).toBeLessThanOrEqual(TEMPORAL_CONCURRENCY);
    expect(new Set(f.deadlines).size).toBe(1);
    expect(f.deadlines[0]).toBeGreaterThan(before);
    expect(f.deadlines[0]).toBeLessThanOrEqual(Date.now() + 3_000);
    expect(f.queries.every((q) => q.includes('`TaskQueue` IN ("p-platform-ops", '))).toBe(true);
    expect(o.backlog.taskQueues.map((q) => q.name)).toContain('p-quiz-generation');
  });

  it('reports what is down: a failed or silent dependency, a degraded or unreachable service, the dashboard degraded with its dependencies', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'performance'] });
    try {
      const f = fakes({
        check: {
          mongodb: async () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:27017 user:secret'), { code: 'ECONNREFUSED' })),
          minio: () => new Promise<void>(() => undefined),
        },
        health: {
          'support.test': async () => ({ status: 503, json: async () => ({ success: false, data: { checks: { mongodb: { status: 'down' }, temporal: { status: 'up' }, 'evil name<script>': { status: 'down' } } } }) }),
          'quiz.test': async () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
          'news.test': async () => ({ status: 302, json: async () => Promise.reject(new SyntaxError('not json')) }),
        },
      });
      const reading = opsOverview(f.deps);
      await jest.advanceTimersByTimeAsync(PROBE_TIMEOUT_MS + 10);
      const o = await reading;
      expect(o.dependencies.find((d) => d.name === 'mongodb')).toMatchObject({ status: 'down', error: 'ECONNREFUSED' });
      expect(o.dependencies.find((d) => d.name === 'minio')).toMatchObject({ status: 'down', error: 'TimeoutError' });
      // Only the kind of the error goes out, never its message (hosts, credentials).
      expect(JSON.stringify(o)).not.toMatch(/secret|10\.0\.0\.5/);
      expect(o.services.find((s) => s.name === 'support')).toMatchObject({ status: 'degraded', httpStatus: 503, down: ['mongodb'] });
      expect(o.services.find((s) => s.name === 'quiz')).toMatchObject({ status: 'unreachable', httpStatus: null, error: 'ECONNREFUSED' });
      expect(o.services.find((s) => s.name === 'news')).toMatchObject({ status: 'unreachable', httpStatus: 302, error: 'HTTP 302' });
      expect(o.services.find((s) => s.name === 'web')).toMatchObject({ status: 'degraded', httpStatus: 503, down: ['mongodb', 'minio'] });
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives null figures, with why, for what Temporal did not answer, and the rest as usual', async () => {
    const f = fakes({
      count: async (q) => (q.includes('newsSourceWorkflow') ? Promise.reject(Object.assign(new Error('4 DEADLINE_EXCEEDED'), { name: 'ServiceError', cause: { code: 4 } })) : { count: 1 }),
      describe: async (args) => (args.taskQueue.name === 'billing' ? Promise.reject(Object.assign(new Error('14 UNAVAILABLE'), { code: 14 })) : { stats: {}, pollers: [] }),
    });
    const o = await opsOverview(f.deps);
    expect(o.backlog.byWorkflowType.find((t) => t.workflowType === 'newsSourceWorkflow')!.running).toBeNull();
    expect(o.backlog.byWorkflowType.find((t) => t.workflowType === 'smokeWorkflow')!.running).toBe(1);
    expect(o.backlog.taskQueues.find((q) => q.name === 'billing')).toEqual({ name: 'billing', workflowTasks: null, activityTasks: null, workflowPollers: null, activityPollers: null, oldestTaskAgeMs: null });
    // No statistics (an older server) is a backlog of 0 and no age; no pollers is 0.
    expect(o.backlog.taskQueues.find((q) => q.name === 'whatsapp')).toEqual({ name: 'whatsapp', workflowTasks: 0, activityTasks: 0, workflowPollers: 0, activityPollers: 0, oldestTaskAgeMs: null });
    expect(o.backlog.error).toBe('DEADLINE_EXCEEDED, UNAVAILABLE');
  });
});

describe('sharing the overview', () => {
  it('gives callers during a read, and within the reuse window after it, the same answer; reads again after', async () => {
    let reads = 0;
    let clock = 0;
    let release: () => void = () => undefined;
    const read = () => new Promise<number>((resolve) => (release = () => resolve(++reads)));
    const shared = sharedOverview(read, 2_000, () => clock);
    const a = shared();
    const b = shared();
    release();
    expect(await Promise.all([a, b])).toEqual([1, 1]);
    clock = 1_999;
    expect(await shared()).toBe(1);
    clock = 2_000;
    const c = shared();
    release();
    expect(await c).toBe(2);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const shared = sharedOverview(async () => {
      if (fail) throw new Error('boom');
      return 'ok';
    });
    await expect(shared()).rejects.toThrow('boom');
    fail = false;
    await expect(shared()).resolves.toBe('ok');
  });
});
