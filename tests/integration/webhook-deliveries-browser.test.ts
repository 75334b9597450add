/**
 * An endpoint's deliveries on the dashboard's Webhooks page in a real browser (issue 40, part 5:
 * "a delivery log per endpoint, replay of one message, and a test event button"): headless
 * Chromium driven by Playwright, the web service on a port of loopback, a worker of this file's
 * own serving news-webhooks, and the receiver double (which verifies every delivery with the
 * standardwebhooks library) allow-listed. A customer adds an endpoint on the double, sees the empty
 * log, sends a test event, refreshes as a user would until its delivery appears with its status,
 * opens its details (headers sent, no signature; the answer's body), replays it and sees the
 * second attempt marked as a replay, and pages past 10 with "Load older". axe-core finds no serious or critical violation; no console
 * error, nothing wider than the screen; screenshots at desktop, 390 px and in Portuguese.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startWebhookReceiverDouble, webhookReceiverControl, type WebhookReceiverDouble } from '../doubles/webhook-receiver-double';
import { signInWithCode } from '../helpers/browser';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig } from '../helpers/service';
import { until } from '../helpers/time-skipping';
import { startWebService, type WebService } from '../helpers/web';

jest.setTimeout(120_000);

const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const run = randomUUID().slice(0, 6);
const email = `deliveries-${run}@example.com`;

let receiver: WebhookReceiverDouble;
let web: WebService;
let worker: Awaited<ReturnType<typeof startOwnWorker>> | undefined;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  receiver = await startWebhookReceiverDouble(0);
  // The double on loopback is reachable only because it is on the allow-list.
  const env = { TASK_QUEUE_PREFIX: `deliveries-page-${run}-`, MONGODB_DB: `deliveries_page_${run}`, NEWS_FETCH_ALLOW_HOSTS: new URL(receiver.url).host };
  web = await startWebService(env, { listen: true });
  worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-webhooks' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  killGroup(worker);
  await web?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await web?.close();
  await receiver?.close();
});

async function check(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect({ name, overflow }).toEqual({ name, overflow: 0 });
  const result = await new AxeBuilder({ page }).analyze();
  const violations = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
  expect({ name, violations }).toEqual({ name, violations: [] });
  expect({ name, consoleErrors }).toEqual({ name, consoleErrors: [] });
}

const deliveries = (): Locator => page.locator('li.delivery');

/** Clicks Refresh as a user would, each time after the previous answer arrived, until `count` deliveries show. */
async function refreshUntil(count: number): Promise<void> {
  await until(
    async () => {
      const answered = page.waitForResponse((r) => r.url().includes('/deliveries?') && r.request().method() === 'GET');
      await page.getByRole('button', { name: 'Refresh the deliveries of Desk' }).click();
      await answered;
      await page.getByTestId('webhooks-status').filter({ hasText: /deliver(y|ies) shown for Desk\.$/ }).waitFor();
      return deliveries().count();
    },
    (n) => n >= count,
    60_000,
    0,
  );
  expect(await deliveries().count()).toBe(count);
}

let msgId = '';

