/**
 * A working day in the staff console, end to end (issue 38, its "done when"): headless Chromium
 * driven by Playwright, each person in a browser context of their own, against the web service on
 * a port of loopback (on a copy of the page's build), the support service (the requesters' side:
 * tickets opened through its public route), Mailpit, the OpenAI double and the shared worker (bulk
 * operations and quiz generations run as its workflows).
 *
 *  1. The owner (made by the CLI's operation) signs in with the mailed code and invites an agent on
 *     the Members page.
 *  2. The agent follows the invitation's link and signs in with the mailed code.
 *  3. The agent takes a ticket from the queue by keyboard (j/k/Enter, then `a`), sends a quick reply
 *     (its use counted), adds an internal note and a tag.
 *  4. A second agent on the same ticket sees the first "replying" while they type.
 *  5. The agent resolves a selection in bulk; the progress panel reaches completion.
 *  6. A support manager reads a report's chart (its canvas's name and its table) and downloads its CSV.
 *  7. A news editor accepts a curation candidate and corrects an article with it.
 *  8. A quiz administrator regenerates a quiz (the OpenAI double writes it).
 *  9. The owner removes the agent; the agent's next action in its tab ends at sign-in (401).
 *
 * Each step asserts on the page and through the API or the database; the main pages are checked
 * (axe-core: no serious or critical violation; no console error; nothing wider than the screen, at a
 * desktop's width and at 375 px) and screenshotted into reports/screenshots/staff-day-*.png. The
 * steps share their state: a step after one that failed is not run (it says which failed), and a
 * failing step leaves a screenshot of every open tab (staff-day-failed-<who>.png).
 *
 * It uses the default test database: the shared worker, which runs the bulk and quiz workflows,
 * writes there. Everything it makes is its own (a newsletter, addresses, names and a quiz day of
 * this run), so the other files' data in that database does not change what it sees.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ArticleDoc, EnrichmentRecord } from '../../models/news/article.rules';
import { buildArticle, buildDictionary, ImportLine } from '../../models/news/ingest.rules';
import { NEW_HEALTH, type SourceDoc } from '../../models/news/sources/source.rules';
import { quizDateOf } from '../../models/quiz/calendar.rules';
import { inviteMember } from '../../operations/staff/members';
import { createQuiz } from '../../operations/quiz/quizzes';
import { provider } from '../helpers/ai';
import { checkPage, launchChromium, openTab, SHOTS, signInWithCode, snapshotWebBuild, takeConsoleErrors, type Tab } from '../helpers/browser';
import { waitForMessagesTo } from '../helpers/mailpit';
import { eventually } from '../helpers/service';
import { editionText, manualQuestions, modelQuiz } from '../helpers/quiz';
import { buildTicket, client, agentToken, startSupportService, type SupportService } from '../helpers/support';
import { startWebService, type WebService } from '../helpers/web';

// Generous: the machine has 2 cores, and a step waits on workflows and on Chromium.
jest.setTimeout(240_000);

/** How long a page's condition is waited for (Playwright's default is 30 s). */
const WAIT_MS = 60_000;

let web: WebService;
/** The editor's dashboard, on a database of its own (step 7). */
let newsroom: WebService;
let support: SupportService;
let browser: Browser;
let build: { dir: string; remove(): void } | undefined;

const run = randomUUID().slice(0, 8);
const address = (who: string) => `${who}-${run}@example.com`;
const owner = address('owner');
const agent = address('agent');
const agent2 = address('agent2');
const manager = address('manager');
const editor = address('editor');
const quizAdmin = address('quizadmin');
const newsletter = `Day ${run}`;
const requesterA = address('reader-a');
const tagName = `day-${run}`;
const quickTitle = `Resent ${run}`;
const quickContent = `Olá! Reenviamos a edição de hoje para o seu endereço (${run}).`;

/** The tickets, oldest first: A's first, B's, A's second, C's. */
const ids: number[] = [];
let tagId: number;
let quickId: number;

