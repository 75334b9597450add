/**
 * The staff console's News section (issue 38 item 3) in a real browser: headless Chromium driven by
 * Playwright, against the web service on a port of loopback and Mailpit, on a database and task
 * queues of its own with a worker serving its news-sources queue (so a poll, the enrichments it
 * starts and a re-enrichment run on this file's data alone, with the news sites and OpenAI
 * doubles), and a copy of the page's build of its own.
 *
 * Seeded as tests/integration/news-editors.test.ts seeds the editors' backend: a catalogue, sources
 * (one reading a feed of the news sites double, one failing, one disabled), articles in every
 * pipeline state, and curation candidates. A news administrator signs in and: sees the sources'
 * health, polls a source (its health follows), adds, edits, disables and enables sources; lists
 * articles by state, hides one with a reason and shows it again; accepts a curation candidate and
 * adds another as an alias of an entity; corrects an article (classification, sentiment, an entity
 * accepted a moment before; the correction is read back through the API, and the labelled example
 * exists); edits an entity's ticker (refused on the field when another entity has it); starts a
 * re-enrichment of a source and cancels it; and reads the pages in Portuguese. Every page is
 * checked with axe-core (no serious or critical violation), with no console error and nothing
 * wider than the screen, at a desktop's and a phone's width (375 px), and screenshotted into
 * reports/screenshots/staff-news-*.png.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { collectionOf } from '../../models/infra/mongo';
import type { ArticleDoc, EnrichmentRecord } from '../../models/news/article.rules';
import { WAITING_NOTE } from '../../models/news/editorial.rules';
import { ENRICHMENT_EXAMPLES, type EnrichmentExampleDoc } from '../../models/news/enrichment-example.repo';
import type { EntityDoc } from '../../models/news/entity.model';
import { nameKeysOf } from '../../models/news/entity.rules';
import { buildArticle, buildDictionary, ImportLine } from '../../models/news/ingest.rules';
import type { ReenrichmentDoc } from '../../models/news/reenrichment.repo';
import { createFeedItemRepo, type FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { NEW_HEALTH, type SourceDoc } from '../../models/news/sources/source.rules';
import { enrichmentUser } from '../../operations/news/enrich-article';
import { inviteMember } from '../../operations/staff/members';
import { workflowIds } from '../../workflows/ids';
import { provider } from '../helpers/ai';
import { checkPage, launchChromium, openTab, signInWithCode, snapshotWebBuild, takeConsoleErrors, type Tab } from '../helpers/browser';
import { startNewsSourcesWorker } from '../helpers/news-worker';
import { startWebService, type WebService } from '../helpers/web';

jest.setTimeout(240_000);

const TAG = randomUUID().slice(0, 8);
const HOUR = 3_600_000;
const NOW = Date.now();
const ago = (h: number) => new Date(NOW - h * HOUR);

let web: WebService;
let browser: Browser;
let worker: { close(): Promise<void> } | undefined;
let build: { dir: string; remove(): void } | undefined;
let tab: Tab;
const editor = `editor-${TAG}@example.com`;

// ---- The fixture: as tests/integration/news-editors.test.ts ------------------------------------

const entity = (name: string, type: EntityDoc['entityType'], ticker: string | null, cnpj: string | null, aliases: string[] = []): EntityDoc => ({
  _id: randomUUID(),
  entityType: type,
  canonicalName: name,
  aliases,
  ticker,
  cnpj,
  nameKeys: nameKeysOf(name, aliases),
  createdAt: new Date(NOW),
});
const PETRO = entity('Petrobras', 'COMPANY', 'PETR4', '33.000.167/0001-01', ['Petrobrás']);
const VALE = entity('Vale', 'COMPANY', 'VALE3', '33.592.510/0001-54', ['Vale S.A.']);
const TESOURO = entity('Tesouro Nacional', 'INSTITUTION', null, null);

/** The source reading a feed of the news sites double (polled in the test), the failing one the articles are from, a disabled one. */
const S_FEED = randomUUID();
const S_MONEY = randomUUID();
const S_OFF = randomUUID();

const enriched = (h: number): EnrichmentRecord => ({ state: 'enriched', promptVersion: 'enrich-older', model: 'gpt-4o-mini', promptTokens: 900, completionTokens: 300, costUsd: 0.0003, attempts: 1, at: ago(h), error: null });

