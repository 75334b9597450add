/**
 * The dashboard's Webhooks page in a real browser (issue 40, part 5): headless Chromium from
 * Debian's package, driven by Playwright, against the web service on a port of loopback and
 * Mailpit. A customer signs in, is told why a private address is refused, adds an endpoint and sees
 * its signing secret once (not after a reload), rotates it (asked first, the 24-hour overlap said),
 * disables it, sees why an endpoint the sender disabled is off, enables it again, and deletes it
 * (asked first). Every state is checked with axe-core (no serious or critical violation), with no
 * console error and nothing wider than the screen, in English and Portuguese and at a phone's width
 * (390 px), and screenshotted into reports/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { emailUserId } from '../../models/accounts/sign-in.rules';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from '../../models/events/webhook-endpoint.repo';
import { collectionOf } from '../../models/infra/mongo';
import { signInWithCode } from '../helpers/browser';
import { eventually } from '../helpers/service';
import { startWebService, type WebService } from '../helpers/web';

const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let web: WebService;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
/** An allow-listed development address (the fetcher's NEWS_FETCH_ALLOW_HOSTS), so no DNS is asked. */
let devUrl = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  web = await startWebService({}, { listen: true });
  const port = web.deps.config.news.fetch.allowHosts.map((h) => /^127\.0\.0\.1:(\d+)/.exec(h)?.[1]).find(Boolean);
  if (!port) throw new Error('the tests need 127.0.0.1 with a port on NEWS_FETCH_ALLOW_HOSTS');
  devUrl = `http://127.0.0.1:${port}/hooks/desk`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.origin });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
});

async function accessibilityProblems(): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

/** Screenshot, overflow, accessibility and console, for the page as it is now. */
async function check(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect({ name, overflow }).toEqual({ name, overflow: 0 });
  expect({ name, violations: await accessibilityProblems() }).toEqual({ name, violations: [] });
  expect({ name, consoleErrors }).toEqual({ name, consoleErrors: [] });
}

/** The element that has the focus, as `tag:text` (this file's types have no DOM). */
const FOCUSED = '(() => { const e = document.activeElement; return e ? `${e.tagName.toLowerCase()}:${(e.textContent ?? "").trim().slice(0, 80)}` : ""; })()';

/**
 * Waits until the focus is on an element matching `tag:text` (the page moves it once it has
 * drawn), then checks it. Read by page.evaluate, which the page's CSP allows (a string given to
 * waitForFunction would be eval'd in the page, which it refuses).
 */
async function expectFocus(expected: RegExp): Promise<void> {
  const read = async () => expected.test((await page.evaluate(FOCUSED)) as string);
  await eventually(read, true, 5_000);
  expect(await page.evaluate(FOCUSED)).toMatch(expected);
}

const email = `hooks-${randomUUID().slice(0, 8)}@example.com`;
const stored = () => collectionOf<WebhookEndpointDoc>(web.deps.mongo.conn, WEBHOOK_ENDPOINTS).find({ accountId: emailUserId(email) }).toArray();
let firstSecret = '';
let endpointId = '';