// ---- The news fixture (as tests/integration/news-editors.test.ts and staff-news-browser.test.ts) ----
const NOW = Date.now();
const HOUR = 3_600_000;
const SOURCE = randomUUID();
const candidateKey = `banco do dia ${run}`;
const candidateName = `Banco do Dia ${run}`;
const enriched: EnrichmentRecord = { state: 'enriched', promptVersion: 'enrich-older', model: 'gpt-4o-mini', promptTokens: 900, completionTokens: 300, costUsd: 0.0003, attempts: 1, at: new Date(NOW - HOUR), error: null };
const ARTICLE: ArticleDoc = (() => {
  const line = ImportLine.parse({
    title: `Banco do Dia capta R$ 2 bilhões no mercado (${run})`,
    summary: 'O banco captou R$ 2 bilhões em debêntures: o resumo da matéria para os leitores.',
    sourceName: `Folha do Dia ${run}`,
    sourceUrl: `https://staff-day.example/${randomUUID()}`,
    publishedAt: new Date(NOW - HOUR).toISOString(),
    primarySector: 'ENE',
    primaryTopic: 'GUIDANCE',
    modules: { sentiment: { score: 0.46, label: 'POSITIVO', confidence: 0.8 }, classification: { secondarySectors: [], secondaryTopics: [], keywords: ['debêntures'] } },
  });
  const { doc } = buildArticle(randomUUID(), line, buildDictionary([]), new Date(NOW - HOUR));
  return { ...doc, sourceId: SOURCE, enrichment: enriched };
})();
const source: SourceDoc = {
  _id: SOURCE, name: `Folha do Dia ${run}`, feedUrl: `https://feeds.staff-day.example/${run}.xml`, feedKey: `feeds.staff-day.example/${run}.xml`, tier: 2, language: 'pt', defaultSector: null,
  pollIntervalMinutes: 60, enabled: false, http: { etag: null, lastModified: null }, health: { ...NEW_HEALTH }, createdAt: new Date(NOW), updatedAt: new Date(NOW),
};

// ---- The quiz fixture: a day of this run's own (a weekday in the 2090s, met by no other file) ----
const QUIZ_DAY = (() => {
  let t = Date.UTC(2090, 0, 1) + randomInt(0, 3000) * 86_400_000;
  while (new Date(t).getUTCDay() === 0) t += 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
})();
const QUIZ_TEXT = editionText(`${QUIZ_DAY} morning ${run}`);
let firstQuizId: string;

beforeAll(async () => {
  build = await snapshotWebBuild();
  [web, newsroom, support, browser] = await Promise.all([
    startWebService({ WEB_DIST_DIR: build.dir }, { listen: true }),
    // The editor's newsroom on a database of its own: other files count every article of the shared
    // one exactly (news-articles), and nothing here needs the shared worker (no news workflow runs).
    startWebService({ WEB_DIST_DIR: build.dir, MONGODB_DB: `staff_day_news_${run}` }, { listen: true }),
    startSupportService(),
    launchChromium(),
  ]);
  // A failed run's screenshots of its tabs, gone: what is there after this run is this run's.
  for (const f of readdirSync(SHOTS)) if (f.startsWith('staff-day-failed-')) rmSync(path.join(SHOTS, f), { force: true });

  // The people the CLI makes (the agent alone is invited in the browser, by the owner).
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: owner, roles: ['owner'] });
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: agent2, roles: ['support.agent'] });
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: manager, roles: ['support.manager'] });
  await inviteMember({ ...newsroom.deps, mailer: undefined }, { actor: 'cli', email: editor, roles: ['news.admin'] });
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: quizAdmin, roles: ['quiz.admin'] });

  // The requesters open their tickets through the public route, one after the other (newest first in the queue).
  for (const [email, description] of [
    [requesterA, 'A edição de segunda não chegou.'],
    [address('reader-b'), 'Meus pontos sumiram.'],
    [requesterA, 'A edição de hoje também não chegou.'],
    [address('reader-c'), 'Quero mudar meu e-mail.'],
  ] as const) {
    const res = await client(support).post('/support', buildTicket({ email, description, newsletter })).expect(201);
    ids.push(res.body.data.id as number);
  }
  const staffToken = await agentToken(`day-${run}`);
  tagId = (await client(support, staffToken).post('/support/tags', { name: tagName, color: '#00796B' }).expect(201)).body.data.id;
  quickId = (await client(support, staffToken).post('/support/respostas-rapidas', { title: quickTitle, content: quickContent, category: 'Entrega' }).expect(201)).body.data.id;

  // The news: a source (disabled: nothing polls it), an article of it, and a name its enrichment found that the catalogue lacks.
  const news = newsroom.deps.console.news;
  await news.sources.create(source);
  expect(await news.articles.insertNew([ARTICLE])).toMatchObject({ inserted: 1 });
  await news.entityCandidates.mention(candidateKey, { name: candidateName, entityType: 'INSTITUTION', ticker: null, cnpj: null }, ARTICLE._id, new Date(NOW - HOUR));

  // The quiz: the day's morning edition, and a quiz written by hand for it (regenerated in step 8).
  const quiz = web.deps.console.quiz;
  await quiz.quiz.editions.put(QUIZ_DAY, 'morning', { title: `Edição da manhã de ${QUIZ_DAY}`, text: QUIZ_TEXT });
  firstQuizId = (await createQuiz(quiz, { date: QUIZ_DAY, edition: 'morning', questions: manualQuestions() })).quizId;
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(tabs).map((t) => t.context.close().catch(() => undefined)));
  await browser?.close();
  await provider().reset(`quiz-generation:${quizDateOf(QUIZ_DAY, 'morning')}`).catch(() => undefined);
  await newsroom?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await Promise.all([web?.close(), newsroom?.close(), support?.close()]);
  build?.remove();
});

