/**
 * The customer dashboard in a real browser (issue 26): headless Chromium from Debian's package,
 * driven by Playwright, against the web service on a port of loopback, Mailpit, the news API and
 * stripe-mock. A newcomer signs up with the mailed code, creates a key and calls the news API with
 * it, sees the usage move, upgrades through Checkout and Stripe's signed webhook, revokes the key
 * (401) and signs out. Every page is checked with axe-core (no serious or critical violation) and
 * with no console error, in English, in Portuguese and at a phone's width, and screenshotted into
 * reports/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { unsubscribeToken } from '../../models/news/reader-mail-ids';
import { checkoutObject, deliver, stripeEvent } from '../helpers/billing';
import { latestCode } from '../helpers/mailpit';
import { startNewsService, type NewsService } from '../helpers/news';
import { eventually } from '../helpers/service';
import { startWebService, type WebService } from '../helpers/web';
import { deliver as deliverWhatsApp, double, messagesTo as whatsAppMessagesTo, newPhone, payload, textMessage } from '../helpers/whatsapp';

const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let web: WebService;
let news: NewsService;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  [web, news] = await Promise.all([startWebService({}, { listen: true }), startNewsService()]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  // No network here: Stripe's hosted Checkout is played by a page of our own (the payment itself
  // is Stripe's signed webhook, sent below).
  await context.route(/^https:\/\/(checkout|billing)\.stripe\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Checkout</title><main><h1>Stripe Checkout (stand-in)</h1></main></html>' }),
  );
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([web?.close(), news?.close()]);
});

/** axe-core's serious and critical violations on the page as it is now. */
async function accessibilityProblems(): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

/** Screenshot, accessibility and console, for the page as it is now. */
async function check(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  // Nothing wider than the screen (a phone scrolls tables inside their box, never the page).
  // (The page's document, evaluated in the browser; this file's types have no DOM.)
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect({ name, overflow }).toEqual({ name, overflow: 0 });
  expect({ name, violations: await accessibilityProblems() }).toEqual({ name, violations: [] });
  expect({ name, consoleErrors }).toEqual({ name, consoleErrors: [] });
}

const email = `newcomer-${randomUUID().slice(0, 8)}@example.com`;
let key = '';
let keyId = '';