describe('the Webhooks page', () => {
  it('signs in and opens Webhooks from the navigation: no endpoints yet, the verification snippet', async () => {
    await page.goto(`${web.origin}/sign-in`);
    await signInWithCode(page, email);
    await page.waitForURL('**/account/keys');
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/account/webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    expect(await page.getByRole('region', { name: 'Example: verifying a delivery in Node.js' }).textContent()).toContain("import { Webhook } from 'standardwebhooks'");
    await check('webhooks-empty');
  });

  it("shows the server's refusal of a private address in the form, with the field, and stores nothing", async () => {
    await page.getByLabel('URL', { exact: true }).fill('https://127.0.0.1/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const refusal = page.getByTestId('endpoint-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^The webhook URL is refused: .*127\.0\.0\.1 \(loopback\)/);
    await expectFocus(/^div:The webhook URL is refused/);
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await stored()).toEqual([]);
    // The browser logs the refused request itself; nothing else went wrong.
    expect(consoleErrors).toEqual([expect.stringMatching(/status of 400 \(Bad Request\)$/)]);
    consoleErrors.length = 0;
    await check('webhooks-refused');
  });

  it('adds an endpoint with events and filters, and shows its secret once, focused, with copy', async () => {
    await page.getByLabel('URL', { exact: true }).fill(devUrl);
    await page.getByRole('checkbox', { name: /Every article published/ }).check();
    await page.getByText('Filters (optional)').click();
    await page.getByRole('group', { name: 'Sectors' }).getByRole('checkbox', { name: 'Finance (FIN)' }).check();
    await page.getByLabel('Tickers').fill('petr4, VALE3');
    await page.getByLabel('Description (optional)').fill('Trading desk');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor();
    firstSecret = (await secret.textContent())!;
    expect(firstSecret).toMatch(/^whsec_/);
    await expectFocus(/^h2:Endpoint added\. Copy its signing secret now/);
    await page.getByText('You will not see this secret again').waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(firstSecret);

    const [doc] = await stored();
    endpointId = doc!._id;
    expect(doc).toMatchObject({ url: devUrl, description: 'Trading desk', eventTypes: ['article.breaking', 'article.published'], filters: { sectors: ['FIN'], tickers: ['PETR4', 'VALE3'] } });
    expect(await web.deps.webhookEndpoints.signingSecrets(endpointId, new Date())).toEqual([firstSecret]);
    await check('webhooks-created');
  });

  it('never shows the secret again: not after "I have stored it", not after a reload', async () => {
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expectFocus(/^h3:Trading desk/);
    await page.reload();
    const card = page.locator(`li[data-endpoint-id="${endpointId}"]`);
    await card.waitFor();
    expect(await card.textContent()).toMatch(/Enabled.*Breaking articles, Every article published.*Sectors: Finance · Tickers: PETR4, VALE3/s);
    expect(await page.content()).not.toContain(firstSecret);
    expect(await page.content()).not.toContain('whsec_');
    await check('webhooks-list');
  });

  it('rotates the secret after asking (the 24-hour overlap said): the new one shown once, the old one still signing', async () => {
    await page.getByRole('button', { name: 'Rotate the secret of Trading desk' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('keeps signing deliveries for 24 hours');
    await check('webhooks-rotate-confirm');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: 'New signing secret. Copy it now' }).waitFor();
    const second = (await page.getByTestId('webhook-secret').textContent())!;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(firstSecret);
    await page.getByText('The old secret keeps signing deliveries too until').waitFor();
    expect(await web.deps.webhookEndpoints.signingSecrets(endpointId, new Date())).toEqual([second, firstSecret]);
    await check('webhooks-rotated');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText('The previous one also signs until').waitFor();
    expect(await page.content()).not.toContain('whsec_');
  });

  it('disables the endpoint (focus stays on its button), and explains why one the sender disabled is off', async () => {
    await page.getByRole('button', { name: 'Disable Trading desk' }).click();
    await page.getByTestId('webhooks-status').filter({ hasText: /^Disabled: nothing is sent to/ }).waitFor();
    await page.getByText('Disabled by you. Nothing is sent until you enable it.').waitFor();
    await expectFocus(/^button:Enable$/);
    expect((await stored())[0]).toMatchObject({ state: 'disabled', disabledReason: 'owner' });
    await check('webhooks-disabled');

    // The sender gave up on it after five days of failures.
    await collectionOf<WebhookEndpointDoc>(web.deps.mongo.conn, WEBHOOK_ENDPOINTS).updateOne({ _id: endpointId }, { $set: { disabledReason: 'failing', failingSince: new Date(Date.now() - 5 * 86_400_000) } });
    await page.reload();
    await page.getByText('Disabled because every delivery failed for 5 days').waitFor();
    await check('webhooks-disabled-failing');
    await page.getByRole('button', { name: 'Enable Trading desk' }).click();
    await page.getByTestId('webhooks-status').filter({ hasText: /^Enabled: deliveries to/ }).waitFor();
    expect((await stored())[0]).toMatchObject({ state: 'enabled', disabledReason: null, failingSince: null });
  });

  it('works in Portuguese and at a phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await check('webhooks-phone');
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await page.getByRole('heading', { name: 'Seus endpoints' }).waitFor();
    await page.getByText('Toda notícia publicada').first().waitFor();
    await check('webhooks-pt-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await check('webhooks-pt');
    await page.getByRole('button', { name: 'Trocar o segredo de Trading desk' }).click();
    await page.getByRole('dialog', { name: 'Trocar o segredo de assinatura?' }).waitFor();
    await check('webhooks-pt-rotate-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await expectFocus(/^button:Trocar segredo$/);
    await page.getByRole('button', { name: 'View in English' }).click();
  });

  it('deletes the endpoint after asking: cancelled first, then confirmed; focus on the list', async () => {
    await page.getByRole('button', { name: 'Delete Trading desk' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('This cannot be undone. To pause deliveries, disable it instead.');
    await check('webhooks-delete-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await stored()).toHaveLength(1);

    await page.getByRole('button', { name: 'Delete Trading desk' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('webhooks-status').filter({ hasText: /^Endpoint .* deleted\.$/ }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    await expectFocus(/^h2:Your endpoints$/);
    expect(await stored()).toEqual([]);
    await check('webhooks-deleted');
  });
});
