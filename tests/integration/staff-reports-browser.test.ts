/**
 * The staff console's Reports section (issue 38) in a real browser: headless Chromium driven by
 * Playwright, against the web service on a port of loopback and Mailpit, on a database of its own
 * (the reports count every ticket stored, so the numbers are this file's). Tickets are opened,
 * answered, resolved, reopened and closed through the support operations, then moved back in time
 * (the creation, the replies and the status changes together, so that the copies the reports read
 * agree). A support manager signs in, opens /staff/reports, and sees the charts (canvases named
 * for screen readers) and tables holding the API's numbers; the cache state (computed, then cached
 * after a reload, fresh again after Refresh); a filter applied; the CSV downloads. A support agent
 * without support.manager sees no Reports section. Every view is checked with axe-core (no serious
 * or critical violation), with no console error and nothing wider than the screen, at a desktop's
 * and a phone's width (375 px), and screenshotted into reports/screenshots/staff-reports-*.png.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Principal } from '../../models/auth/token.rules';
import { inviteMember } from '../../operations/staff/members';
import { addMessage, assignTicket, openTicket, updateTicket } from '../../operations/support/tickets';
import { checkPage, launchChromium, openTab, PHONE, signInWithCode, type Tab } from '../helpers/browser';
import { startWebService, type WebService } from '../helpers/web';

jest.setTimeout(180_000);

let web: WebService;
let browser: Browser;
const tabs: Tab[] = [];

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;
const manager = address('manager');
const agentOnly = address('agent');
const ana = 'ana@newsletter.dev';
const bruno = 'bruno@newsletter.dev';
const principal = (email: string): Principal => ({ sub: email, email, permissions: ['support.agent'] });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ENTREGA = ['Entrega', 'Não estou recebendo a edição'] as const;
const PREMIOS = ['Prêmios', 'Não recebi meus prêmios'] as const;
const DEFEITO = ['Prêmios', 'Prêmio com defeito'] as const;
const CADASTRO = ['Cadastro', 'Alterações de cadastro'] as const;
const OUTROS = ['Cadastro', 'Outros'] as const;

/**
 * The tickets: created `days` ago (and 3 to 14 hours more, so that they spread over the day), answered `reply` hours after, resolved
 * `resolve` hours after; `reopen` resolved again after a reopen; `close` closed after.
 */
interface Spec {
  days: number;
  category: readonly [string, string];
  newsletter: string | null;
  reply?: [string, number];
  resolve?: [string, number];
  reopen?: boolean;
  close?: boolean;
  assign?: string;
  /** Opened by a mail to the desk (issue 39), not through the API. */
  email?: true;
}
const FIXTURE: Spec[] = [
  { days: 18, category: ENTREGA, newsletter: 'The News', reply: [ana, 2], resolve: [ana, 20] },
  { days: 17, category: ENTREGA, newsletter: 'The News', reply: [bruno, 1], resolve: [bruno, 30], close: true },
  { days: 15, category: PREMIOS, newsletter: 'The Bizness', reply: [ana, 5], resolve: [ana, 50] },
  { days: 12, category: CADASTRO, newsletter: 'The News', reply: [bruno, 3], email: true },
  { days: 10, category: ENTREGA, newsletter: null },
  { days: 9, category: DEFEITO, newsletter: 'The Bizness', reply: [ana, 0.5], resolve: [ana, 4], reopen: true },
  { days: 7, category: OUTROS, newsletter: 'The News', reply: [ana, 8], resolve: [bruno, 100] },
  { days: 5, category: ENTREGA, newsletter: 'The Bizness', assign: ana },
  { days: 4, category: ENTREGA, newsletter: 'The News', reply: [bruno, 1], assign: bruno },
  { days: 3, category: PREMIOS, newsletter: null, reply: [ana, 2], resolve: [ana, 10], close: true },
  { days: 2, category: CADASTRO, newsletter: 'The News', email: true },
  { days: 1, category: ENTREGA, newsletter: 'The News', reply: [bruno, 4], resolve: [bruno, 12] },
  // The 30 days before the last 30 (the comparison's previous period), and the last 90.
  { days: 45, category: ENTREGA, newsletter: 'The News', reply: [ana, 1], resolve: [ana, 6] },
  { days: 40, category: PREMIOS, newsletter: 'The Bizness' },
];
const LAST_30 = FIXTURE.filter((s) => s.days < 29);

