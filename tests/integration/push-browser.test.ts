/**
 * Alerts by Web Push in the dashboard, in a real browser (issue 40): headless Chromium (Debian's)
 * driven by Playwright. Headless Chromium has no push service, so the page's PushManager and
 * notification permission are stubbed in the page (the subscription it "makes" is one the push
 * double made, as a push service would, so the server's checks pass); the service worker is the
 * real /sw.js, registered by the page. A click subscribes this browser (the server then lists it)
 * and turns the push setting on; another click removes it. Blocked notifications and a browser
 * without push say so. axe-core finds no serious violation; the card is screenshotted at desktop
 * and phone width into reports/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { pushDoubleControl, type PushSubscriptionJson } from '../doubles/push-double';
import { Browser as ApiBrowser, startWebService, type WebService } from '../helpers/web';

jest.setTimeout(120_000);

const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let web: WebService;
let browser: Browser;
const consoleErrors: string[] = [];
const double = () => pushDoubleControl(process.env.PUSH_DOUBLE_URL!, process.env.WEB_PUSH_CA_FILE!);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  web = await startWebService({}, { listen: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
});

type Stub = { permission: 'default' | 'denied'; noPush?: boolean; subscription: PushSubscriptionJson | null };

/**
 * A signed-in page whose push is stubbed: `permission` is what Notification.permission says
 * (requestPermission grants it unless denied), PushManager.subscribe hands out `subscription` and
 * getSubscription what was subscribed (kept in localStorage, as a browser keeps it across visits).
 */
async function pushPage(cookie: string, stub: Stub, viewport = { width: 1280, height: 900 }, svc: WebService = web): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'en-GB' });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: svc.origin }]);
  await context.addInitScript((s: Stub) => {
    // (Runs in the page: this file's types have no DOM.)
    const w = globalThis as unknown as Record<string, unknown>;
    const localStorage = w.localStorage as { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
    if (s.noPush) {
      delete w.PushManager;
      return;
    }
    const N = w.Notification as { permission: string; requestPermission(): Promise<string> };
    Object.defineProperty(N, 'permission', { get: () => localStorage.getItem('stub-permission') ?? s.permission });
    N.requestPermission = async () => {
      const answer = s.permission === 'denied' ? 'denied' : 'granted';
      localStorage.setItem('stub-permission', answer);
      return answer;
    };
    const fake = (json: PushSubscriptionJson) => ({
      endpoint: json.endpoint,
      toJSON: () => json,
      unsubscribe: async () => (localStorage.removeItem('stub-subscription'), true),
    });
    const P = (w.PushManager as { prototype: Record<string, unknown> }).prototype;
    P.getSubscription = async () => {
      const kept = localStorage.getItem('stub-subscription');
      return kept ? fake(JSON.parse(kept) as PushSubscriptionJson) : null;
    };
    P.subscribe = async (options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array }) => {
      if (!options.userVisibleOnly || options.applicationServerKey.length !== 65) throw new Error('subscribe needs userVisibleOnly and a 65-byte key');
      localStorage.setItem('stub-key-length', String(options.applicationServerKey.length));
      localStorage.setItem('stub-subscription', JSON.stringify(s.subscription));
      return fake(s.subscription!);
    };
  }, stub);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  await page.goto(`${svc.origin}/account/preferences`);
  await page.getByTestId('push-status').waitFor();
  return { context, page };
}

