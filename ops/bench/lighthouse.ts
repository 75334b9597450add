/**
 * The dashboard's first load on a phone (issue 37): `npm run bench:lighthouse`. Builds the
 * dashboard of the working tree for production into a directory of its own (WEB_DIST_DIR, in the
 * stack's data directory), starts the `web` service alone on a free port of the `npm test` stack,
 * waits until the machine is quiet (1-minute load average below BENCH_QUIET_LOAD, 1.5, for up to
 * 10 minutes), then runs Lighthouse's Node API with Debian's Chromium (CHROME_PATH, default
 * /usr/bin/chromium; a fresh headless browser for every run) BENCH_RUNS times (3) on each page:
 * /sign-in, where a new customer lands, / (which sends a signed-out visitor to /sign-in), and a
 * reader mail's unsubscribe link (issue 40); then, signed in (a session made in a database of the
 * run's own, its cookie sent with every request), the account's keys, notification preferences and
 * webhooks (issue 40), a Business customer with one endpoint.
 *
 * Lighthouse's default configuration: the mobile form factor (a Moto G Power's screen) with
 * simulated throttling (slow 4G, 4× CPU slowdown), categories performance, accessibility, best
 * practices and SEO. Prints one Markdown row per page: the median score of each category (each
 * run's performance score beside it), the median FCP, LCP, TBT and CLS and the bytes transferred
 * (`total-byte-weight`). Then every audit that did not pass in any run, with the elements or
 * resources it names. The JSON reports are written to reports/lighthouse/.
 *
 * Exits 1 if a median misses its target (performance 95; accessibility, best practices and SEO
 * 100), after printing everything: usable as a gate.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import type { Result } from 'lighthouse';
import mongoose from 'mongoose';
import { createAccountRepo } from '../../models/accounts/account.repo';
import { newCsrfToken, newSessionToken, sessionTokenHash } from '../../models/accounts/sign-in.rules';
import { loadConfig } from '../../models/config';
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../../models/events/secret-box';
import { createWebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import { newWebhookSecret } from '../../models/events/webhook-signing';
import { createUserRepo } from '../../models/users/user.repo';
import { SESSION_COOKIE } from '../../api/web/session';
import { freePort } from '../dev-services';
import { appProcessSpecs } from '../processes';
import { Supervisor } from '../supervisor';
import { percentile, say } from './load';

const ROOT = path.resolve(__dirname, '..', '..');
const OUT_DIR = path.join(ROOT, 'reports', 'lighthouse');
const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const QUIET_LOAD = Number(process.env.BENCH_QUIET_LOAD ?? 1.5);
const QUIET_WAIT_MS = 10 * 60_000;
/** The pages a visitor opens signed out: sign-in, the root, and a one-click unsubscribe link from a reader mail (issue 40; the page asks before it posts). */
const PAGES = ['/sign-in', '/', `/unsubscribe/${Buffer.from('usr_lighthouse').toString('base64url')}~alerts~${'A'.repeat(22)}`];
/** The pages a signed-in customer opens: where signing in lands, and the pages of issue 40. */
const ACCOUNT_PAGES = ['/account/keys', '/account/preferences', '/account/webhooks'];
const BENCH_USER = 'usr_lighthouse';
/** BENCH_PAGES: some of the pages only (comma-separated paths), to measure a change quickly. */
const ONLY = (process.env.BENCH_PAGES ?? '').split(',').filter(Boolean);
/**
 * The account's pages are kept out of search engines on purpose (robots.txt disallows /account,
 * the answers say noindex): their SEO category is judged without `is-crawlable`.
 */
const NOT_FOR_SEARCH = new Set(['is-crawlable']);

/**
 * A signed-in Business customer with one webhook endpoint, in the run's own database, as signing in
 * leaves them: the session cookie's header value.
 */