/** An article of Money Times (`imported`: an import's, of no source). */
function article(title: string, h: number, over: Partial<ArticleDoc> & { line?: Partial<ImportLine>; imported?: boolean } = {}): ArticleDoc {
  const { line, imported, ...fields } = over;
  const parsed = ImportLine.parse({
    title,
    summary: `${title}: o resumo da matéria para os leitores.`,
    sourceName: 'Money Times',
    sourceUrl: `https://staff-news.example/${randomUUID()}`,
    publishedAt: ago(h).toISOString(),
    primarySector: 'ENE',
    primaryTopic: 'GUIDANCE',
    modules: { sentiment: { score: 0.46, label: 'POSITIVO', confidence: 0.8 }, classification: { secondarySectors: ['MAT'], secondaryTopics: [], keywords: ['petróleo'] } },
    ...line,
  });
  const { doc } = buildArticle(randomUUID(), parsed, buildDictionary([PETRO, VALE, TESOURO]), ago(h));
  return { ...doc, ...(imported ? {} : { sourceId: S_MONEY }), ...fields };
}

const A1 = article('Petrobras prevê investimentos de US$ 109 bilhões no plano de negócios', 1, { enrichment: enriched(1) });
const A5 = article('Vale anuncia leilão extraordinário de minério', 2, {
  enrichment: enriched(2),
  line: { isBreaking: true, contentType: 'BREAKING', urgencyLevel: 'CRITICAL', primarySector: 'MAT', primaryTopic: 'CONTRACT' },
});
const A2 = article('Petrobras revisa projeção de produção', 3, { enrichment: { ...enriched(3), state: 'failed', error: 'the AI provider refused the request (rejected): policy' } });
const A3 = article('Tesouro Nacional capta US$ 2 bilhões no exterior', 5, { imported: true, line: { sourceName: 'Agência de Notícias', primarySector: 'FIN', primaryTopic: 'DEBT' } });
const A4 = article('Vale conclui venda de fatia em metais básicos', 7, { enrichment: { ...enriched(7), state: 'waiting-budget' } });
/** Older articles of the source, enough for a re-enrichment that runs while it is cancelled (and for a second page of articles). */
const FILLERS = Array.from({ length: 16 }, (_, i) => article(`Boletim de mercado número ${i + 1} da semana`, 20 + i, { enrichment: enriched(20 + i), line: { primarySector: 'FIN', primaryTopic: 'MACRO' } }));
const MONEY_ARTICLES = [A1, A5, A2, A4, ...FILLERS];

function item(h: number, over: Partial<FeedItemDoc> = {}): FeedItemDoc {
  const id = randomUUID();
  return {
    _id: id, sourceId: S_MONEY, guid: id, url: `https://staff-news.example/item/${id}`, title: `Notícia do feed de ${h} horas atrás`, summary: 'Resumo do feed.',
    feedPublishedAt: ago(h), seenAt: ago(h), publishedAt: ago(h), articleId: randomUUID(), state: 'extracted', page: null, urlKey: null,
    simBands: [], signature: null, sameAs: null, alsoReportedBy: [], error: null, updatedAt: ago(h), ...over,
  };
}
const I0 = item(0.5);
const I6 = item(6, { error: WAITING_NOTE });
const I8 = item(8, { state: 'failed', error: "the model's enrichment was refused 3 times: entities: required" });