describe("an endpoint's deliveries", () => {
  it('adds an endpoint on the receiver double: an empty delivery log, a test event button', async () => {
    await page.goto(`${web.origin}/sign-in`);
    await signInWithCode(page, email);
    await page.waitForURL('**/account/keys');
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/account/webhooks');
    await page.getByLabel('URL', { exact: true }).fill(receiver.endpointUrl(`desk-${run}`));
    await page.getByLabel('Description (optional)').fill('Desk');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    // It answers 200 with a body ({"ok":true}), which the details show.
    await webhookReceiverControl(receiver.url).endpoint(`desk-${run}`, { secret, successStatus: 200 });
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('heading', { name: 'Deliveries', level: 4 }).waitFor();
    await page.getByText('No deliveries in the last 30 days.').waitFor();
    await check('deliveries-empty');
  });

  it('sends a test event, and its delivery appears on a refresh with its status, verified by the receiver', async () => {
    await page.getByRole('button', { name: 'Send a test event to Desk' }).click();
    const status = page.getByTestId('webhooks-status').filter({ hasText: /^Test event msg_\S+ sent to Desk\./ });
    await status.waitFor();
    msgId = /msg_[A-Za-z0-9_-]{22}/.exec((await status.textContent())!)![0];
    await refreshUntil(1);
    const first = deliveries().first();
    expect(await first.locator('summary').textContent()).toMatch(new RegExp(`HTTP 200.*Attempt 1.*ms.*${msgId}`));
    const [received] = (await webhookReceiverControl(receiver.url).deliveries(`desk-${run}`)).deliveries;
    expect(received).toMatchObject({ verified: true, webhookId: msgId });
    await check('deliveries-one');
  });

  it("opens the delivery's details: the headers sent without the signature, the answer's body", async () => {
    await deliveries().first().locator('summary').click();
    const details = deliveries().first().locator('.delivery-details');
    await details.getByRole('heading', { name: 'Request headers' }).waitFor();
    const text = (await details.textContent())!;
    expect(text).toContain(`webhook-id${msgId}`);
    expect(text).toContain('webhook-signature(1 signature)');
    expect(text).not.toMatch(/v1,[A-Za-z0-9+/=]{20}/);
    expect(text).toContain('The signature is not kept');
    const body = page.getByRole('region', { name: `Response body of ${msgId}, attempt 1` });
    expect(await body.textContent()).toBe('{"ok":true}');
    expect(await page.evaluate('getComputedStyle(document.querySelector("li.delivery .response-body code")).fontFamily')).toMatch(/mono/i);
    await check('deliveries-open');
  });

  it('replays the message: the same webhook-id arrives again, the second attempt shows as a replay', async () => {
    await page.getByRole('button', { name: `Replay message ${msgId}` }).click();
    await page.getByTestId('webhooks-status').filter({ hasText: `Message ${msgId} replayed to Desk.` }).waitFor();
    await refreshUntil(2);
    expect(await deliveries().first().locator('summary').textContent()).toMatch(new RegExp(`HTTP 200.*Attempt 2.*Replay.*${msgId}`));
    const received = (await webhookReceiverControl(receiver.url).deliveries(`desk-${run}`)).deliveries;
    expect(received.map((d) => [d.webhookId, d.verified])).toEqual([
      [msgId, true],
      [msgId, true],
    ]);
    await deliveries().first().locator('summary').click();
    await check('deliveries-replayed');
  });

  it('at a phone width and in Portuguese', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await check('deliveries-phone');
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await page.getByRole('heading', { name: 'Entregas', level: 4 }).waitFor();
    await page.getByRole('button', { name: 'Enviar um evento de teste para Desk' }).waitFor();
    await check('deliveries-pt-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await check('deliveries-pt');
    await page.getByRole('button', { name: 'View in English' }).click();
  });

  it('pages: past 10 deliveries, "Load older" brings the rest, then goes away', async () => {
    for (let i = 0; i < 9; i += 1) {
      const sent = page.waitForResponse((r) => r.url().endsWith('/test') && r.status() === 202);
      await page.getByRole('button', { name: 'Send a test event to Desk' }).click();
      await sent;
    }
    // Eleven deliveries in all: the receiver has them (verified), the log shows the newest 10.
    const all = await until(() => webhookReceiverControl(receiver.url).deliveries(`desk-${run}`).then((d) => d.deliveries), (d) => d.length >= 11, 60_000);
    expect(all.every((d) => d.verified)).toBe(true);
    await refreshUntil(10);
    await page.getByRole('button', { name: 'Load older deliveries of Desk' }).click();
    await page.getByTestId('webhooks-status').filter({ hasText: '1 older delivery loaded.' }).waitFor();
    expect(await deliveries().count()).toBe(11);
    expect(await deliveries().last().locator('summary').textContent()).toMatch(new RegExp(`Attempt 1.*${msgId}`));
    expect(await page.getByRole('button', { name: 'Load older deliveries of Desk' }).count()).toBe(0);
    await check('deliveries-paged');
  });

  it('a disabled endpoint explains why it has no test or replay button', async () => {
    await page.getByRole('button', { name: 'Disable Desk' }).click();
    await page.getByText('Enable this endpoint to send a test event or replay a message.').waitFor();
    expect(await page.getByRole('button', { name: 'Send a test event to Desk' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Replay message/ }).count()).toBe(0);
    await check('deliveries-disabled');
  });
});