async function signedInCustomer(uri: string, db: string, webSecret: string): Promise<{ cookie: string; close: () => Promise<void> }> {
  const conn = await mongoose.createConnection(uri, { dbName: db }).asPromise();
  const email = 'lighthouse@bench.example';
  await createUserRepo(conn).setPlan(BENCH_USER, 'business', email);
  await createWebhookEndpointRepo(conn, createSecretBox(webSecret, WEBHOOK_SECRETS_INFO)).create({
    accountId: BENCH_USER,
    url: 'https://hooks.customer.example/news',
    description: 'Breaking news to the trading desk',
    eventTypes: ['article.breaking'],
    filters: {},
    secret: newWebhookSecret(),
    now: new Date(),
  });
  const token = newSessionToken();
  const now = new Date();
  await createAccountRepo(conn).createSession({ _id: sessionTokenHash(token), userId: BENCH_USER, email, csrfToken: newCsrfToken(), createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + 3_600_000) });
  return {
    cookie: `${SESSION_COOKIE}=${token}`,
    close: async () => {
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
    },
  };
}

const CATEGORIES = [
  { id: 'performance', label: 'performance', target: 95 },
  { id: 'accessibility', label: 'accessibility', target: 100 },
  { id: 'best-practices', label: 'best practices', target: 100 },
  { id: 'seo', label: 'SEO', target: 100 },
] as const;

const print = (line = '') => process.stdout.write(`${line}\n`);
const median = (xs: readonly number[]) => percentile(xs, 50);

/** The 1-minute load average once it is below QUIET_LOAD, or after QUIET_WAIT_MS whatever it is. */
async function waitUntilQuiet(): Promise<{ load: number; waitedMs: number; quiet: boolean }> {
  const started = Date.now();
  let announced = false;
  for (;;) {
    const load = os.loadavg()[0]!;
    const waitedMs = Date.now() - started;
    if (load < QUIET_LOAD) return { load, waitedMs, quiet: true };
    if (waitedMs >= QUIET_WAIT_MS) return { load, waitedMs, quiet: false };
    if (!announced || waitedMs % 60_000 < 10_000) say(`load average ${load.toFixed(2)} (1 min) on ${os.cpus().length} cores: waiting for it to fall below ${QUIET_LOAD}…`);
    announced = true;
    await new Promise((r) => setTimeout(r, 10_000));
  }
}

/**
 * The dashboard as `npm run build:web` builds it, into `outDir`. Not web/dist through buildWeb
 * (ops/processes.ts): that inherits this process's NODE_ENV, which ops/test.ts sets to `test`, and
 * Vite then bundles React's development build (476 KB of JavaScript instead of 283 KB); and every
 * `npm test` on the same working tree rebuilds web/dist, which could change the files under a run.
 */
async function buildDashboard(outDir: string): Promise<void> {
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', '--config', path.join(ROOT, 'web', 'vite.config.ts'), '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the dashboard's build failed (vite exited with ${code}): ${output.trim().slice(-2_000)}`))));
  });
  say(`dashboard built for production in ${outDir}`);
}

function chromiumVersion(): string {
  const r = spawnSync(CHROME_PATH, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : `unknown (${CHROME_PATH} --version exited ${r.status})`;
}

interface Run {
  lhr: Result;
  load: number;
}

/**
 * Lighthouse and chrome-launcher are loaded with import(), by Node's ESM loader. A static import
 * would be a require() of these ESM packages here (this file is CommonJS), which tsx serves by
 * compiling them with esbuild's keepNames: the functions Lighthouse sends into the page as source
 * text would call a `__name` helper that does not exist there ("ReferenceError: __name is not
 * defined at computeBenchmarkIndex").
 */
const tools = async () => ({ lighthouse: (await import('lighthouse')).default, chromeLauncher: await import('chrome-launcher') });

/** One Lighthouse run in a browser of its own (no cache, no service worker, no profile shared). */
async function lighthouseRun(url: string, cookie?: string): Promise<Result> {
  const { lighthouse, chromeLauncher } = await tools();
  const chrome = await chromeLauncher.launch({ chromePath: CHROME_PATH, chromeFlags: ['--headless=new', '--no-sandbox'], logLevel: 'error' });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES.map((c) => c.id), ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}) });
    if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
    if (result.lhr.runtimeError) throw new Error(`Lighthouse could not audit ${url}: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`);
    return result.lhr;
  } finally {
    chrome.kill();
  }
}

