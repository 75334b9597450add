/**
 * The operations overview (issue 38, item 6) on the dashboard's service, on the real stack: the
 * dependencies `npm test` runs (FerretDB, Temporal, MinIO, Mailpit) up; a service's /health read at
 * its public address (the quiz service served here) and one that does not answer; the running
 * workflows this file starts counted per type and per task queue (its own task-queue prefix, so
 * that no other test's count), and the shared worker's pollers seen on its queues; the Temporal UI
 * links built from TEMPORAL_UI_URL. Only staff with platform.ops reach it (a customer's session and
 * a member without it get 403); with Temporal away it still answers, saying so, within seconds.
 */
import { randomUUID } from 'node:crypto';
import type { StaffRole } from '../../models/staff/staff.rules';
import { inviteMember } from '../../operations/staff/members';
import { startAiService, type AiService } from '../helpers/ai';
import { serve, type Served } from '../helpers/clients';
import { CLOSED_PORT } from '../helpers/service';
import { Browser, startWebService, type WebService } from '../helpers/web';
import { TASK_QUEUES } from '../../workflows/ids';

jest.setTimeout(120_000);

const prefix = `opsov-${randomUUID().slice(0, 6)}-`;
const UI = 'https://temporal.ops.example.com/ui';
let web: WebService;
let quiz: AiService;
let quizServed: Served;
const started: string[] = [];

beforeAll(async () => {
  quiz = await startAiService();
  quizServed = await serve(quiz.callback);
  web = await startWebService({
    TASK_QUEUE_PREFIX: prefix,
    TEMPORAL_UI_URL: UI,
    QUIZ_PUBLIC_URL: quizServed.baseUrl,
    // Nothing listens there: the service is unreachable from here.
    SUPPORT_PUBLIC_URL: `http://127.0.0.1:${CLOSED_PORT}`,
  });
});
afterAll(async () => {
  const client = web?.deps.temporal.client;
  await Promise.all(started.map((id) => client?.workflow.getHandle(id).terminate('test over').catch(() => undefined)));
  await web?.close();
  await quizServed?.close();
  await quiz?.close();
});

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;

async function staff(svc: WebService, roles: StaffRole[]): Promise<Browser> {
  const email = address(roles.join('-').replace(/\./g, ''));
  await inviteMember({ ...svc.deps, mailer: undefined }, { actor: 'cli', email, roles });
  const browser = new Browser(svc);
  await browser.signIn(email);
  return browser;
}

type Overview = {
  dependencies: { name: string; status: string; error: string | null }[];
  services: { name: string; url: string; status: string; httpStatus: number | null; down: string[] }[];
  backlog: {
    running: number | null;
    byWorkflowType: { workflowType: string; running: number | null; temporalUiUrl: string }[];
    taskQueues: { name: string; workflowTasks: number | null; activityTasks: number | null; workflowPollers: number | null; activityPollers: number | null }[];
    error: string | null;
  };
  workflowFamilies: { family: string; workflowType: string; idPrefix: string | null; query: string; temporalUiUrl: string }[];
  temporalUi: { url: string; namespace: string };
};

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('who reaches the overview', () => {
  it('is 401 without a session, 403 for a customer and for staff without platform.ops', async () => {
    await new Browser(web).get('/api/staff/ops/overview').expect(401);
    const customer = new Browser(web);
    await customer.signIn(address('reader'));
    const refused = await customer.get('/api/staff/ops/overview').expect(403);
    expect(refused.body).toMatchObject({ success: false, statusCode: 403, code: 'FORBIDDEN' });
    for (const roles of [['support.manager'], ['quiz.admin', 'news.admin', 'ai.edit']] as StaffRole[][]) {
      const member = await staff(web, roles);
      const res = await member.get('/api/staff/ops/overview').expect(403);
      expect(res.body.error).toMatch(/platform\.ops/);
    }
  });
});