const source = (id: string, name: string, feedUrl: string, over: Partial<SourceDoc> = {}): SourceDoc => ({
  _id: id, name, feedUrl, feedKey: feedUrl.replace(/^https?:\/\//, ''), tier: 2, language: 'pt', defaultSector: null,
  pollIntervalMinutes: 5, enabled: true, http: { etag: null, lastModified: null }, health: { ...NEW_HEALTH }, createdAt: new Date(NOW), updatedAt: new Date(NOW), ...over,
});

interface Site {
  id: string;
  name: string;
  feedUrl: string;
}

async function seed(): Promise<Site> {
  const news = web.deps.console.news;
  const info = (await (await fetch(`${process.env.NEWS_WEB_DOUBLE_URL}/__control/info`)).json()) as { sites: Site[] };
  const site = info.sites.find((s) => s.id === 'diario-do-mercado')!;
  await news.entities.insertMany([PETRO, VALE, TESOURO]);
  await news.sources.create(source(S_FEED, site.name, site.feedUrl, { tier: 1, pollIntervalMinutes: 60 }));
  await news.sources.create(
    source(S_MONEY, 'Money Times', 'https://feeds.staff-news.example/money-times.xml', {
      health: { lastPollAt: ago(0.2), lastSuccessAt: ago(30), lastError: 'HTTP 503 Service Unavailable', lastErrorAt: ago(0.2), consecutiveFailures: 6, itemsSeen: 412, articlesCreated: 380, nextPollAt: new Date(NOW + 2.5 * HOUR) },
    }),
  );
  await news.sources.create(source(S_OFF, 'Folha do Agro', 'https://feeds.staff-news.example/folha-do-agro.xml', { enabled: false, tier: 3, defaultSector: 'AGR', health: { ...NEW_HEALTH, lastPollAt: ago(48), lastSuccessAt: ago(48), itemsSeen: 35, articlesCreated: 30 } }));
  expect(await news.articles.insertNew([A1, A5, A2, A3, A4, ...FILLERS])).toMatchObject({ inserted: 5 + FILLERS.length });
  await createFeedItemRepo(news.mongo.conn).ensureIndexes();
  await collectionOf<FeedItemDoc>(news.mongo.conn, 'news_feed_items').insertMany([I0, I6, I8]);
  const seen = new Date(NOW - HOUR);
  await news.entityCandidates.mention('banco do tesouro', { name: 'Banco do Tesouro', entityType: 'INSTITUTION', ticker: null, cnpj: null }, A1._id, seen);
  await news.entityCandidates.mention('banco do tesouro', { name: 'Banco do Tesouro', entityType: 'INSTITUTION', ticker: null, cnpj: null }, A2._id, new Date(NOW));
  await news.entityCandidates.mention('vale do rio doce', { name: 'Vale do Rio Doce', entityType: 'COMPANY', ticker: null, cnpj: null }, A5._id, seen);
  await news.entityCandidates.mention('margem equatorial', { name: 'Margem Equatorial', entityType: 'LOCATION', ticker: null, cnpj: null }, A1._id, seen);
  return site;
}

let site: Site;

beforeAll(async () => {
  build = await snapshotWebBuild();
  [web, browser] = await Promise.all([
    startWebService({ MONGODB_DB: `staff_news_${TAG}`, TASK_QUEUE_PREFIX: `staff-news-${TAG}-`, WEB_DIST_DIR: build.dir }, { listen: true }),
    launchChromium(),
  ]);
  worker = await startNewsSourcesWorker('staff-news', { config: web.deps.config, conn: web.deps.mongo.conn, storage: web.deps.console.news.storage });
  site = await seed();
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: editor, roles: ['news.admin'] });
}, 120_000);

afterAll(async () => {
  await tab?.context.close().catch(() => undefined);
  await browser?.close();
  await worker?.close();
  // The pollers started here have no worker left: end them, so they do not wait in Temporal.
  for (const id of [S_FEED, S_MONEY, S_OFF]) await web?.deps.temporal.client.workflow.getHandle(workflowIds.newsSource(id)).terminate('test over').catch(() => undefined);
  await web?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await web?.close();
  build?.remove();
});

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });
const sourceRow = (page: Page, id: string) => page.locator(`tr[data-source="${id}"]`);
const articleRow = (page: Page, id: string) => page.locator(`tr[data-article="${id}"]`);
const candidateRow = (page: Page, id: string) => page.locator(`tr[data-candidate="${id}"]`);
const entityRow = (page: Page, id: string) => page.locator(`tr[data-entity="${id}"]`);
const tabs = (page: Page) => page.getByRole('navigation', { name: 'News administration' });
const notice = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first();
/** Waits until every one of the articles is listed (a row alone may be on the list drawn before, too). */
async function untilListed(page: Page, ids: string[]): Promise<void> {
  for (const end = Date.now() + 30_000; ; await page.waitForTimeout(100)) {
    const listed = await page.locator('tr[data-article]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-article')));
    if (ids.every((id) => listed.includes(id))) return;
    if (Date.now() > end) throw new Error(`not listed: ${ids.filter((id) => !listed.includes(id)).join(', ')}`);
  }
}
/** Who the news API records an editor's actions as: the member's address (actorOf). */
const editorId = async () => editor;