/**
 * A run that Lighthouse itself could not complete (now and then its trace lacks the navigation's
 * start: NO_NAVSTART) is tried again, twice at most, in a new browser.
 */
async function withRetries<T>(what: string, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= 3) throw err;
      say(`${what}: ${(err as Error).message}; trying again`);
    }
  }
}

/** The SEO audits that failed in any of the runs. */
function seoFailures(runs: readonly Result[]): string[] {
  const failed = new Set<string>();
  for (const lhr of runs) for (const ref of lhr.categories.seo?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      // Not applicable or manual audits have no score, and count in no category.
      if (ref.weight > 0 && typeof audit?.score === 'number' && audit.score < 1) failed.add(ref.id);
    }
  return [...failed];
}

const score = (lhr: Result, category: string): number | null => {
  const s = lhr.categories[category]?.score;
  return s === null || s === undefined ? null : Math.round(s * 100);
};
const numeric = (lhr: Result, audit: string): number => lhr.audits[audit]?.numericValue ?? Number.NaN;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

interface NetworkNode {
  url: string;
  navStartToEndTime: number;
  transferSize: number;
  children?: Record<string, NetworkNode>;
}

/** A network-dependency tree as one line per request: its chain, when it ended, its size. */
function networkTreeLines(chains: Record<string, NetworkNode>, depth = 0): string[] {
  return Object.values(chains).flatMap((n) => [
    `${'→ '.repeat(depth)}${n.url} (ended at ${Math.round(n.navStartToEndTime)} ms, ${kib(n.transferSize)})`,
    ...networkTreeLines(n.children ?? {}, depth + 1),
  ]);
}

/** What an audit's details name: elements (selector, snippet, why) or resources (URL, waste). */
function detailLines(details: unknown): string[] {
  const items = (details as { items?: unknown[] } | undefined)?.items;
  if (!Array.isArray(items)) return [];
  const lines: string[] = [];
  for (const raw of items.slice(0, 8)) {
    const item = raw as Record<string, unknown>;
    // Insights' lists: sections holding a network tree, a table or a sentence.
    if (item.type === 'list-section') {
      const value = item.value as { type?: string; value?: unknown; chains?: Record<string, NetworkNode>; longestChain?: { duration: number } } | undefined;
      const title = typeof item.title === 'string' ? `${item.title}: ` : '';
      if (value?.type === 'network-tree' && value.chains) {
        lines.push(`${title}request chains (longest ${Math.round(value.longestChain?.duration ?? 0)} ms):`, ...networkTreeLines(value.chains).map((l) => `  ${l}`));
      } else if (value?.type === 'text') lines.push(`${title}${String(value.value)}`);
      else lines.push(...detailLines(value).map((l) => `${title}${l}`));
      continue;
    }
    const node = (item.node ?? (item.type === 'node' ? item : undefined)) as { selector?: string; snippet?: string; nodeLabel?: string; explanation?: string } | undefined;
    const parts: string[] = [];
    if (node?.selector || node?.snippet) {
      parts.push(`element \`${node.selector ?? ''}\` ${node.snippet ?? ''}`.trim());
      if (node.nodeLabel) parts.push(`label "${node.nodeLabel}"`);
      if (node.explanation) parts.push(node.explanation.replace(/\s+/g, ' '));
    }
    const source = item.source as { url?: string; line?: number } | undefined;
    for (const key of ['url', 'description', 'directive', 'severity', 'label']) {
      const v = item[key];
      if (typeof v === 'string' && v) parts.push(`${key}: ${v}`);
    }
    if (source?.url) parts.push(`source: ${source.url}${source.line !== undefined ? `:${source.line}` : ''}`);
    for (const key of ['wastedBytes', 'totalBytes', 'transferSize', 'wastedMs', 'duration', 'blockingTime']) {
      const v = item[key];
      if (typeof v === 'number') parts.push(`${key}: ${/Bytes|Size/.test(key) ? kib(v) : `${Math.round(v)} ms`}`);
    }
    if (parts.length) lines.push(parts.join('; '));
    else {
      const text = JSON.stringify(item);
      lines.push(text.length > 300 ? `${text.slice(0, 300)}…` : text);
    }
  }
  if (items.length > 8) lines.push(`… and ${items.length - 8} more`);
  return lines;
}