describe('the overview', () => {
  it("reports the dependencies, the services' health, the backlog of this deployment's queues, and links into the Temporal UI", async () => {
    const ops = await staff(web, ['platform.ops']);
    // Two bulk operations waiting for a worker (none serves this prefix's queues).
    const client = web.deps.temporal.client;
    for (let i = 0; i < 2; i++) {
      const id = `ticket-bulk-${randomUUID()}`;
      await client.workflow.start('bulkTicketOperationWorkflow', { taskQueue: `${prefix}support-ops`, workflowId: id, args: [{}] });
      started.push(id);
    }

    const o = await until('the two runs counted', async () => {
      const res = await ops.get('/api/staff/ops/overview').expect(200);
      const data = res.body.data as Overview;
      const queued = data.backlog.taskQueues.find((q) => q.name === `${prefix}support-ops`)?.workflowTasks ?? 0;
      // Visibility and the queue's statistics both catch up within moments.
      return data.backlog.byWorkflowType.find((t) => t.workflowType === 'bulkTicketOperationWorkflow')?.running === 2 && queued >= 2 && data;
    });

    expect(o.dependencies).toEqual([
      expect.objectContaining({ name: 'mongodb', status: 'up', error: null }),
      expect.objectContaining({ name: 'temporal', status: 'up', error: null }),
      expect.objectContaining({ name: 'minio', status: 'up', error: null }),
      expect.objectContaining({ name: 'smtp', status: 'up', error: null }),
    ]);
    expect(o.services.map((s) => [s.name, s.status])).toEqual([
      ['news', expect.any(String)],
      ['support', 'unreachable'],
      ['quiz', 'up'],
      ['web', 'up'],
    ]);
    expect(o.services.find((s) => s.name === 'quiz')).toMatchObject({ url: `${quizServed.baseUrl}/health`, httpStatus: 200, down: [] });

    // Only this deployment's queues count: the two runs, nothing of the other tests'.
    expect(o.backlog.running).toBe(2);
    expect(o.backlog.error).toBeNull();
    expect(o.backlog.byWorkflowType.filter((t) => t.running !== 0).map((t) => [t.workflowType, t.running])).toEqual([['bulkTicketOperationWorkflow', 2]]);
    const support = o.backlog.taskQueues.find((q) => q.name === `${prefix}support-ops`)!;
    expect(support).toMatchObject({ workflowTasks: 2, workflowPollers: 0, activityPollers: 0 });
    expect(o.backlog.taskQueues.map((q) => q.name)).toEqual(['platform-ops', 'ai-chat', 'support-ops', 'support-mail', 'news-ingest', 'news-sources', 'quiz-generation', 'billing', 'whatsapp', 'news-notify', 'news-webhooks'].map((q) => `${prefix}${q}`));
    // Every queue of workflows/ids.ts, each once.
    expect(o.backlog.taskQueues.map((q) => q.name).sort()).toEqual(Object.values(TASK_QUEUES).map((q) => `${prefix}${q}`).sort());

    // The links: TEMPORAL_UI_URL, the namespace, the family's query (its ids' start and type, this deployment's queue).
    expect(o.temporalUi).toEqual({ url: UI, namespace: 'default' });
    const bulk = o.workflowFamilies.find((f) => f.family === 'ticketBulk')!;
    expect(bulk).toMatchObject({ workflowType: 'bulkTicketOperationWorkflow', idPrefix: 'ticket-bulk-' });
    expect(bulk.temporalUiUrl).toBe(`${UI}/namespaces/default/workflows?query=${encodeURIComponent(bulk.query)}`);
    expect(o.workflowFamilies.find((f) => f.family === 'newsSource')!.query).toBe(`\`WorkflowId\` STARTS_WITH "news-source-" AND \`WorkflowType\` = "newsSourceWorkflow" AND \`TaskQueue\` = "${prefix}news-sources"`);
    // Each family's query, as the links give it, is one Temporal's visibility answers: it finds the two runs.
    expect((await client.workflow.count(bulk.query)).count).toBe(2);
    for (const f of o.workflowFamilies) await expect(client.workflow.count(f.query)).resolves.toEqual(expect.objectContaining({ count: expect.any(Number) }));
  });

  it("sees the workers polling the deployment's queues (the shared worker, without a prefix)", async () => {
    const own = await startWebService();
    try {
      const ops = await staff(own, ['owner']);
      const o = (await ops.get('/api/staff/ops/overview').expect(200)).body.data as Overview;
      const queue = o.backlog.taskQueues.find((q) => q.name === 'platform-ops')!;
      expect(queue.workflowPollers).toBeGreaterThan(0);
      expect(queue.activityPollers).toBeGreaterThan(0);
      expect(o.temporalUi.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await own.close();
    }
  });

  it('still answers with Temporal away, saying so, within seconds', async () => {
    const down = await startWebService({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}`, TASK_QUEUE_PREFIX: prefix });
    try {
      const ops = await staff(down, ['platform.ops']);
      const t0 = Date.now();
      const o = (await ops.get('/api/staff/ops/overview').expect(200)).body.data as Overview;
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(o.dependencies.find((d) => d.name === 'temporal')).toMatchObject({ status: 'down', error: expect.any(String) });
      expect(o.dependencies.find((d) => d.name === 'mongodb')).toMatchObject({ status: 'up' });
      expect(o.services.find((s) => s.name === 'web')).toMatchObject({ status: 'degraded', down: ['temporal'] });
      expect(o.backlog.running).toBeNull();
      expect(o.backlog.byWorkflowType.every((t) => t.running === null)).toBe(true);
      expect(o.backlog.error).toMatch(/DEADLINE_EXCEEDED|UNAVAILABLE|TimeoutError/);
      // The links do not need Temporal.
      expect(o.workflowFamilies.length).toBeGreaterThan(10);
    } finally {
      await down.close();
    }
  });
});