describe('the News section', () => {
  it("shows a news administrator the sources' health", async () => {
    tab = await openTab(browser);
    const { page } = tab;
    await page.goto(`${web.origin}/staff/news`);
    await page.waitForURL('**/sign-in');
    await signInWithCode(page, editor);
    await page.waitForURL('**/staff/news');
    await heading(page, 'News sources').waitFor();
    expect(await page.title()).toBe('News sources · Staff console · Newsletter Platform');
    // The navigation lists the News section alone.
    expect((await page.getByRole('navigation', { name: 'Staff console sections' }).getByRole('list').first().getByRole('link').allTextContents()).map((s) => s.trim())).toEqual(['News']);

    const failing = sourceRow(page, S_MONEY);
    await failing.waitFor();
    expect(await failing.getAttribute('data-state')).toBe('failing');
    const text = await failing.textContent();
    expect(text).toContain('Failing');
    expect(text).toContain('6 failures in a row');
    expect(text).toContain('Last error: HTTP 503 Service Unavailable');
    expect(text).toContain('Backed off until');
    expect(text).toContain('412 items seen');
    expect(text).toContain('380 articles');
    expect(await sourceRow(page, S_OFF).textContent()).toMatch(/Disabled.*Not polled \(disabled\)/);
    expect(await sourceRow(page, S_FEED).textContent()).toContain('Not polled yet');
    await checkPage(tab, 'staff-news-sources');
  });

  it('polls a source now: its health follows', async () => {
    const { page } = tab;
    const row = sourceRow(page, S_FEED);
    await row.getByRole('button', { name: `Poll now ${site.name}` }).click();
    await row.getByRole('button', { name: `Polling… ${site.name}` }).waitFor();
    await notice(page, `${site.name} was polled`).waitFor({ timeout: 60_000 });
    await page.locator(`tr[data-source="${S_FEED}"][data-state="ok"]`).waitFor();
    const stored = await web.deps.console.news.sources.get(S_FEED);
    expect(stored!.health.lastPollAt).not.toBeNull();
    expect(stored!.health.itemsSeen).toBeGreaterThan(0);
    expect(await row.textContent()).toContain(`${stored!.health.itemsSeen} items seen`);
    expect(await row.textContent()).toContain('Healthy');
    await checkPage(tab, 'staff-news-sources-polled');
  });

  it('adds a source, edits it, and disables and enables one', async () => {
    const { page } = tab;
    await page.getByRole('button', { name: 'Add a source' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a news source' });
    await dialog.waitFor();
    await dialog.getByLabel('Name').fill('Jornal do Porto');
    await dialog.getByLabel('Feed address').fill('https://feeds.staff-news.example/jornal-do-porto.xml');
    await dialog.getByLabel('Tier').selectOption('3');
    await dialog.getByLabel('Default sector').selectOption('TRA');
    await dialog.getByLabel('Enabled (polled)').uncheck();
    await checkPage(tab, 'staff-news-source-add');
    await dialog.getByRole('button', { name: 'Add source' }).click();
    await notice(page, 'Jornal do Porto was added').waitFor();
    const added = (await web.deps.console.news.sources.list({})).find((s) => s.name === 'Jornal do Porto')!;
    expect(added).toMatchObject({ tier: 3, defaultSector: 'TRA', enabled: false, pollIntervalMinutes: 5 });
    const row = sourceRow(page, added._id);
    await row.waitFor();

    await row.getByRole('button', { name: 'Edit Jornal do Porto' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Jornal do Porto' });
    await edit.getByLabel('Poll every (minutes)').fill('15');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await notice(page, 'Jornal do Porto was saved').waitFor();
    expect(await web.deps.console.news.sources.get(added._id)).toMatchObject({ pollIntervalMinutes: 15, enabled: false });
    await row.filter({ hasText: 'every 15 minutes' }).waitFor();

    const money = sourceRow(page, S_MONEY);
    await money.getByRole('button', { name: 'Disable Money Times' }).click();
    await notice(page, 'Money Times is disabled').waitFor();
    await page.locator(`tr[data-source="${S_MONEY}"][data-state="disabled"]`).waitFor();
    expect((await web.deps.console.news.sources.get(S_MONEY))!.enabled).toBe(false);
    await money.getByRole('button', { name: 'Enable Money Times' }).click();
    await notice(page, 'Money Times is enabled').waitFor();
    expect((await web.deps.console.news.sources.get(S_MONEY))!.enabled).toBe(true);
  });

  it('lists the articles by pipeline state and source, with the reasons, a page at a time', async () => {
    const { page } = tab;
    await tabs(page).getByRole('link', { name: 'Articles' }).click();
    await heading(page, 'Articles').waitFor();
    await page.locator('main h1:focus').waitFor();
    // Every article: the source polled a moment ago, Money Times's, the import; newest first, 20 a page.
    const pages = page.getByRole('navigation', { name: 'Articles: pages' });
    await pages.getByText(/Page 1 of \d/).waitFor();
    expect(await page.locator('tr[data-article]').count()).toBe(20);
    await checkPage(tab, 'staff-news-articles');
    await pages.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL('**/staff/news/articles?page=2');
    await pages.getByText(/Page 2 of \d/).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Articles' }).and(page.locator(':focus')).waitFor();

    // One source's: items waiting or failed (not published yet), published ones by the state of their enrichment.
    await page.getByLabel('Source').selectOption(S_MONEY);
    await page.waitForURL(`**/staff/news/articles?sourceId=${S_MONEY}`);
    // Drawn when all of the source's newest are listed (a row alone may be on the page before it too).
    const newest = [I0.articleId, A1._id, A5._id, A2._id, I6.articleId, A4._id, I8.articleId];
    await untilListed(page, newest);
    const states = Object.fromEntries(await page.locator('tr[data-article]').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-article'), r.getAttribute('data-state')])));
    expect(states).toMatchObject({ [I0.articleId]: 'pending', [A1._id]: 'enriched', [A5._id]: 'enriched', [A2._id]: 'failed', [I6.articleId]: 'waiting-budget', [A4._id]: 'waiting-budget', [I8.articleId]: 'failed' });
    expect(await articleRow(page, I8.articleId).textContent()).toContain("the model's enrichment was refused 3 times");
    expect(await articleRow(page, I6.articleId).textContent()).toMatch(/Waiting for budget.*waiting for the daily enrichment budget.*Not published yet/);

    await page.getByLabel('State').selectOption('failed');
    await page.waitForURL(`**/staff/news/articles?state=failed&sourceId=${S_MONEY}`);
    await articleRow(page, A1._id).waitFor({ state: 'detached' });
    expect(await page.locator('tr[data-article]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-article')))).toEqual([A2._id, I8.articleId]);
    expect(await articleRow(page, A2._id).textContent()).toContain('the AI provider refused the request');
    await checkPage(tab, 'staff-news-articles-failed');

    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await page.getByLabel('State').selectOption('imported');
    await page.waitForURL('**/staff/news/articles?state=imported');
    // The import's article is on the unfiltered list too: the imported list is the one with one row.
    await page.locator('tr[data-article]').nth(1).waitFor({ state: 'detached' });
    await articleRow(page, A3._id).waitFor();
    expect(await page.locator('tr[data-article]').count()).toBe(1);
    expect(await articleRow(page, A3._id).textContent()).toMatch(/Agência de Notícias.*Imported/);
    // Two changes in one moment, before the page draws the first (the router draws in a transition): the
    // second starts from the address, so the state cleared by the first does not come back.
    await page.evaluate(`(() => {
      [...document.querySelectorAll('button')].find((b) => b.textContent === 'Clear the filters').click();
      const label = [...document.querySelectorAll('label')].find((l) => l.textContent === 'Source');
      const select = document.getElementById(label.htmlFor);
      select.value = ${JSON.stringify(S_MONEY)};
      select.dispatchEvent(new Event('change', { bubbles: true }));
    })()`);
    await page.waitForURL(`**/staff/news/articles?sourceId=${S_MONEY}`);
    await articleRow(page, A5._id).waitFor();
  });

  it('hides an article with a reason, and shows it to readers again', async () => {
    const { page } = tab;
    await articleRow(page, A5._id).getByRole('link', { name: A5.title }).click();
    await heading(page, A5.title).waitFor();
    await page.getByRole('button', { name: 'Hide from readers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hide this article from readers?' });
    await dialog.getByLabel('Reason, for the other editors (optional)').fill('Fonte não confirmou o leilão');
    await checkPage(tab, 'staff-news-article-hide');
    await dialog.getByRole('button', { name: 'Hide', exact: true }).click();
    await notice(page, 'The article is hidden from readers.').waitFor();
    const pipeline = page.getByTestId('article-pipeline');
    await pipeline.filter({ hasText: 'Hidden from readers' }).waitFor();
    expect(await pipeline.textContent()).toContain('Reason: Fonte não confirmou o leilão');
    expect(await web.deps.console.news.articles.findById(A5._id)).toBeNull();
    // The news API records the principal's subject: a staff session's user id (the page shows one's own as one's address).
    expect(await web.deps.console.news.hiddenArticles.get(A5._id)).toMatchObject({ hidden: { by: await editorId(), reason: 'Fonte não confirmou o leilão' } });
    expect(await pipeline.textContent()).toContain(`Hidden by${editor} (you)`);
    await page.getByText('A hidden article cannot be corrected').waitFor();
    await checkPage(tab, 'staff-news-article-hidden');

    await page.getByRole('button', { name: 'Show to readers again' }).click();
    await notice(page, 'Readers see the article again.').waitFor();
    await pipeline.filter({ hasText: 'Readers see it' }).waitFor();
    expect(await web.deps.console.news.articles.findById(A5._id)).toMatchObject({ _id: A5._id, title: A5.title });
    await page.getByRole('link', { name: 'Articles' }).first().click();
  });

  it('accepts a curation candidate, and adds another as an alias of an entity', async () => {
    const { page } = tab;
    await tabs(page).getByRole('link', { name: 'Curation queue' }).click();
    await heading(page, 'Curation queue').waitFor();
    const banco = candidateRow(page, 'banco do tesouro');
    await banco.waitFor();
    expect(await banco.textContent()).toMatch(/Banco do Tesouro.*Institution.*2/);
    await checkPage(tab, 'staff-news-curation');

    await banco.getByRole('button', { name: 'Accept Banco do Tesouro' }).click();
    await notice(page, 'Banco do Tesouro is in the catalogue now').waitFor();
    await banco.waitFor({ state: 'detached' });
    expect(await web.deps.console.news.entityCandidates.get('banco do tesouro')).toMatchObject({ state: 'accepted' });

    await candidateRow(page, 'vale do rio doce').getByRole('button', { name: 'Alias of… Vale do Rio Doce as an alias of an entity' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add “Vale do Rio Doce” as another name of an entity' });
    await dialog.getByLabel('Search the catalogue').fill('vale');
    await dialog.getByRole('status').filter({ hasText: '1 entity found.' }).waitFor();
    await checkPage(tab, 'staff-news-curation-alias');
    await dialog.getByRole('button', { name: 'Choose Vale' }).click();
    await notice(page, '“Vale do Rio Doce” is now an alias of Vale.').waitFor();
    expect(await web.deps.console.news.entities.findById(VALE._id)).toMatchObject({ aliases: ['Vale S.A.', 'Vale do Rio Doce'] });
    expect(await web.deps.console.news.entityCandidates.get('vale do rio doce')).toMatchObject({ state: 'aliased', entityId: VALE._id });

    await page.getByLabel('Show').selectOption('accepted');
    await candidateRow(page, 'banco do tesouro').filter({ hasText: 'Accepted' }).waitFor();
  });

  it("corrects an article beside the model's output; the correction is read back and kept as a labelled example", async () => {
    const { page } = tab;
    await page.goto(`${web.origin}/staff/news/articles/${A1._id}`);
    await heading(page, A1.title).waitFor();
    const model = page.locator('.nw-model');
    await model.getByText('Energy').first().waitFor();
    expect(await model.textContent()).toMatch(/Primary sectorEnergy.*Primary topicGuidance.*Secondary sectorsMaterials.*Positive \(\+0\.46, confidence 80%\).*Petrobras/);

    const form = page.locator('form.nw-correction-form');
    await form.getByLabel('Primary sector').selectOption('GOV');
    await form.getByLabel('Primary topic').selectOption('MACRO');
    await form.getByLabel('Label', { exact: true }).selectOption('NEGATIVO');
    // A score outside the label's fifth: told on the field, nothing sent.
    await form.getByLabel('Score (optional)').fill('0.9');
    await form.getByRole('button', { name: 'Save the correction' }).click();
    await form.getByText('A score of 0.9 is Very positive, not Negative').waitFor();
    await form.getByLabel('Score (optional)').fill('-0.35');
    // The field's problem goes once the field changes.
    await form.getByText('A score of 0.9').waitFor({ state: 'detached' });
    // The entity accepted from the queue a moment before, found in the catalogue; the search empties for the next.
    const search = form.getByLabel('Add an entity: search the catalogue');
    await search.fill('banco');
    await form.getByRole('button', { name: 'Add Banco do Tesouro' }).click();
    await form.getByRole('status').filter({ hasText: 'Banco do Tesouro added.' }).waitFor();
    expect(await search.inputValue()).toBe('');
    await search.and(page.locator(':focus')).waitFor();
    await form.getByLabel('Sentiment toward Banco do Tesouro (optional)').fill('-0.5');
    await form.getByLabel('Note, for the other editors (optional)').fill('A matéria é sobre a meta fiscal');
    expect(await form.locator('.nw-badge', { hasText: 'changed' }).count()).toBeGreaterThanOrEqual(3);
    await checkPage(tab, 'staff-news-correction');
    await form.getByRole('button', { name: 'Save the correction' }).click();
    await notice(page, 'Correction saved: readers see it now.').waitFor();
    await page.getByTestId('article-pipeline').filter({ hasText: 'Corrected by' }).waitFor();

    // Through the API, as the page reads it.
    const res = await page.request.get(`${web.origin}/api/staff/news/admin/articles/${A1._id}`);
    expect(res.status()).toBe(200);
    const banco = (await web.deps.console.news.entityCandidates.get('banco do tesouro'))!.entityId!;
    const by = await editorId();
    const { data } = (await res.json()) as { data: any };
    expect(data).toMatchObject({
      primarySector: 'GOV',
      primaryTopic: 'MACRO',
      corrected: { by },
      correction: {
        by,
        note: 'A matéria é sobre a meta fiscal',
        labels: { primarySector: 'GOV', primaryTopic: 'MACRO', secondarySectors: null, sentimentLabel: 'NEGATIVO', sentimentScore: -0.35, entities: [{ entityId: PETRO._id, sentiment: null }, { entityId: banco, canonicalName: 'Banco do Tesouro', sentiment: -0.5 }] },
        model: { primarySector: 'ENE', primaryTopic: 'GUIDANCE', sentiment: { label: 'POSITIVO', score: 0.46 } },
      },
      article: { primarySector: 'GOV', sentimentLabel: 'NEGATIVO', sentimentScore: -0.35 },
    });
    const example = await collectionOf<EnrichmentExampleDoc>(web.deps.mongo.conn, ENRICHMENT_EXAMPLES).findOne({ _id: A1._id });
    expect(example).toMatchObject({ by, revisions: 1, labels: { primarySector: 'GOV', primaryTopic: 'MACRO', sentimentLabel: 'NEGATIVO' }, model: { primarySector: 'ENE', primaryTopic: 'GUIDANCE' } });

    // The page shows the correction it was given: the form starts from the labels.
    expect(await page.locator('form.nw-correction-form').getByLabel('Primary sector').inputValue()).toBe('GOV');
    expect(await page.locator('form.nw-correction-form').textContent()).toContain(`Last corrected by ${editor}`);
    await checkPage(tab, 'staff-news-corrected');
  });

  it("edits an entity's ticker: another entity's is refused on the field", async () => {
    const { page } = tab;
    await tabs(page).getByRole('link', { name: 'Catalogue' }).click();
    await heading(page, 'Entity catalogue').waitFor();
    await entityRow(page, PETRO._id).waitFor();
    await checkPage(tab, 'staff-news-catalogue');
    await page.getByLabel('Name, alias or ticker').fill('petro');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL('**/staff/news/catalogue?q=petro');
    await entityRow(page, VALE._id).waitFor({ state: 'detached' });

    await entityRow(page, PETRO._id).getByRole('button', { name: 'Edit Petrobras' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Petrobras' });
    await dialog.getByLabel('B3 ticker').fill('VALE3');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Another entity has this ticker already: Vale.').waitFor();
    expect(await dialog.getByLabel('B3 ticker').getAttribute('aria-invalid')).toBe('true');
    expect(takeConsoleErrors(tab)).toEqual([expect.stringContaining('status of 409')]);
    await checkPage(tab, 'staff-news-catalogue-conflict');

    await dialog.getByLabel('B3 ticker').fill('petr3');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await notice(page, 'Petrobras was saved.').waitFor();
    await entityRow(page, PETRO._id).filter({ hasText: 'PETR3' }).waitFor();
    expect(await web.deps.console.news.entities.findById(PETRO._id)).toMatchObject({ ticker: 'PETR3', cnpj: '33.000.167/0001-01', aliases: ['Petrobrás'] });
  });

  it('starts a re-enrichment of a source and cancels it', async () => {
    const { page } = tab;
    // A slow provider (2 seconds an article: the test stack's AI timeout is 3), so that the operation is still running when it is cancelled.
    for (const a of MONEY_ARTICLES) await provider().script(enrichmentUser(a._id), [{ kind: 'default', delayMs: 2_000 }]);
    try {
      await page.goto(`${web.origin}/staff/news/articles?sourceId=${S_MONEY}`);
      await articleRow(page, A1._id).waitFor();
      await page.getByRole('link', { name: 'Re-enrich this source' }).click();
      await heading(page, 'Re-enrichment').waitFor();
      // The form starts from the articles' filter (once the sources are read, the select shows its name).
      await page.getByLabel('Source').locator('option:checked', { hasText: 'Money Times' }).waitFor({ state: 'attached' });
      expect(await page.getByLabel('Source').inputValue()).toBe(S_MONEY);
      await page.getByRole('button', { name: 'Start re-enrichment' }).click();
      await notice(page, `Re-enrichment started: ${MONEY_ARTICLES.length} articles.`).waitFor();
      const progress = page.getByTestId('reenrich-progress');
      await page.locator('[data-testid="reenrich-progress"][data-state="running"]').waitFor();
      // The progress takes the focus (on a phone it is below the form).
      await page.getByRole('heading', { level: 2, name: 'Progress' }).and(page.locator(':focus')).waitFor();
      expect(await progress.textContent()).toContain(`of ${MONEY_ARTICLES.length} articles handled`);
      await checkPage(tab, 'staff-news-reenrich-running');

      await page.getByRole('button', { name: 'Cancel re-enrichment' }).click();
      const confirm = page.getByRole('dialog', { name: 'Cancel this re-enrichment?' });
      await confirm.getByRole('button', { name: 'Cancel re-enrichment' }).click();
      await page.locator('[data-testid="reenrich-progress"][data-state="cancelled"]').waitFor({ timeout: 60_000 });
      await notice(page, new RegExp(`Re-enrichment cancelled: \\d+ of ${MONEY_ARTICLES.length} enriched again\\.`)).waitFor();
      const [op] = await collectionOf<ReenrichmentDoc>(web.deps.mongo.conn, 'news_reenrichments').find({ filter: { sourceId: S_MONEY } }).toArray();
      expect(op).toMatchObject({ state: 'cancelled', total: MONEY_ARTICLES.length, createdBy: await editorId() });
      expect(op!.done).toBeLessThan(MONEY_ARTICLES.length);
      expect(await progress.locator('[data-count="done"]').textContent()).toBe(String(op!.done));
      await checkPage(tab, 'staff-news-reenrich-cancelled');
    } finally {
      for (const a of MONEY_ARTICLES) await provider().reset(enrichmentUser(a._id));
    }
    // The correction stays over the model's new output.
    expect(await web.deps.console.news.articles.findById(A1._id)).toMatchObject({ primarySector: 'GOV', primaryTopic: 'MACRO' });
  });

  it('reads in Portuguese', async () => {
    const { page } = tab;
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await heading(page, 'Reenriquecimento').waitFor();
    await page.getByRole('navigation', { name: 'Administração de notícias' }).getByRole('link', { name: 'Fontes' }).click();
    await heading(page, 'Fontes de notícias').waitFor();
    expect(await sourceRow(page, S_OFF).textContent()).toContain('Desativada');
    await checkPage(tab, 'staff-news-sources-pt');
    await page.getByRole('navigation', { name: 'Administração de notícias' }).getByRole('link', { name: 'Artigos' }).click();
    await heading(page, 'Artigos').waitFor();
    // Money Times's (the feed polled earlier grows by an item a minute while the run lasts: unfiltered, I8 may be on page 2).
    await page.getByLabel('Fonte').selectOption(S_MONEY);
    await page.waitForURL(`**/staff/news/articles?sourceId=${S_MONEY}`);
    await articleRow(page, I8.articleId).filter({ hasText: 'Falhou' }).waitFor();
    await page.getByRole('link', { name: A1.title }).click();
    await heading(page, A1.title).waitFor();
    await page.getByText('Sua correção').waitFor();
    await checkPage(tab, 'staff-news-correction-pt');
    await page.getByRole('button', { name: 'View in English' }).click();
    expect(tab.consoleErrors).toEqual([]);
  });
});