/**
 * Every audit of the four categories that did not pass in some run (score below 1 where it has
 * one, weighted or not), with the runs it failed in, its value and what it names (from the first
 * failing run). Performance audits that are only diagnostics are listed when below 0.9.
 */
function failingAudits(runs: readonly Run[]): string[] {
  const lines: string[] = [];
  for (const category of CATEGORIES) {
    const refs = runs[0]!.lhr.categories[category.id]?.auditRefs ?? [];
    for (const ref of refs) {
      const failedIn: number[] = [];
      for (const [i, run] of runs.entries()) {
        const audit = run.lhr.audits[ref.id];
        if (!audit || audit.score === null) continue;
        if (['notApplicable', 'informative', 'manual'].includes(audit.scoreDisplayMode)) continue;
        const threshold = category.id === 'performance' && ref.weight === 0 ? 0.9 : 1;
        if (audit.score < threshold) failedIn.push(i);
      }
      if (!failedIn.length) continue;
      const first = runs[failedIn[0]!]!.lhr.audits[ref.id]!;
      const value = first.displayValue ? `, ${first.displayValue}` : '';
      lines.push(
        `- ${category.label} / \`${ref.id}\` (weight ${ref.weight}; score ${failedIn.map((i) => runs[i]!.lhr.audits[ref.id]!.score).join(', ')} in run ${failedIn.map((i) => i + 1).join(', ')} of ${runs.length}${value}): ${first.title}`,
      );
      if (first.explanation) lines.push(`    - ${first.explanation.replace(/\s+/g, ' ')}`);
      for (const d of detailLines(first.details)) lines.push(`    - ${d}`);
    }
  }
  return lines;
}