// ---- People and their tabs ----

/** Every person's tab, by who they are (a failing step screenshots them all). */
const tabs: Record<string, Tab> = {};

/** Opens a tab of its own for `who` and signs in as `email` (the address filled in, as an invitation's link does). */
async function signedIn(who: string, email: string, at: WebService = web): Promise<Tab> {
  const t = await openTab(browser);
  t.page.setDefaultTimeout(WAIT_MS);
  tabs[who] = t;
  await t.page.goto(`${at.origin}/sign-in#${new URLSearchParams({ email }).toString()}`);
  await signInWithCode(t.page, email);
  await t.page.waitForURL('**/account/keys');
  return t;
}

/** Opens a section from the console's navigation (as a person does: the dashboard's header, then the section). */
async function openSection(page: Page, name: string): Promise<void> {
  if (!new URL(page.url()).pathname.startsWith('/staff')) {
    await page.getByRole('banner').getByRole('link', { name: 'Staff console' }).click();
    await heading(page, 'Staff console').waitFor();
  }
  await page.getByRole('navigation', { name: 'Staff console sections' }).getByRole('link', { name, exact: true }).click();
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
const sectionLinks = async (page: Page) => (await page.getByRole('navigation', { name: 'Staff console sections' }).getByRole('list').first().getByRole('link').allTextContents()).map((s) => s.trim());
const notice = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first();
const memberRow = (page: Page, email: string) => page.locator(`tr[data-member="${email}"]`);
const ticketRow = (page: Page, id: number) => page.locator(`tr[data-ticket="${id}"]`);
const focusedTicket = (page: Page) => page.evaluate('document.activeElement?.closest("tr")?.getAttribute("data-ticket") ?? null');
const thread = (page: Page) => page.locator('.sd-thread').first();
const presence = (page: Page) => page.getByTestId('presence');
const ticketOf = (id: number) => web.deps.console.support.tickets.findById(id);
/** GET through a person's own session (the tab's cookies), as the page asks: status and body. */
async function apiAs(t: Tab, path: string): Promise<{ status: number; body: any }> {
  const res = await t.page.request.get(`${new URL(t.page.url()).origin}${path}`);
  return { status: res.status(), body: await res.json().catch(() => null) };
}

/**
 * Waits until an expression holds in the page. Polled from here: Playwright's waitForFunction
 * compiles its predicate in the page, which the page's CSP (no 'unsafe-eval') refuses.
 */
async function until(page: Page, expression: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- The day's steps: ordered, sharing their state ----

let failed: string | null = null;

/** A step of the day: not run after a failed one (which it names); a failure screenshots every tab. */
function step(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    if (failed) throw new Error(`not run: it needs what step "${failed}" was to leave`);
    try {
      await body();
    } catch (err) {
      failed = name;
      for (const [who, t] of Object.entries(tabs)) await t.page.screenshot({ path: path.join(SHOTS, `staff-day-failed-${who}.png`), fullPage: true }).catch(() => undefined);
      throw err;
    }
  });
}

let ownerTab: Tab;
let agentTab: Tab;
/** The ticket the agent works on: A's second (the third opened). */
let worked: number;