async function check(page: Page, name: string): Promise<void> {
  const card = page.locator('fieldset', { has: page.getByTestId('push-control') });
  await card.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  expect({ name, overflow: await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') }).toEqual({ name, overflow: 0 });
  const axe = await new AxeBuilder({ page }).analyze();
  expect({ name, violations: axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`) }).toEqual({ name, violations: [] });
  expect({ name, consoleErrors }).toEqual({ name, consoleErrors: [] });
}

it('serves the service worker at the top, never cached', async () => {
  const res = await request(web.callback).get('/sw.js').expect(200);
  expect(res.headers['content-type']).toMatch(/javascript/);
  expect(res.headers['cache-control']).toBe('no-cache');
  expect(res.text).toContain("addEventListener('push'");
  expect(res.text).toContain("addEventListener('notificationclick'");
});

it('subscribes this browser with a click (the server lists it, push turns on), shows it at phone width, and removes it', async () => {
  const reader = new ApiBrowser(web);
  await reader.signIn(`push-reader-${randomUUID().slice(0, 8)}@example.com`);
  const control = double();
  try {
    const { publicKey } = (await reader.get('/api/account/push').expect(200)).body.data as { publicKey: string };
    const subscription = await control.subscribe(publicKey);
    const { context, page } = await pushPage(reader.cookie, { permission: 'default', subscription: { endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys } });
    await page.getByText('This browser does not receive alerts by push.').waitFor();
    const pushBox = page.getByRole('checkbox', { name: 'Breaking alerts in this browser (push)' });
    expect(await pushBox.isChecked()).toBe(false);
    await check(page, 'push-card-desktop');

    await page.getByRole('button', { name: 'Receive alerts in this browser' }).click();
    await page.getByText('This browser will receive breaking alerts.').waitFor();
    await page.getByText(/This browser \(Chrome · Linux\) receives breaking alerts by push\./).waitFor();
    expect(await pushBox.isChecked()).toBe(true);
    // The real service worker is registered at the top of the site.
    expect(await page.evaluate('navigator.serviceWorker.getRegistration("/").then((r) => r ? new URL(r.scope).pathname : null)')).toBe('/');
    const listed = (await reader.get('/api/account/push').expect(200)).body.data.subscriptions as { id: string; endpoint: string }[];
    expect(listed.map((s) => s.endpoint)).toEqual([subscription.endpoint]);
    await check(page, 'push-card-subscribed-desktop');
    // The setting is saved with the form, as every other.
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Preferences saved.').waitFor();
    expect((await reader.get('/api/account/preferences').expect(200)).body.data.notificationSettings.push).toBe(true);

    const phone = await pushPage(reader.cookie, { permission: 'default', subscription: null }, { width: 390, height: 844 });
    await phone.page.getByText('Your other browsers receiving alerts:').waitFor();
    await check(phone.page, 'push-card-phone');
    await phone.page.getByRole('button', { name: 'Ver em português' }).click();
    await phone.page.getByText('Este navegador não recebe alertas por push.').waitFor();
    await phone.page.getByRole('button', { name: 'Receber alertas neste navegador' }).waitFor();
    await check(phone.page, 'push-card-pt-phone');
    await phone.context.close();

    await page.getByRole('button', { name: 'Stop alerts in this browser' }).click();
    await page.getByText('That browser will receive no more alerts.').waitFor();
    await page.getByText('This browser does not receive alerts by push.').waitFor();
    expect((await reader.get('/api/account/push').expect(200)).body.data.subscriptions).toEqual([]);
    await context.close();
  } finally {
    await control.close();
  }
});

it('says so when notifications are blocked, and when the browser has no push', async () => {
  const reader = new ApiBrowser(web);
  await reader.signIn(`push-blocked-${randomUUID().slice(0, 8)}@example.com`);
  const denied = await pushPage(reader.cookie, { permission: 'denied', subscription: null });
  await denied.page.getByText(/Notifications are blocked for this site/).waitFor();
  expect(await denied.page.getByRole('button', { name: 'Receive alerts in this browser' }).count()).toBe(0);
  await check(denied.page, 'push-card-denied');
  await denied.context.close();

  const none = await pushPage(reader.cookie, { permission: 'default', noPush: true, subscription: null }, { width: 390, height: 844 });
  await none.page.getByText(/This browser cannot receive push notifications/).waitFor();
  await check(none.page, 'push-card-unsupported-phone');
  await none.context.close();
});

it('without VAPID keys, the card says push is not set up and offers no control; subscribing answers 503 with nothing stored', async () => {
  const off = await startWebService({ WEB_PUSH_VAPID_SUBJECT: '', WEB_PUSH_VAPID_PUBLIC_KEY: '', WEB_PUSH_VAPID_PRIVATE_KEY: '' }, { listen: true });
  try {
    const reader = new ApiBrowser(off);
    await reader.signIn(`push-off-${randomUUID().slice(0, 8)}@example.com`);
    expect((await reader.get('/api/account/push').expect(200)).body.data).toEqual({ configured: false, publicKey: null, limit: 10, subscriptions: [] });
    const control = double();
    const s = await control.subscribe();
    await control.close();
    await reader.post('/api/account/push/subscriptions', { endpoint: s.endpoint, keys: s.keys }).expect(503);
    expect((await reader.get('/api/account/push').expect(200)).body.data.subscriptions).toEqual([]);
    const { context, page } = await pushPage(reader.cookie, { permission: 'default', subscription: null }, { width: 1280, height: 900 }, off);
    await page.getByText('Alerts by push are not set up on this deployment.').waitFor();
    expect(await page.getByRole('checkbox', { name: 'Breaking alerts in this browser (push)' }).count()).toBe(0);
    const card = page.getByRole('group', { name: 'Notifications' });
    await card.screenshot({ path: path.join(SHOTS, 'push-card-off.png') });
    expect((await new AxeBuilder({ page }).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await context.close();
  } finally {
    await off.close();
  }
});