async function main(): Promise<number> {
  const config = loadConfig();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const distDir = path.join(config.dataDir, 'lighthouse-web-dist');
  const db = `bench_lighthouse_${process.pid}`;
  const env: NodeJS.ProcessEnv = { ...process.env, WEB_PORT: String(port), WEB_URL: origin, WEB_DIST_DIR: distDir, LOG_LEVEL: 'warn', MONGODB_DB: db };
  let measuring = true;
  const supervisor = new Supervisor((e) => {
    if (e.type === 'exited' && measuring) say(`web service exited (${e.signal ?? `exit code ${e.code}`}): see ${path.join(config.dataDir, 'logs', 'lighthouse-web.log')}`);
  });
  const stop = () => void supervisor.stop().then(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const results = new Map<string, Run[]>();
  let quiet: Awaited<ReturnType<typeof waitUntilQuiet>>;
  let customer: Awaited<ReturnType<typeof signedInCustomer>> | undefined;
  try {
    await buildDashboard(distDir);
    const web = appProcessSpecs(env, (name) => ({ file: path.join(config.dataDir, 'logs', `lighthouse-${name}.log`) })).find((s) => s.name === 'web')!;
    await supervisor.start(web);
    say(`web service ready on ${origin}`);

    quiet = await waitUntilQuiet();
    say(`load average ${quiet.load.toFixed(2)} (1 min) after ${Math.round(quiet.waitedMs / 1000)} s${quiet.quiet ? '' : `: NOT below ${QUIET_LOAD} after 10 minutes, measuring anyway`}`);

    customer = await signedInCustomer(config.mongo.uri!, db, config.web.secret);
    for (const page of [...PAGES, ...ACCOUNT_PAGES].filter((p) => ONLY.length === 0 || ONLY.includes(p))) {
      const cookie = ACCOUNT_PAGES.includes(page) ? customer.cookie : undefined;
      const runs: Run[] = [];
      for (let i = 1; i <= RUNS; i += 1) {
        const load = os.loadavg()[0]!;
        const lhr = await withRetries(`${page} run ${i}`, () => lighthouseRun(`${origin}${page}`, cookie));
        // A session not taken would measure the sign-in page under the account page's name.
        if (cookie && new URL(lhr.finalDisplayedUrl).pathname !== page) throw new Error(`${page}: the signed-in page ended at ${lhr.finalDisplayedUrl}`);
        runs.push({ lhr, load });
        const name = `${page === '/' ? 'root' : page.replace(/^\//, '').replace(/\W+/g, '-')}-${i}.json`;
        writeFileSync(path.join(OUT_DIR, name), JSON.stringify(lhr, null, 2));
        say(
          `${page} run ${i}/${RUNS}: ${CATEGORIES.map((c) => `${c.label} ${score(lhr, c.id) ?? 'n/a'}`).join(', ')}; ` +
            `final URL ${lhr.finalDisplayedUrl}; load ${load.toFixed(2)}; benchmarkIndex ${lhr.environment.benchmarkIndex}` +
            (lhr.runWarnings.length ? `; warnings: ${lhr.runWarnings.join(' | ')}` : ''),
        );
      }
      results.set(page, runs);
    }
  } finally {
    measuring = false;
    await supervisor.stop();
    await customer?.close();
  }

  const first = [...results.values()][0]![0]!.lhr;
  print();
  print(
    `${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ${chromiumVersion()}, Lighthouse ${first.lighthouseVersion}; ` +
      `${first.configSettings.formFactor}, ${first.configSettings.throttlingMethod} throttling (${first.configSettings.throttling.rttMs} ms RTT, ${first.configSettings.throttling.throughputKbps} kbit/s, CPU × ${first.configSettings.throttling.cpuSlowdownMultiplier}); ` +
      `median of ${RUNS} runs; load average ${quiet.load.toFixed(2)} when measuring began.`,
  );
  print();
  print('| page | performance (runs) | accessibility | best practices | SEO | FCP | LCP | TBT | CLS | transferred |');
  print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const misses: string[] = [];
  for (const [page, runs] of results) {
    const medians = CATEGORIES.map((c) => {
      const scores = runs.map((r) => score(r.lhr, c.id));
      const m = scores.some((s) => s === null) ? null : median(scores as number[]);
      if (c.id === 'seo' && ACCOUNT_PAGES.includes(page)) {
        const failed = seoFailures(runs.map((r) => r.lhr)).filter((id) => !NOT_FOR_SEARCH.has(id));
        if (failed.length) misses.push(`${page} SEO audits failed: ${failed.join(', ')}`);
        return { c, m, scores, gated: false };
      }
      if (m === null || m < c.target) misses.push(`${page} ${c.label} ${m ?? 'n/a'} < ${c.target}`);
      return { c, m, scores, gated: true };
    });
    const metric = (audit: string) => median(runs.map((r) => numeric(r.lhr, audit)));
    const cells = medians.map(({ c, m, scores, gated }) => {
      const shown = m === null ? 'n/a' : !gated ? `${m} (not indexed, by design)` : m < c.target ? `**${m}**` : String(m);
      return c.id === 'performance' ? `${shown} (${scores.join(', ')})` : shown;
    });
    print(
      `| ${page} | ${cells.join(' | ')} | ${seconds(metric('first-contentful-paint'))} | ${seconds(metric('largest-contentful-paint'))} | ` +
        `${Math.round(metric('total-blocking-time'))} ms | ${metric('cumulative-layout-shift').toFixed(3)} | ${kib(metric('total-byte-weight'))} |`,
    );
  }
  print();
  for (const [page, runs] of results) {
    const lines = failingAudits(runs);
    print(lines.length ? `Audits not passed on ${page}:` : `Audits not passed on ${page}: none.`);
    for (const line of lines) print(line);
    print();
  }
  print(`JSON reports in ${path.relative(ROOT, OUT_DIR)}/`);
  if (misses.length) {
    print(`lighthouse: targets missed: ${misses.join('; ')}`);
    return 1;
  }
  print('lighthouse: every target met');
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`[bench] ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