describe("a working day in the staff console", () => {
  step('1. the owner signs in and invites an agent on the Members page', async () => {
    ownerTab = await signedIn('owner', owner);
    const { page } = ownerTab;
    await openSection(page, 'Staff');
    await heading(page, 'Staff members').waitFor();
    await memberRow(page, owner).filter({ hasText: 'Active' }).waitFor();
    expect(await web.deps.staff.findMember(owner)).toMatchObject({ status: 'active', roles: ['owner'] });

    await page.getByLabel('E-mail address').fill(agent);
    await page.getByRole('group', { name: 'Roles' }).getByRole('checkbox', { name: 'Support agent' }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await notice(page, `Invitation sent to ${agent}.`).waitFor();
    await memberRow(page, agent).filter({ hasText: 'Invited' }).waitFor();
    expect(await memberRow(page, agent).textContent()).toMatch(/Support agent.*Invited/);
    // Stored, mailed, and in the audit log, by the owner.
    expect(await web.deps.staff.findMember(agent)).toMatchObject({ status: 'invited', roles: ['support.agent'], invitedBy: owner });
    const members = await apiAs(ownerTab, '/api/staff/members');
    expect(members.status).toBe(200);
    expect(members.body.data.find((m: { email: string }) => m.email === agent)).toMatchObject({ status: 'invited', roles: ['support.agent'] });
    await page.locator('tr[data-audit-id]').first().filter({ hasText: agent }).waitFor();
    await checkPage(ownerTab, 'staff-day-members-invited');
  });

  step("2. the agent follows the invitation's link and signs in with the mailed code", async () => {
    const [mail] = await waitForMessagesTo(agent, { timeoutMs: 30_000 });
    const link = /(http\S+\/sign-in#email=\S+)/.exec(mail!.text)?.[1];
    expect(link).toBeDefined();
    expect(link!.startsWith(web.origin)).toBe(true);
    const t = await openTab(browser);
    t.page.setDefaultTimeout(WAIT_MS);
    tabs.agent = t;
    agentTab = t;
    const { page } = t;
    await page.goto(link!);
    // The link fills the address in: the code alone is asked.
    expect(await eventually(() => page.getByLabel('E-mail address').inputValue(), agent)).toBe(agent);
    await signInWithCode(page, agent);
    await page.waitForURL('**/account/keys');
    await openSection(page, 'Support desk');
    await heading(page, 'Support desk').waitFor();
    expect(await sectionLinks(page)).toEqual(['Support desk']);
    // Signing in with the mailed code made the invitation an active member.
    expect(await web.deps.staff.findMember(agent)).toMatchObject({ status: 'active', activatedAt: expect.any(Date) });
    const me = await apiAs(agentTab, '/api/staff/me');
    expect(me).toMatchObject({ status: 200, body: { data: { email: agent, roles: ['support.agent'] } } });
    await page.getByTestId('live-status').getByText('Live').waitFor();
    await checkPage(agentTab, 'staff-day-agent-support');
  });

  step('3. the agent takes a ticket by keyboard, sends a quick reply, adds a note and a tag', async () => {
    const { page } = agentTab;
    const quickBefore = (await client(support, await agentToken()).get('/support/respostas-rapidas').expect(200)).body.data.find((q: { id: number }) => q.id === quickId);
    expect(quickBefore).toMatchObject({ usageCount: 0 });

    // The day's newsletter, unassigned: its four tickets, newest first.
    await page.getByLabel('Newsletter', { exact: true }).locator('option', { hasText: newsletter }).waitFor({ state: 'attached' });
    await page.getByLabel('Newsletter', { exact: true }).selectOption(newsletter);
    await page.getByRole('navigation', { name: 'Queue views' }).getByRole('link', { name: /^Unassigned/ }).click();
    await page.waitForURL((u) => u.searchParams.get('view') === 'unassigned' && u.searchParams.get('newsletter') === newsletter);
    // The view drawn, and its list's answer drawn (the rows asked for are on the view before it too).
    await page.locator('a[data-view="unassigned"][aria-current="page"]').waitFor();
    await page.locator('table.sd-queue[aria-busy="false"]').waitFor();
    for (const id of ids) await ticketRow(page, id).waitFor();
    expect(await page.locator('tr[data-ticket]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-ticket'))))).toEqual([...ids].reverse());
    await checkPage(agentTab, 'staff-day-queue');

    // j, j, j, k: the cursor on the second row (A's second ticket); Enter opens it; `a` takes it.
    worked = ids[2]!;
    await page.keyboard.press('j');
    expect(await focusedTicket(page)).toBe(String(ids[3]));
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await focusedTicket(page)).toBe(String(worked));
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/staff/support/${worked}`);
    await heading(page, new RegExp(`^#${worked} · `)).waitFor();
    await page.keyboard.press('a');
    await page.getByTestId('assignee').getByText('You', { exact: true }).waitFor();
    expect((await ticketOf(worked))?.assignee).toBe(agent);

    // A quick reply, sent as it is: in the thread, and its use counted.
    await page.getByLabel('Quick reply').selectOption({ label: quickTitle });
    await page.getByRole('button', { name: 'Insert' }).click();
    const box = page.getByLabel('Your reply or internal note');
    await expect(box.inputValue()).resolves.toBe(quickContent);
    await page.getByRole('button', { name: 'Send quick reply' }).click();
    await notice(page, `Quick reply “${quickTitle}” sent.`).waitFor();
    await thread(page).locator('[data-origin="admin"]').getByText(quickContent).waitFor();
    const quickAfter = (await client(support, await agentToken()).get('/support/respostas-rapidas').expect(200)).body.data.find((q: { id: number }) => q.id === quickId);
    expect(quickAfter).toMatchObject({ usageCount: 1 });
    await page.getByRole('region', { name: 'Status' }).getByText('Pending', { exact: true }).waitFor();

    // An internal note and a tag.
    await box.fill(`Conferi os logs: a edição saiu às 6h (${run}).`);
    await page.getByRole('button', { name: 'Add internal note' }).click();
    await thread(page).locator('[data-origin="nota"]').getByText(`Conferi os logs: a edição saiu às 6h (${run}).`).waitFor();
    await page.getByLabel('Add a tag').selectOption({ label: tagName });
    await page.getByRole('region', { name: 'Tags' }).getByRole('button', { name: 'Add' }).click();
    await page.getByRole('button', { name: `Remove the tag ${tagName}` }).waitFor();

    const stored = await ticketOf(worked);
    // "Pending" on the page: answered, waiting for the requester.
    expect(stored).toMatchObject({ assignee: agent, status: 'in_progress' });
    expect(stored?.tags).toContain(tagId);
    expect((await web.deps.console.support.tickets.messages(worked)).map((m) => [m.origem, m.remetente, m.conteudo])).toEqual([
      ['admin', agent, quickContent],
      ['nota', agent, `Conferi os logs: a edição saiu às 6h (${run}).`],
    ]);
    await checkPage(agentTab, 'staff-day-ticket');
  });

  step('4. a second agent on the same ticket sees the first replying', async () => {
    const second = await signedIn('agent2', agent2);
    const { page } = second;
    await page.goto(`${web.origin}/staff/support/${worked}`);
    await heading(page, new RegExp(`^#${worked} · `)).waitFor();
    await presence(page).getByText(`${agent} is viewing`).waitFor();

    await agentTab.page.getByLabel('Your reply or internal note').fill('Estamos reenviando a edição agora');
    await presence(page).getByText(`${agent} is replying`).waitFor();
    // The API says the same to the second agent's session.
    const now = await apiAs(second, `/api/staff/support/${worked}/presenca`);
    expect(now.status).toBe(200);
    expect(now.body.data.people).toEqual(expect.arrayContaining([expect.objectContaining({ email: agent, state: 'replying' })]));
    // And the first sees the second.
    await presence(agentTab.page).getByText(`${agent2} is viewing`).waitFor();
    await checkPage(second, 'staff-day-presence');
  });

  step('5. the agent resolves a selection in bulk, with its progress to completion', async () => {
    const { page } = agentTab;
    // The reply left unsent: the box emptied, and out of it (the page's keys work again), back to the queue.
    await page.getByLabel('Your reply or internal note').fill('');
    await page.keyboard.press('Escape');
    await page.keyboard.press('u');
    await page.waitForURL(/\/staff\/support\?/);
    await heading(page, 'Support desk').waitFor();
    await page.getByRole('navigation', { name: 'Queue views' }).getByRole('link', { name: /^Open/ }).click();
    await page.waitForURL(/view=open/);
    // The view drawn, and its list's answer drawn (the rows asked for are on the view before it too).
    await page.locator('a[data-view="open"][aria-current="page"]').waitFor();
    await page.locator('table.sd-queue[aria-busy="false"]').waitFor();
    for (const id of [ids[0]!, ids[1]!, ids[3]!]) await ticketRow(page, id).waitFor();
    // The worked ticket is pending: not in the open view.
    await ticketRow(page, worked).waitFor({ state: 'detached' });

    await ticketRow(page, ids[3]!).getByRole('checkbox').check();
    await ticketRow(page, ids[1]!).getByRole('checkbox').check();
    const bar = page.getByRole('toolbar', { name: 'Actions on 2 selected tickets' });
    await bar.getByRole('button', { name: 'Change status…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the status of 2 tickets' });
    await dialog.getByRole('radio', { name: 'Resolved' }).check();
    await dialog.getByRole('button', { name: 'Apply to 2 tickets' }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.waitFor();
    await progress.getByText('Completed', { exact: true }).waitFor({ timeout: 120_000 });
    await progress.getByText('2 of 2 processed (100%)', { exact: true }).waitFor();
    await progress.getByText('2 succeeded', { exact: true }).waitFor();
    await progress.getByText('0 failed', { exact: true }).waitFor();
    expect((await Promise.all([ids[1]!, ids[3]!, ids[0]!].map(ticketOf))).map((t) => t?.status)).toEqual(['resolved', 'resolved', 'open']);
    // The view is read again: the resolved tickets have left it.
    await ticketRow(page, ids[3]!).waitFor({ state: 'detached' });
    await ticketRow(page, ids[1]!).waitFor({ state: 'detached' });
    await ticketRow(page, ids[0]!).waitFor();
    await checkPage(agentTab, 'staff-day-bulk-done');
  });

  step("6. the manager reads a report's chart and table, and downloads its CSV", async () => {
    const t = await signedIn('manager', manager);
    const { page } = t;
    await openSection(page, 'Reports');
    await heading(page, 'Reports').waitFor();
    // The day's newsletter. Its tickets are minutes old, and the filters' choices are kept five
    // minutes (another file on this database may have read them before): Refresh reads them again.
    const filters = page.getByRole('form', { name: 'Filters' });
    const choices = page.waitForResponse((r) => r.url().includes('/relatorios/filtros') && r.url().includes('fresh=true'));
    await page.getByRole('button', { name: 'Refresh all reports' }).click();
    expect((await (await choices).json()).data.newsletters).toContain(newsletter);
    await filters.getByLabel('Newsletter').locator('option', { hasText: newsletter }).waitFor({ state: 'attached' });
    await filters.getByLabel('Newsletter').selectOption(newsletter);
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('newsletter') === newsletter);
    await page.getByTestId('detailed-total').filter({ hasText: new RegExp(`^${ids.length} tickets?,`) }).waitFor();

    // The categories: a chart named for screen readers, and its numbers in a table: the API's.
    const categories = page.locator('section[data-report="reports-categories"]');
    await until(page, `document.querySelector('section[data-report="reports-categories"]')?.getAttribute('aria-busy') === 'false' && !!document.querySelector('section[data-report="reports-categories"] canvas[role="img"]')`);
    // The day's four tickets, of one category: two resolved in bulk (step 5).
    const answer = await apiAs(t, `/api/staff/support/relatorios/categorias?${new URLSearchParams({ newsletter })}`);
    expect(answer.status).toBe(200);
    const rows = answer.body.data.categorias as { main: string; issue: string; total: number; resolvidos: number }[];
    expect(rows.reduce((n, c) => n + c.total, 0)).toBe(ids.length);
    expect(rows.reduce((n, c) => n + c.resolvidos, 0)).toBe(2);
    const chart = categories.locator('canvas[role="img"]');
    expect(await chart.getAttribute('aria-label')).toMatch(new RegExp(`^Bar chart: tickets of the ${rows.length} categor.+The numbers are in the table below\\.$`));
    expect(await chart.evaluate((c: any) => c.width > 0 && c.height > 0)).toBe(true);
    await categories.getByText('Show the numbers as a table').click();
    await categories.locator('table').waitFor({ state: 'visible' });
    const table = await categories.locator('table tbody tr').evaluateAll((trs) => trs.map((r) => [...r.children].slice(0, 3).map((c) => (c.textContent ?? '').trim())));
    expect(table).toEqual(rows.map((c) => [c.main, c.issue, String(c.total)]));
    await checkPage(t, 'staff-day-reports');

    // The CSV, with the filter in force.
    const [download] = await Promise.all([page.waitForEvent('download'), categories.getByRole('link', { name: 'Download CSV Categories' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^relatorio-categorias-.*\.csv$/);
    const lines = (await readFile((await download.path())!, 'utf8')).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('main,issue,total,abertos,emAndamento,resolvidos,fechados,taxaResolucao');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3))).toEqual(rows.map((c) => [c.main, c.issue, String(c.total)]));
    expect(lines.slice(1).reduce((n, l) => n + Number(l.split(',')[5]), 0)).toBe(2);
    expect(t.consoleErrors).toEqual([]);
  });

  step('7. the editor accepts a curation candidate and corrects an article with it', async () => {
    const t = await signedIn('editor', editor, newsroom);
    const { page } = t;
    const newsTabs = page.getByRole('navigation', { name: 'News administration' });
    await openSection(page, 'News');
    await heading(page, 'News sources').waitFor();
    await newsTabs.getByRole('link', { name: 'Curation queue' }).click();
    await heading(page, 'Curation queue').waitFor();
    const candidate = page.locator(`tr[data-candidate="${candidateKey}"]`);
    await candidate.waitFor();
    expect(await candidate.textContent()).toMatch(new RegExp(`${candidateName}.*Institution`));
    await checkPage(t, 'staff-day-curation');
    await candidate.getByRole('button', { name: `Accept ${candidateName}` }).click();
    await notice(page, `${candidateName} is in the catalogue now`).waitFor();
    await candidate.waitFor({ state: 'detached' });
    const accepted = await newsroom.deps.console.news.entityCandidates.get(candidateKey);
    expect(accepted).toMatchObject({ state: 'accepted', entityId: expect.any(String) });
    expect(await newsroom.deps.console.news.entities.findById(accepted!.entityId!)).toMatchObject({ canonicalName: candidateName, entityType: 'INSTITUTION' });

    // The article, from its source's list.
    await newsTabs.getByRole('link', { name: 'Articles' }).click();
    await heading(page, 'Articles').waitFor();
    await page.getByLabel('Source').locator(`option[value="${SOURCE}"]`).waitFor({ state: 'attached' });
    await page.getByLabel('Source').selectOption(SOURCE);
    await page.locator(`tr[data-article="${ARTICLE._id}"]`).getByRole('link', { name: ARTICLE.title }).click();
    await heading(page, ARTICLE.title).waitFor();
    const form = page.locator('form.nw-correction-form');
    await form.getByLabel('Primary sector').selectOption('FIN');
    await form.getByLabel('Primary topic').selectOption('DEBT');
    await form.getByLabel('Label', { exact: true }).selectOption('NEUTRO');
    await form.getByLabel('Score (optional)').fill('0');
    await form.getByLabel('Add an entity: search the catalogue').fill('banco do dia');
    await form.getByRole('button', { name: `Add ${candidateName}` }).click();
    await form.getByRole('status').filter({ hasText: `${candidateName} added.` }).waitFor();
    await form.getByLabel('Note, for the other editors (optional)').fill('A matéria é sobre dívida, não sobre energia');
    await checkPage(t, 'staff-day-correction');
    await form.getByRole('button', { name: 'Save the correction' }).click();
    await notice(page, 'Correction saved: readers see it now.').waitFor();
    await page.getByTestId('article-pipeline').filter({ hasText: 'Corrected by' }).waitFor();

    // Read back through the API, as the page reads it.
    const res = await apiAs(t, `/api/staff/news/admin/articles/${ARTICLE._id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      primarySector: 'FIN',
      primaryTopic: 'DEBT',
      correction: { note: 'A matéria é sobre dívida, não sobre energia', labels: { primarySector: 'FIN', primaryTopic: 'DEBT', sentimentLabel: 'NEUTRO', entities: [{ entityId: accepted!.entityId, canonicalName: candidateName }] } },
      article: { primarySector: 'FIN', sentimentLabel: 'NEUTRO' },
    });
    expect(await newsroom.deps.console.news.articles.findById(ARTICLE._id)).toMatchObject({ primarySector: 'FIN', primaryTopic: 'DEBT' });
    await checkPage(t, 'staff-day-corrected');
  });

  step('8. the quiz administrator regenerates a quiz (the OpenAI double writes it)', async () => {
    // What the model answers for this quiz: ten questions, each quoting the edition.
    const user = `quiz-generation:${quizDateOf(QUIZ_DAY, 'morning')}`;
    await provider().reset(user);
    await provider().script(user, [{ kind: 'reply', content: modelQuiz(QUIZ_TEXT) }]);

    const t = await signedIn('quizadmin', quizAdmin);
    const { page } = t;
    await openSection(page, 'Quiz');
    await heading(page, 'Quiz').waitFor();
    // The day's quizzes, by the list's filters.
    await page.getByLabel('From', { exact: true }).fill(QUIZ_DAY);
    await page.getByLabel('To', { exact: true }).fill(QUIZ_DAY);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('from') === QUIZ_DAY);
    // The day's list has one row (the day's quiz is the newest of any list, so it is on the one before too).
    await page.locator('tr[data-quiz]').nth(1).waitFor({ state: 'detached' });
    const row = page.locator(`tr[data-quiz="${firstQuizId}"]`);
    await row.waitFor();
    expect(await page.locator('tr[data-quiz]').count()).toBe(1);
    expect(await row.textContent()).toContain('Written by hand');
    await row.getByRole('link').click();
    await page.locator('.quiz-question').first().waitFor();
    expect(await page.locator('.quiz-question').count()).toBe(10);

    await page.getByRole('button', { name: 'Regenerate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate this quiz?' });
    await dialog.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByTestId('quiz-regenerated').waitFor({ timeout: 120_000 });
    await notice(page, 'Quiz regenerated: this is the new one.').waitFor();
    const newId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect(newId).not.toBe(firstQuizId);
    expect(await page.getByTestId('quiz-regenerated').textContent()).toContain(firstQuizId);
    expect(await page.locator('.quiz-question').count()).toBe(10);
    expect(await page.locator('main').textContent()).toContain('Generated');
    // The double's questions, each with its evidence from the edition.
    await page.getByText('Fato 1: verdadeiro').first().waitFor();

    // Stored: the new quiz alone for the day, generated; the API answers it, and the old one no more.
    const stored = await web.deps.mongo.conn.db!.collection('quizzes').find({ date: QUIZ_DAY }).toArray();
    expect(stored.map((q) => [q._id, q.origin])).toEqual([[newId, 'generated']]);
    expect((await apiAs(t, `/api/staff/quiz/admin/${encodeURIComponent(newId)}`)).body.data).toMatchObject({ id: newId, origin: 'generated', questions: expect.arrayContaining([expect.objectContaining({ number: 1 })]) });
    expect((await apiAs(t, `/api/staff/quiz/admin/${encodeURIComponent(firstQuizId)}`)).status).toBe(404);
    await checkPage(t, 'staff-day-quiz-regenerated');
  });

  step("9. the owner removes the agent; the agent's next action ends at sign-in", async () => {
    const { page } = ownerTab;
    await page.reload();
    await heading(page, 'Staff members').waitFor();
    await memberRow(page, agent).filter({ hasText: 'Active' }).waitFor();
    await memberRow(page, agent).getByRole('button', { name: `Remove ${agent}` }).click();
    const confirm = page.getByRole('dialog', { name: `Remove ${agent}?` });
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await notice(page, `${agent} was removed from the staff (1 session ended).`).waitFor();
    await memberRow(page, agent).waitFor({ state: 'detached' });
    await page.locator('tr[data-audit-id]').first().filter({ hasText: 'Removed' }).waitFor();
    expect(await web.deps.staff.findMember(agent)).toBeNull();
    expect(await web.deps.mongo.conn.db!.collection('web_sessions').countDocuments({ email: agent })).toBe(0);
    await checkPage(ownerTab, 'staff-day-members-removed');

    // The agent, still on the queue, opens a ticket: the session has ended (401), and the console sends them to sign in.
    const agentPage = agentTab.page;
    expect(new URL(agentPage.url()).pathname).toBe('/staff/support');
    await ticketRow(agentPage, ids[0]!).getByRole('link').first().click();
    await agentPage.waitForURL((u) => u.pathname.startsWith('/sign-in'));
    await agentPage.getByLabel('E-mail address').waitFor();
    // The browser reported the refusals (401), and nothing else.
    const errors = takeConsoleErrors(agentTab);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !e.includes('status of 401'))).toEqual([]);
    expect((await apiAs(agentTab, '/api/staff/me')).status).toBe(401);
    expect((await apiAs(agentTab, `/api/staff/support/${ids[0]}`)).status).toBe(401);
    await checkPage(agentTab, 'staff-day-agent-signed-out');

    // The others' sessions are theirs still.
    expect((await apiAs(ownerTab, '/api/staff/me')).status).toBe(200);
    expect((await apiAs(tabs.agent2!, '/api/staff/me')).status).toBe(200);
    for (const [who, t] of Object.entries(tabs)) if (who !== 'agent') expect({ who, errors: t.consoleErrors }).toEqual({ who, errors: [] });
  });
});