/**
 * Moves a ticket's history back: created at `createdAt`, its replies `replyMs` after, its
 * resolutions and closings `resolveMs` after (each keeping its small offset from the creation),
 * with the creation time the messages and events carry.
 */
async function moveBack(id: number, createdAt: Date, replyMs: number, resolveMs: number): Promise<void> {
  const db = web.deps.mongo.conn.db!;
  const tickets = db.collection<any>('tickets');
  const ticket = await tickets.findOne({ _id: id });
  const c0 = (ticket.createdAt as Date).getTime();
  const after = (lag: number) => (d: Date | null | undefined) => (d ? new Date(createdAt.getTime() + lag + (d.getTime() - c0)) : d);
  const reply = after(replyMs);
  const resolve = after(resolveMs);
  await tickets.updateOne(
    { _id: id },
    { $set: { createdAt, updatedAt: resolve(ticket.updatedAt), firstAdminReplyAt: reply(ticket.firstAdminReplyAt), resolvedAt: resolve(ticket.resolvedAt), lastMessageAt: reply(ticket.lastMessageAt), ...(ticket.assignedAt ? { assignedAt: reply(ticket.assignedAt) } : {}) } },
  );
  const messages = db.collection<any>('ticket_messages');
  for (const m of await messages.find({ ticketId: id }).toArray()) await messages.updateOne({ _id: m._id }, { $set: { createdAt: reply(m.createdAt), ticketCreatedAt: createdAt } });
  const events = db.collection<any>('ticket_status_events');
  for (const e of await events.find({ ticketId: id }).toArray()) {
    const at = e.source === 'create' ? createdAt : e.to === 'resolved' || e.to === 'closed' ? resolve(e.at) : reply(e.at);
    await events.updateOne({ _id: e._id }, { $set: { at, ticketCreatedAt: createdAt } });
  }
}

async function seed(): Promise<void> {
  const deps = web.deps.console.support;
  const now = Date.now();
  for (const [i, s] of FIXTURE.entries()) {
    const { ticket } = await openTicket(deps, { main: s.category[0], issue: s.category[1], description: `Chamado de teste ${i + 1}`, email: address('reader'), newsletter: s.newsletter ?? undefined, ...(s.email ? { canal: 'email' as const } : {}) });
    const id = ticket._id;
    if (s.reply) await addMessage(deps, principal(s.reply[0]), id, 'Olá! Estamos verificando.');
    if (s.resolve) await updateTicket(deps, s.resolve[0], id, { status: 'resolved' });
    if (s.reopen) {
      await updateTicket(deps, s.resolve![0], id, { status: 'open' });
      await updateTicket(deps, s.resolve![0], id, { status: 'resolved' });
    }
    if (s.close) await updateTicket(deps, s.resolve![0], id, { status: 'closed' });
    if (s.assign) await assignTicket(deps, principal(s.assign), id, s.assign);
    await moveBack(id, new Date(now - s.days * DAY - (3 + ((i * 5) % 12)) * HOUR), (s.reply?.[1] ?? 0) * HOUR, (s.resolve?.[1] ?? 0) * HOUR);
  }
}

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebService({ MONGODB_DB: `staff_reports_${randomUUID().slice(0, 8)}` }, { listen: true }), launchChromium()]);
  await seed();
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: manager, roles: ['support.manager'] });
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: agentOnly, roles: ['support.agent'] });
}, 120_000);

afterAll(async () => {
  await Promise.all(tabs.map((t) => t.context.close().catch(() => undefined)));
  await browser?.close();
  await web?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await web?.close();
});

/** The JSON answers of the reports the page asked for, newest last, by report (`categorias`…). */
type Answer = { url: URL; data: any };
function recordAnswers(page: Page): Answer[] {
  const answers: Answer[] = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith('/api/staff/support/relatorios/') || !(res.headers()['content-type'] ?? '').includes('json')) return;
    void res
      .json()
      .then((body: { data: unknown }) => answers.push({ url, data: body.data }))
      .catch(() => undefined);
  });
  return answers;
}
const reportOf = (a: Answer) => a.url.pathname.split('/').pop()!;
/** The newest answer of a report. Its body is read after the page has it (another round trip to the browser), so it is waited for. */
async function latest(answers: Answer[], report: string, where: (u: URL) => boolean = () => true): Promise<any> {
  const find = () => answers.filter((a) => reportOf(a) === report && where(a.url)).pop();
  for (const end = Date.now() + 5_000; !find() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  const found = find();
  if (!found) throw new Error(`no answer of ${report} yet (${answers.map((a) => a.url.pathname + a.url.search).join(', ')})`);
  return found.data;
}

const PANELS = ['reports-now', 'reports-summary', 'reports-comparison', 'reports-series', 'reports-resolution', 'reports-categories', 'reports-distribution', 'reports-cohorts', 'reports-agents', 'reports-detailed'];
const panel = (page: Page, id: string) => page.locator(`section[data-report="${id}"]`);
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });

/**
 * Waits until an expression holds in the page. Polled from here: Playwright's waitForFunction
 * compiles its predicate in the page, which the page's CSP (no 'unsafe-eval') refuses.
 */
async function until(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every panel has its answer (a cache state) and none is loading. */
async function settled(page: Page): Promise<void> {
  await until(
    page,
    `document.querySelectorAll('section[data-report]').length === ${PANELS.length} && [...document.querySelectorAll('section[data-report]')].every((s) => s.getAttribute('aria-busy') === 'false' && s.querySelector('[data-testid="cache-state"]'))`,
  );
}

/** A table's body as text, a row an array of its cells. */
const rowsOf = (table: Locator) => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())));
const tileOf = (page: Page, key: string) => page.locator(`[data-testid="tile-${key}"] .reports-tile-value`).first();
const pct = (p: number) => `${new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 }).format(p)}%`;
const cacheStates = (page: Page) => page.locator('section[data-report] [data-testid="cache-state"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-cache')));

let managerTab: Tab;
let answers: Answer[];

describe('the Reports section', () => {
  it('shows a support manager every report as charts and tables holding the API’s numbers', async () => {
    managerTab = await openTab(browser);
    tabs.push(managerTab);
    const { page } = managerTab;
    answers = recordAnswers(page);
    await page.goto(`${web.origin}/staff/reports`);
    await page.waitForURL('**/sign-in');
    await signInWithCode(page, manager);
    await page.waitForURL('**/staff/reports');
    await heading(page, 'Reports').waitFor();
    expect(await page.title()).toBe('Reports · Staff console · Newsletter Platform');
    await settled(page);

    // The charts: canvases named for screen readers, drawn at a size.
    const charts = page.locator('section[data-report] canvas[role="img"]');
    const labels = await charts.evaluateAll((cs) => cs.map((c) => [c.closest('section')!.getAttribute('data-report'), c.getAttribute('aria-label'), (c as unknown as { width: number }).width > 0 && (c as unknown as { height: number }).height > 0]));
    expect(labels.map(([report]) => report)).toEqual(['reports-comparison', 'reports-series', 'reports-resolution', 'reports-categories', 'reports-distribution', 'reports-agents']);
    for (const [report, label, drawn] of labels) expect({ report, drawn, label: /chart: .+The numbers are in the table below\.$/.test(String(label)) }).toEqual({ report, drawn: true, label: true });

    // The support desk now: the tiles are the API's, and the fixture's (4 open, 2 in progress, 4 unanswered).
    const now = await latest(answers, 'dashboard');
    expect({ abertos: now.abertos, emAndamento: now.emAndamento, semResposta: now.semResposta }).toEqual({ abertos: 4, emAndamento: 2, semResposta: 4 });
    expect(await tileOf(page, 'open').textContent()).toBe(String(now.abertos));
    expect(await tileOf(page, 'in-progress').textContent()).toBe(String(now.emAndamento));
    expect(await tileOf(page, 'unanswered').textContent()).toBe(String(now.semResposta));
    expect(await tileOf(page, 'created-week').textContent()).toBe(String(now.criados.semana));

    // The last 30 days.
    const summary = await latest(answers, 'resumo');
    expect(await panel(page, 'reports-summary').locator('[data-testid="tile-total"] .reports-tile-value').textContent()).toBe(String(summary.totalTickets));
    expect(await panel(page, 'reports-summary').locator('[data-testid="tile-rate"] .reports-tile-value').textContent()).toBe(pct(summary.resolutionMetrics.taxaResolucaoGeral));

    // The comparison: 12 tickets in the last 30 days against 2 in the 30 before (+500%).
    const comparison = await latest(answers, 'comparativo');
    expect([comparison.atual.totalTickets, comparison.anterior.totalTickets, comparison.variacao.totalTickets]).toEqual([LAST_30.length, 2, 500]);
    const total = panel(page, 'reports-comparison').locator('tr[data-row="total"]');
    expect((await rowsOf(panel(page, 'reports-comparison').locator('table')))[0]!.slice(0, 4)).toEqual(['Tickets', '12', '2', '▲ up +10 (+500%)']);
    expect(await total.count()).toBe(1);
    const resolvedRow = (await rowsOf(panel(page, 'reports-comparison').locator('table'))).find((r) => r[0] === 'Resolved')!;
    expect(resolvedRow.slice(1, 3)).toEqual([String(comparison.atual.ticketsByStatus.resolved), String(comparison.anterior.ticketsByStatus.resolved)]);

    // Categories: every row of the API, in its order.
    const categories = await latest(answers, 'categorias');
    expect(categories.categorias.reduce((n: number, c: { total: number }) => n + c.total, 0)).toBe(LAST_30.length);
    expect(await rowsOf(panel(page, 'reports-categories').locator('table'))).toEqual(
      categories.categorias.map((c: any) => [c.main, c.issue, String(c.total), String(c.abertos), String(c.emAndamento), String(c.resolvidos), String(c.fechados), pct(c.taxaResolucao)]),
    );

    // The series: the table lists the API's periods, created and resolved.
    const series = await latest(answers, 'serie');
    expect((await rowsOf(panel(page, 'reports-series').locator('table'))).map((r) => r.slice(1))).toEqual(series.serie.map((s: any) => [String(s.criados), String(s.resolvidos)]));
    expect(series.serie.reduce((n: number, s: { criados: number }) => n + s.criados, 0)).toBe(LAST_30.length);

    // Agents: ana and bruno, with their replies and resolutions.
    const agents = await latest(answers, 'agentes');
    expect(agents.agentes.map((a: any) => a.agente).sort()).toEqual([ana, bruno]);
    expect((await rowsOf(panel(page, 'reports-agents').locator('table'))).map((r) => r.slice(0, 3))).toEqual(agents.agentes.map((a: any) => [a.agente, String(a.respostas), String(a.ticketsResolvidos)]));

    // Cohorts: a heat-map table, a week a row.
    const cohorts = await latest(answers, 'coortes');
    expect((await rowsOf(panel(page, 'reports-cohorts').locator('table'))).map((r) => r[1])).toEqual(cohorts.coortes.map((c: any) => String(c.criados)));
    expect(await panel(page, 'reports-cohorts').locator('td .reports-heat[class*="heat-"]').count()).toBe(cohorts.coortes.length * 3);

    // Distribution by hour: 24 hours; the table's total is the period's.
    const distribution = await latest(answers, 'distribuicao');
    expect(distribution.distribuicao).toHaveLength(24);
    expect((await rowsOf(panel(page, 'reports-distribution').locator('table'))).map((r) => Number(r[1]))).toEqual(distribution.distribuicao.map((d: any) => d.total));

    // Every ticket, newest first.
    const detailed = await latest(answers, 'detalhado');
    expect(detailed.pagination.total).toBe(LAST_30.length);
    expect(await panel(page, 'reports-detailed').locator('tr[data-ticket]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-ticket'))))).toEqual(detailed.linhas.map((l: any) => l.id));
    expect(await page.getByTestId('detailed-total').textContent()).toBe(`${LAST_30.length} tickets, newest first.`);
    // A ticket's number opens it in the support desk (a manager is an agent too).
    expect(await panel(page, 'reports-detailed').locator('tr[data-ticket] th a').first().getAttribute('href')).toBe(`/staff/support/${detailed.linhas[0].id}`);

    // Computed for this request: fresh, everywhere.
    expect(await cacheStates(page)).toEqual(PANELS.map(() => 'fresh'));
    await checkPage(managerTab, 'staff-reports');
  });

  it('shows the numbers as tables', async () => {
    const { page } = managerTab;
    for (const summary of await page.locator('details.reports-numbers > summary').all()) await summary.click();
    await checkPage(managerTab, 'staff-reports-tables');
  });

  it('tells cached answers, and computes a report again on Refresh (fresh=true)', async () => {
    const { page } = managerTab;
    await page.reload();
    await heading(page, 'Reports').waitFor();
    await settled(page);
    expect(await cacheStates(page)).toEqual(PANELS.map(() => 'cached'));
    const cached = panel(page, 'reports-categories').getByTestId('cache-state');
    expect(await cached.textContent()).toMatch(/^Cached computed (just now|\d+ minutes? ago) \(\d\d:\d\d\) · kept until \d\d:\d\d$/);

    const fresh = page.waitForResponse((r) => r.url().includes('/relatorios/categorias') && r.url().includes('fresh=true'));
    await panel(page, 'reports-categories').getByRole('button', { name: 'Refresh Categories' }).click();
    expect((await (await fresh).json()).data.cache).toEqual({ hit: false });
    await panel(page, 'reports-categories').locator('[data-testid="cache-state"][data-cache="fresh"]').waitFor();
    await page.getByRole('status').getByText('Categories: computed again.').waitFor();
    // The others are still the cache's.
    expect(await panel(page, 'reports-agents').getByTestId('cache-state').getAttribute('data-cache')).toBe('cached');

    // Every report at once.
    await page.getByRole('button', { name: 'Refresh all reports' }).click();
    await until(page, `[...document.querySelectorAll('section[data-report] [data-testid="cache-state"]')].every((e) => e.getAttribute('data-cache') === 'fresh')`);
    await settled(page);
    await checkPage(managerTab, 'staff-reports-refreshed', { phone: false });
  });

  it('applies a filter: every filtered report follows, and the address keeps it', async () => {
    const { page } = managerTab;
    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByLabel('Newsletter').selectOption('The Bizness');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('newsletter') === 'The Bizness');
    const bizness = LAST_30.filter((s) => s.newsletter === 'The Bizness').length;
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${bizness} tickets?,`) }).waitFor();
    await settled(page);
    const categories = await latest(answers, 'categorias', (u) => u.searchParams.get('newsletter') === 'The Bizness');
    expect(categories.categorias.reduce((n: number, c: { total: number }) => n + c.total, 0)).toBe(bizness);
    expect((await rowsOf(panel(page, 'reports-categories').locator('table'))).map((r) => r.slice(0, 3))).toEqual(categories.categorias.map((c: any) => [c.main, c.issue, String(c.total)]));
    expect(await panel(page, 'reports-categories').locator('.reports-scope').textContent()).toContain('Newsletter: The Bizness');
    expect(await page.getByTestId('filters-applied').textContent()).toMatch(/^Showing: Last 30 days \(.+\) · Newsletter: The Bizness$/);
    // The comparison takes the period alone, and says so.
    expect(await panel(page, 'reports-comparison').locator('.reports-scope').textContent()).toContain('the other filters do not');

    // The last 90 days, by their preset: the two older tickets too.
    await filters.getByLabel('Period').selectOption('90');
    await filters.getByLabel('Newsletter').selectOption('');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('periodo') === '90' && !u.searchParams.has('newsletter'));
    await page.getByTestId('filters-applied').filter({ hasText: /^Showing: Last 90 days \([^)]+\)$/ }).waitFor();
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${FIXTURE.length} tickets?,`) }).waitFor();

    // A start after the end is told, and nothing is applied.
    await filters.getByLabel('From', { exact: true }).fill('2031-03-20');
    await filters.getByLabel('To', { exact: true }).fill('2031-03-10');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await filters.getByRole('alert').getByText('Choose a start date on or before the end date.').waitFor();
    expect(new URL(page.url()).searchParams.get('periodo')).toBe('90');
    await checkPage(managerTab, 'staff-reports-filter-error', { phone: false });

    // The tickets opened by e-mail. The address changes before the page draws what it applies
    // (the form takes the applied filters in that render): choosing before then, as a test can and a
    // person cannot, would be undone by it. So wait, as a person does, for the cleared filters.
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    await page.getByTestId('filters-applied').filter({ hasText: /^Showing: Last 30 days \([^)]+\)$/ }).waitFor();
    await filters.getByLabel('Opened by').selectOption('email');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('canal') === 'email');
    await page.getByTestId('filters-applied').filter({ hasText: /^Showing: Last 30 days \([^)]+\) · Opened by: E-mail$/ }).waitFor();
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${LAST_30.filter((s) => s.email).length} tickets?,`) }).waitFor();

    // Back to the newsletter, for the downloads.
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    await page.getByTestId('filters-applied').filter({ hasText: /^Showing: Last 30 days \([^)]+\)$/ }).waitFor();
    await filters.getByLabel('Newsletter').selectOption('The Bizness');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${bizness} tickets?,`) }).waitFor();
    await settled(page);
    await checkPage(managerTab, 'staff-reports-filtered');
  });

  it('downloads a report as CSV, with the filters in force', async () => {
    const { page } = managerTab;
    const bizness = LAST_30.filter((s) => s.newsletter === 'The Bizness');
    const csv = async (report: string, name: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), panel(page, report).getByRole('link', { name }).click()]);
      const text = await readFile((await download.path())!, 'utf8');
      return { file: download.suggestedFilename(), lines: text.split('\r\n').filter(Boolean) };
    };
    const categories = await csv('reports-categories', 'Download CSV Categories');
    expect(categories.file).toMatch(/^relatorio-categorias-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(categories.lines[0]).toBe('main,issue,total,abertos,emAndamento,resolvidos,fechados,taxaResolucao');
    expect(categories.lines.slice(1).reduce((n, l) => n + Number(l.split(',')[2]), 0)).toBe(bizness.length);

    const detailed = await csv('reports-detailed', 'Download CSV Every ticket (all pages, up to 10,000)');
    expect(detailed.lines[0]).toBe('id,main,issue,status,newsletter,canal,criadoEm,primeiraRespostaSegundos,resolucaoSegundos,reaberturas');
    expect(detailed.lines).toHaveLength(bizness.length + 1);
    expect(detailed.lines.slice(1).every((l) => l.includes(',The Bizness,'))).toBe(true);

    const series = await csv('reports-series', 'Download CSV Tickets over time');
    expect(series.lines[0]).toBe('periodo,criados,resolvidos');
    expect(managerTab.consoleErrors).toEqual([]);
  });

  it('works in Portuguese at a phone’s width', async () => {
    const { page } = managerTab;
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await heading(page, 'Relatórios').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Todos os chamados' }).waitFor();
    await settled(page);
    await checkPage(managerTab, 'staff-reports-pt-phone', { phone: false });
    await page.getByRole('button', { name: 'View in English' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('pages through every ticket, and Refresh shows tickets opened since', async () => {
    const { page } = managerTab;
    await page.goto(`${web.origin}/staff/reports?periodo=90`);
    await settled(page);
    expect(await page.getByTestId('detailed-total').textContent()).toBe(`${FIXTURE.length} tickets, newest first.`);
    // Ten more tickets: the cached answer still has fourteen, until it is computed again.
    for (let i = 0; i < 10; i++) await openTicket(web.deps.console.support, { main: ENTREGA[0], issue: ENTREGA[1], description: `Mais um ${i}`, email: address('reader'), newsletter: 'The News' });
    const detailed = panel(page, 'reports-detailed');
    await detailed.getByRole('button', { name: 'Refresh Every ticket' }).click();
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${FIXTURE.length + 10} tickets?,`) }).waitFor();
    expect(await detailed.locator('tr[data-ticket]').count()).toBe(20);
    const pages = detailed.getByRole('navigation', { name: 'Every ticket: pages' });
    await pages.getByText('Page 1 of 2').waitFor();
    await pages.getByRole('button', { name: 'Next' }).click();
    await pages.getByText('Page 2 of 2').waitFor();
    await until(page, `document.querySelectorAll('section[data-report="reports-detailed"] tr[data-ticket]').length === ${FIXTURE.length + 10 - 20}`);
    // The button pressed is disabled on the last page: the focus is on the panel's heading.
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Every ticket');
    // The oldest ticket of the last 90 days: the fixture's, 45 days ago (#13).
    expect(await detailed.locator('tr[data-ticket]').last().getAttribute('data-ticket')).toBe(String(FIXTURE.findIndex((f) => f.days === 45) + 1));
    await checkPage(managerTab, 'staff-reports-detailed-page-2', { phone: false });
  });

  it('is not shown to a support agent without support.manager', async () => {
    const agentTab = await openTab(browser);
    tabs.push(agentTab);
    const { page } = agentTab;
    await page.goto(`${web.origin}/staff`);
    await page.waitForURL('**/sign-in');
    await signInWithCode(page, agentOnly);
    await page.waitForURL('**/staff');
    await heading(page, 'Staff console').waitFor();
    const sections = (await page.getByRole('navigation', { name: 'Staff console sections' }).getByRole('list').first().getByRole('link').allTextContents()).map((s) => s.trim());
    expect(sections).toEqual(['Support desk']);
    await page.goto(`${web.origin}/staff/reports`);
    await heading(page, 'No access to this section').waitFor();
    expect(await page.locator('section[data-report]').count()).toBe(0);
    expect(agentTab.consoleErrors).toEqual([]);
  });
});
