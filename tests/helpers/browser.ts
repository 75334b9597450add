/**
 * The dashboard in a real browser, for the browser tests of the staff console's sections: headless
 * Chromium (Debian's package) driven by Playwright, a tab that records its console errors, signing
 * in with the code Mailpit caught, and a page's check: screenshots (kept in reports/screenshots/),
 * nothing wider than the screen, no serious or critical axe-core violation, no console error.
 * The pattern of tests/integration/dashboard-browser.test.ts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { latestCode } from './mailpit';

export const SHOTS = path.resolve(__dirname, '..', '..', 'reports', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 900 } as const;
/** A small phone's width (iPhone SE, 12 mini…). */
export const PHONE = { width: 375, height: 812 } as const;

/**
 * A copy of the dashboard's build (web/dist, which `npm test` builds) for one test file to serve
 * (WEB_DIST_DIR): another build of the same checkout (another `npm test`, `npm run build:web`)
 * empties and rewrites web/dist, and a page opened before it would ask for chunks no longer
 * there. Copied again until every chunk the copy names is in it (a copy taken mid-build is not).
 */
export async function snapshotWebBuild(): Promise<{ dir: string; remove(): void }> {
  const source = path.resolve(__dirname, '..', '..', 'web', 'dist');
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
    try {
      cpSync(source, dir, { recursive: true });
      const assets = new Set(readdirSync(path.join(dir, 'assets')));
      const named = [readFileSync(path.join(dir, 'index.html'), 'utf8'), ...[...assets].filter((f) => /\.(js|css)$/.test(f)).map((f) => readFileSync(path.join(dir, 'assets', f), 'utf8'))]
        .flatMap((text) => [...text.matchAll(/["'`/]([\w.-]+-[\w-]{8}\.(?:js|css))["'`]/g)].map((m) => m[1]!));
      const missing = named.filter((f) => !assets.has(f));
      if (missing.length === 0) return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
      if (attempt >= 10) throw new Error(`web/dist is incomplete (${missing.slice(0, 3).join(', ')}…): is another build running?`);
    } catch (err) {
      if (attempt >= 10) throw err;
    }
    rmSync(dir, { recursive: true, force: true });
    await sleep(1000);
  }
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SHOTS, { recursive: true });
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A browser context of its own (its own cookies and storage: one person), with one page. */
export interface Tab {
  context: BrowserContext;
  page: Page;
  /** The console's errors and the page's uncaught exceptions, `url: text`, since the last {@link takeConsoleErrors}. */
  consoleErrors: string[];
}

export async function openTab(browser: Browser, o: { locale?: string; viewport?: { width: number; height: number } } = {}): Promise<Tab> {
  const context = await browser.newContext({ viewport: { ...(o.viewport ?? DESKTOP) }, locale: o.locale ?? 'en-GB' });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  return { context, page, consoleErrors };
}

/** The console errors recorded so far, and forgets them (for a test that expects some: a 403, a 409). */
export function takeConsoleErrors(tab: Tab): string[] {
  return tab.consoleErrors.splice(0, tab.consoleErrors.length);
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

/**
 * Screenshot (`<name>.png`, and `<name>-phone.png` at {@link PHONE}'s width unless `phone: false`),
 * accessibility, overflow and console, for the page as it is now; the viewport is put back after.
 */
export async function checkPage(tab: Tab, name: string, o: { phone?: boolean } = {}): Promise<void> {
  const { page } = tab;
  const original = page.viewportSize() ?? DESKTOP;
  const widths: [string, { width: number; height: number }][] = [[name, original]];
  if (o.phone !== false && original.width !== PHONE.width) widths.push([`${name}-phone`, PHONE]);
  for (const [shot, size] of widths) {
    await page.setViewportSize(size);
    // Layout settles after a resize before anything is measured.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
    // Nothing wider than the screen (a phone scrolls tables inside their box, never the page).
    // (The page's document, evaluated in the browser; this file's types have no DOM.)
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect({ shot, overflow }).toEqual({ shot, overflow: 0 });
    expect({ shot, violations: await accessibilityProblems(page) }).toEqual({ shot, violations: [] });
  }
  await page.setViewportSize(original);
  expect({ name, consoleErrors: tab.consoleErrors }).toEqual({ name, consoleErrors: [] });
}

/**
 * Signs in on the sign-in page (already open, the address possibly filled in by an invitation's
 * link) with the code Mailpit caught; English labels.
 */
export async function signInWithCode(page: Page, email: string): Promise<void> {
  const field = page.getByLabel('E-mail address');
  await field.waitFor();
  if ((await field.inputValue()) !== email) await field.fill(email);
  const since = new Date();
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByText('a code is on its way').waitFor();
  await page.getByLabel('Code from the e-mail').fill(await latestCode(email, since));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
}
