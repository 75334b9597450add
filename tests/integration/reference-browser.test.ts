/**
 * The API reference in a real browser (issue 37): headless Chromium from Debian's package, driven
 * by Playwright, against the news and dashboard services on ports of loopback. A newcomer opens
 * /reference, finds the overview's sections in the sidebar, opens an operation and sees its code
 * samples and examples; the page asks nothing of any other origin, logs no error and has no
 * serious or critical axe-core violation, at a desktop's and a phone's width; screenshots go to
 * reports/screenshots/. /docs (Swagger UI, to try requests) renders the same document.
 */
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startNewsService, type NewsService } from '../helpers/news';
import { startWebService, type WebService } from '../helpers/web';

const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let news: NewsService;
let newsServer: http.Server;
let newsOrigin: string;
let web: WebService;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  [news, web] = await Promise.all([startNewsService(), startWebService({}, { listen: true })]);
  newsServer = http.createServer(news.callback);
  await new Promise<void>((resolve) => newsServer.listen(0, '127.0.0.1', resolve));
  newsOrigin = `http://127.0.0.1:${(newsServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (newsServer ? newsServer.close(() => resolve()) : resolve()));
  await Promise.all([news?.close(), web?.close()]);
});

// axe-core reads the whole reference (every operation of the document is rendered): about 40 s a
// page on this machine's two cores, so each page is checked once.

/** A page that records its console errors and every request it makes outside `origin`. */
async function open(origin: string, width: number): Promise<{ context: BrowserContext; page: Page; errors: string[]; elsewhere: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  const errors: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') elsewhere.push(r.url());
  });
  return { context, page, errors, elsewhere };
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')})`);
}

describe('the news reference', () => {
  it('opens with the overview, and shows an operation with its code samples and examples', async () => {
    const { context, page, errors, elsewhere } = await open(newsOrigin, 1280);
    await page.goto(`${newsOrigin}/reference`);
    await page.getByRole('heading', { name: /News Intelligence API/ }).waitFor({ timeout: 30_000 });
    // The overview's sections are the sidebar's first entries.
    for (const section of ['Getting a credential', 'A first request', 'Pagination', 'Errors', 'Rate limits', 'Versioning']) {
      await expect(page.getByRole('menuitem', { name: section }).count()).resolves.toBeGreaterThan(0);
    }
    await page.screenshot({ path: path.join(SHOTS, 'reference-news.png') });

    // One operation, its samples and its examples: GET /api/articles.
    const operation = page.locator('[id="operation/getApiArticles"]');
    await operation.scrollIntoViewIfNeeded();
    await operation.getByRole('heading', { name: 'List articles' }).waitFor();
    await operation.getByRole('tab', { name: 'TypeScript (@newsletter-platform/clients)' }).click();
    await operation.getByText("news.GET('/api/articles'", { exact: false }).waitFor();
    await operation.getByRole('tab', { name: 'curl' }).click();
    await operation.getByText('X-API-Key: $NEWS_API_KEY', { exact: false }).waitFor();
    // The example answer is the document's own: the Petrobras article of the examples.
    await operation.getByText('Petrobras', { exact: false }).first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'reference-news-operation.png') });
    expect({ violations: await seriousViolations(page) }).toEqual({ violations: [] });
    expect({ errors, elsewhere }).toEqual({ errors: [], elsewhere: [] });
    await context.close();
  }, 300_000);

  it('is read on a phone', async () => {
    const { context, page, errors, elsewhere } = await open(newsOrigin, 390);
    await page.goto(`${newsOrigin}/reference`);
    await page.getByRole('heading', { name: /News Intelligence API/ }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(SHOTS, 'reference-news-phone.png') });
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
    expect({ violations: await seriousViolations(page) }).toEqual({ violations: [] });
    expect({ errors, elsewhere }).toEqual({ errors: [], elsewhere: [] });
    await context.close();
  }, 300_000);
});

describe("the dashboard API's reference, under the dashboard's Content-Security-Policy", () => {
  it('renders with no error and no request elsewhere', async () => {
    const { context, page, errors, elsewhere } = await open(web.origin, 1280);
    await page.goto(`${web.origin}/reference`);
    await page.getByRole('heading', { name: /Customer dashboard/ }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('menuitem', { name: 'Getting a credential' }).count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'reference-web.png') });
    expect({ violations: await seriousViolations(page) }).toEqual({ violations: [] });
    expect({ errors, elsewhere }).toEqual({ errors: [], elsewhere: [] });
    await context.close();
  }, 300_000);
});

describe('/docs (Swagger UI, to try requests)', () => {
  it('renders the same document, with its operations and no request elsewhere', async () => {
    const { context, page, errors, elsewhere } = await open(newsOrigin, 1280);
    await page.goto(`${newsOrigin}/docs`);
    await page.locator('#operations-articles-getApiArticles').waitFor({ timeout: 30_000 });
    await expect(page.getByRole('heading', { name: 'Getting a credential' }).count()).resolves.toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'docs-news.png') });
    expect({ errors, elsewhere }).toEqual({ errors: [], elsewhere: [] });
    await context.close();
  }, 300_000);
});