describe('a newcomer in the dashboard', () => {
  it("fills in the address of a staff invitation's link (the address alone, in the fragment)", async () => {
    const invited = `invited-${randomUUID().slice(0, 8)}@example.com`;
    await page.goto(`${web.origin}/sign-in#${new URLSearchParams({ email: invited }).toString()}`);
    await expect(page.getByLabel('E-mail address').inputValue()).resolves.toBe(invited);
    // The fragment is taken off the address bar once read.
    expect(new URL(page.url()).hash).toBe('');
  });

  it('signs up with the code from Mailpit and lands on the API keys', async () => {
    await page.goto(web.origin);
    await page.waitForURL('**/sign-in');
    await check('sign-in');
    const since = new Date();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByText('a code is on its way').waitFor();
    const code = await latestCode(email, since);
    await page.getByLabel('Code from the e-mail').fill(code);
    await check('sign-in-code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/account/keys');
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await page.getByText(email).isVisible()).toBe(true);
  });

  it('creates a key, sees it once, and calls GET /api/articles with it', async () => {
    await page.getByLabel('Name').fill('My integration');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    key = (await shown.textContent())!;
    expect(key).toMatch(/^nws_live_/);
    await check('keys-created');
    await request(news.callback).get('/api/articles').set('X-API-Key', key).expect(200);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'My integration' }).waitFor();
    expect(await page.content()).not.toContain(key);
    keyId = (await page.locator('tr[data-key-id]').first().getAttribute('data-key-id'))!;
    await check('keys');
  });

  it('sees the usage move', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByTestId('month-used').waitFor();
    expect(await page.getByTestId('month-used').textContent()).toBe('1 of 500,000 requests');
    for (let i = 0; i < 4; i++) await request(news.callback).get('/api/articles').set('X-API-Key', key).expect(200);
    await page.reload();
    await page.getByTestId('month-used').waitFor();
    expect(await page.getByTestId('month-used').textContent()).toBe('5 of 500,000 requests');
    expect(await page.locator('canvas').count()).toBe(1);
    await check('usage');
  });

  it('upgrades through Checkout and the signed webhook, and sees the plan change', async () => {
    await page.getByRole('link', { name: 'Plan & billing' }).click();
    await page.getByTestId('current-plan').waitFor();
    expect(await page.getByTestId('current-plan').textContent()).toBe('Your plan: Starter');
    await check('billing-starter');
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.waitForURL(/stripe\.com/);
    await page.getByText('Stripe Checkout (stand-in)').waitFor();

    // Stripe tells us the Checkout was paid.
    const session = await page.request.get(`${web.origin}/api/account/billing`);
    const { subscription } = ((await session.json()) as { data: { subscription: { customerId: string } } }).data;
    const userId = (((await (await page.request.get(`${web.origin}/api/auth/session`)).json()) as { data: { user: { id: string } } }).data.user.id);
    await deliver(news.callback, stripeEvent('checkout.session.completed', checkoutObject({ customerId: subscription.customerId, subscriptionId: `sub_${randomUUID().slice(0, 12)}`, userId, plan: 'pro' }))).expect(200);
    expect(await eventually(async () => (await news.deps.users.findById(userId))?.plan, 'pro')).toBe('pro');

    await page.goto(`${web.origin}/account/billing?checkout=success`);
    await page.getByText('Your plan: Pro').waitFor();
    await check('billing-pro');
  });

  it('edits preferences and reads the streak page', async () => {
    await page.getByRole('link', { name: 'Preferences' }).click();
    await page.getByRole('heading', { name: 'Preferences', level: 1 }).waitFor();
    await page.getByRole('checkbox', { name: 'Finance (FIN)' }).check();
    // How and when to be told (issue 40): the digest at 06:00 in Lisbon, in English, quiet at night, score 55 and up.
    const notifications = page.getByRole('group', { name: 'Notifications' });
    await notifications.getByRole('checkbox', { name: 'A daily digest by e-mail' }).check();
    await notifications.getByLabel('Digest at').selectOption('6');
    await notifications.getByLabel('Time zone').selectOption('Europe/Lisbon');
    await notifications.getByLabel('Language of messages').selectOption('en');
    await notifications.getByLabel('Minimum score (0–100)').fill('55');
    await notifications.getByRole('checkbox', { name: 'Quiet hours (no alerts)' }).check();
    await notifications.getByRole('textbox', { name: 'From', exact: true }).fill('23:00');
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByText('Preferences saved.').waitFor();
    await check('preferences');
    const userId = (((await (await page.request.get(`${web.origin}/api/auth/session`)).json()) as { data: { user: { id: string } } }).data.user.id);
    expect((await news.deps.preferences.get(userId)).notificationSettings).toEqual({
      email: true, push: false, whatsapp: false, breakingOnly: false, minScore: 55, digest: true, digestHour: 6, timeZone: 'Europe/Lisbon', language: 'en', quietHours: { start: '23:00', end: '07:00' },
    });
    // Read back after a reload.
    await page.reload();
    await notifications.locator('select', { has: page.locator('option[value="Europe/Lisbon"]:checked') }).waitFor({ state: 'attached' });
    expect(await notifications.getByLabel('Digest at').inputValue()).toBe('6');
    expect(await notifications.getByRole('textbox', { name: 'To', exact: true }).inputValue()).toBe('07:00');
    await page.getByRole('link', { name: 'Streak & quizzes' }).click();
    await page.getByTestId('streak-current').waitFor();
    await check('reading');
  });

  it('links a WhatsApp phone by the code sent to it, and unlinks it', async () => {
    // The reader's phone sends "entrar" and the account's address; the code comes in the conversation.
    const phone = newPhone();
    const send = async (text: string, replies: number) => {
      const before = (await double().messages(phone)).length;
      await deliverWhatsApp(news.callback, payload([textMessage(phone, text)])).expect(200);
      return (await whatsAppMessagesTo(phone, before + replies)).slice(before).map((m) => m.text);
    };
    await send('entrar', 1);
    const [codeMessage] = await send(email, 2);
    const code = /\*(\d{6})\*/.exec(codeMessage!)![1]!;

    await page.getByRole('link', { name: 'Preferences' }).click();
    await page.getByText('No phone linked.').waitFor();
    await page.getByLabel('Code sent to your WhatsApp').fill(code);
    await page.getByRole('button', { name: 'Link this phone' }).click();
    await page.getByText('Phone linked:').waitFor();
    // The status line follows when the page has read the link back (a request after the answer).
    const status = page.getByTestId('whatsapp-status');
    await status.filter({ hasText: /^Linked to/ }).waitFor();
    expect(await status.textContent()).toMatch(/^Linked to 5511•+\d\d\.$/);
    await check('preferences-whatsapp-linked');

    await page.getByRole('button', { name: 'Unlink this phone' }).click();
    await page.getByText('unlinked: it gets no more alerts').waitFor();
    await status.filter({ hasText: /^No phone linked\./ }).waitFor();
    expect((await news.deps.whatsapp.contact(phone))?.userId).toBeNull();
    await check('preferences-whatsapp-unlinked');
  });

  it('works in Portuguese and at a phone width', async () => {
    await page.getByRole('button', { name: 'View in Portuguese' }).or(page.getByRole('button', { name: 'Ver em português' })).click();
    await page.getByRole('link', { name: 'Chaves de API' }).click();
    await page.getByRole('heading', { name: 'Chaves de API', level: 1 }).waitFor();
    await check('keys-pt');
    await page.setViewportSize({ width: 390, height: 844 });
    await check('keys-pt-phone');
    await page.getByRole('link', { name: 'Uso' }).click();
    await page.getByTestId('month-used').waitFor();
    await check('usage-pt-phone');
    await page.getByRole('button', { name: 'View in English' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("rotates the key through the spec's steps: new key, switch, check it is used, revoke the old one", async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.locator(`tr[data-key-id="${keyId}"]`).getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('button', { name: 'Create the new key' }).click();
    await page.getByTestId('new-key').waitFor();
    const fresh = (await page.getByTestId('new-key').textContent())!;
    expect(fresh).not.toBe(key);
    await request(news.callback).get('/api/articles').set('X-API-Key', fresh).expect(200);
    await page.getByRole('button', { name: 'My application uses the new key' }).click();
    await page.getByRole('button', { name: 'Revoke the old key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Rotation finished: the old key is revoked.').waitFor();
    await check('keys-rotated');
    const status = async (k: string) => (await request(news.callback).get('/api/articles').set('X-API-Key', k)).status;
    expect(await eventually(() => status(key), 401, 8_000)).toBe(401);
    expect(await status(fresh)).toBe(200);
    // Two keys of that name now: the old one revoked, the new one active.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const rows = page.locator('tr[data-key-id]');
    expect(await rows.count()).toBe(2);
    keyId = (await rows.first().getAttribute('data-key-id'))!;
    expect(keyId).not.toBe('');
    key = fresh;
  });

  it('revokes the key (the news API then answers 401) and signs out', async () => {
    await page.locator(`tr[data-key-id="${keyId}"]`).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').waitFor();
    await check('keys-revoke-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Key revoked.').waitFor();
    // Other API processes see a revocation within API_KEY_CACHE_SECONDS (5 s).
    const status = async () => (await request(news.callback).get('/api/articles').set('X-API-Key', key)).status;
    expect(await eventually(status, 401, 8_000)).toBe(401);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/sign-in');
    const after = await page.request.get(`${web.origin}/api/auth/session`);
    expect(((await after.json()) as { data: { user: unknown } }).data.user).toBeNull();
    expect(consoleErrors).toEqual([]);
  });

  it("opens an alert mail's unsubscribe link signed out: the page asks first, then switches the alerts off", async () => {
    const user = (await news.deps.users.findByVerifiedEmail(email))!;
    await news.deps.preferences.update(user._id, { $set: { 'notificationSettings.email': true } });
    await page.goto(`${web.origin}/unsubscribe/${unsubscribeToken(web.deps.config.web.secret, user._id, 'alerts')}`);
    const confirm = page.getByRole('button', { name: /^(Unsubscribe|Cancelar inscrição)$/ });
    await confirm.waitFor();
    // Opening the link (as a mail scanner does) changed nothing.
    expect((await news.deps.preferences.get(user._id)).notificationSettings.email).toBe(true);
    await check('unsubscribe-ask');
    await confirm.click();
    await page.getByRole('status').filter({ hasText: /no more breaking alerts by e-mail|sem mais alertas urgentes por e-mail/ }).waitFor();
    expect((await news.deps.preferences.get(user._id)).notificationSettings.email).toBe(false);
    await check('unsubscribe-done');
    // A link we did not sign says so.
    await page.goto(`${web.origin}/unsubscribe/bm9ib2R5~alerts~${'A'.repeat(22)}`);
    await page.getByRole('button', { name: /^(Unsubscribe|Cancelar inscrição)$/ }).click();
    await page.getByRole('alert').filter({ hasText: /not valid|não é válido/ }).waitFor();
    consoleErrors.length = 0; // the 404 of that post, logged by the browser as a failed request
  });
});
