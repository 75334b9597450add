/**
 * Benchmark: the staff console's support desk in a real browser (issue 38). In one run, against the
 * stack `npm test` provisions (the dashboard built into web/dist):
 *  1. seeds BENCH_TICKETS tickets (default 100,000) over every status, a tenth of the active ones
 *     assigned to the agent, and one ticket with BENCH_MESSAGES messages (default 200);
 *  2. signs an active support agent in (the code of the mail it would get, by the sign-in link);
 *  3. opens the queue (`/staff/support`, the default view) BENCH_RUNS times (default 15) in headless
 *     Chromium, each time in a new tab, and measures the time from navigation to its first page of
 *     rows on screen; then the ticket with 200 messages, to its whole thread on screen;
 *     Then, with that ticket open, BENCH_ARRIVALS messages (default 40) written one by one: the
 *     time from each write to the message on screen (the live updates, then the page's read);
 *  4. the floors, in the same run: the console's home page (the app, the session, the member's
 *     roles and the console's chunk, no data: what every console page costs before its own), and
 *     the API calls each page waits on, from Node (the queue's list and counts; the ticket),
 *     p50/p95; each page's time as a ratio to the home's.
 *
 * Run with `npm run bench:console`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import { chromium, type Page } from 'playwright-core';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { createWebService, makeWebDeps } from '../../api/web/service';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { ticketModel } from '../../models/support/support.model';
import { TICKET_ISSUES, type TicketStatus } from '../../models/support/ticket.rules';
import { inviteMember } from '../../operations/staff/members';
import { freePort } from '../dev-services';
import { percentile, say } from './load';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ARRIVALS = Number(process.env.BENCH_ARRIVALS ?? 40);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AGENT = 'bench-agent@newsletter.dev';
const BATCH = 2_000;

const ms = (x: number) => `${Math.round(x)} ms`;
const stats = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (n = ${xs.length})`;

async function main(): Promise<void> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = parseConfig({ ...process.env, WEB_URL: origin, RATE_LIMIT_PER_USER_PER_MINUTE: '1000000' });
  const infra = createInfra(config, 'web', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  // The sign-in code is read from the mail the agent would get.
  const codes = new Map<string, string>();
  const deps = makeWebDeps(infra, {
    mailer: {
      send: async (m) => void codes.set(m.to, /\b(\d{6})\b/.exec(m.text)?.[1] ?? ''),
      close: () => undefined,
    },
  });
  const server = http.createServer(createApp(createWebService(config), deps).callback());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const row = (measurement: string, result: string) => process.stdout.write(`| ${measurement} | ${result} |\n`);
  process.stdout.write(`**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${database}, Node ${process.version}, Chromium (Debian), ${TICKETS.toLocaleString('en')} tickets:**\n\n| measurement | result |\n|---|---:|\n`);

  // 1. Seed.
  const support = deps.console.support;
  await ticketModel(conn).init();
  say(`seeding ${TICKETS} tickets…`);
  const statuses: TicketStatus[] = ['open', 'in_progress', 'in_progress', 'resolved', 'resolved', 'closed'];
  const year = 365 * 24 * 3600 * 1000;
  const started = Date.now();
  for (let done = 0; done < TICKETS; done += BATCH) {
    const n = Math.min(BATCH, TICKETS - done);
    const ids = await support.tickets.insertMany(
      Array.from({ length: n }, (_, i) => ({
        main: 'Entrega',
        issue: TICKET_ISSUES[(done + i) % TICKET_ISSUES.length]!,
        description: `A edição de hoje não chegou (${done + i})`,
        email: `leitor-${done + i}@example.com`,
        newsletter: (done + i) % 3 === 0 ? 'The Champs' : 'The News',
        status: statuses[(done + i) % statuses.length]!,
        createdAt: new Date(started - Math.floor(((done + i) / TICKETS) * year)),
      })),
    );
    const active = ids.filter((_, i) => (done + i) % 10 === 0);
    await conn.collection('tickets').updateMany({ _id: { $in: active }, status: { $in: ['open', 'in_progress'] } } as never, { $set: { assignee: AGENT } });
    if ((done / BATCH) % 10 === 0) say(`  ${done + n}`);
  }
  row('seed (insertMany, 2,000 a batch)', `${((Date.now() - started) / 1000).toFixed(1)} s`);
  const [long] = await support.tickets.insertMany([{ main: 'Entrega', issue: TICKET_ISSUES[1], description: 'Uma conversa longa', email: 'longa@example.com' }]);
  const ticket = (await support.tickets.findById(long!))!;
  for (let i = 0; i < MESSAGES; i++) await support.tickets.addMessage(ticket, { conteudo: `Mensagem ${i + 1}: ${'texto '.repeat(30)}`, remetente: i % 2 ? AGENT : 'longa@example.com', origem: i % 2 ? 'admin' : 'usuario' });

  // 2. The agent.
  await inviteMember({ ...deps, mailer: undefined }, { actor: 'cli', email: AGENT, roles: ['support.agent'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const signIn = await context.newPage();
  const asked = await fetch(`${origin}/api/auth/sign-in`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ email: AGENT, locale: 'en' }) });
  if (asked.status !== 202 || !codes.get(AGENT)) throw new Error(`sign-in answered ${asked.status}, no code mailed`);
  // The mail's link: the page verifies the code in its fragment and signs in.
  await signIn.goto(`${origin}/sign-in#email=${encodeURIComponent(AGENT)}&code=${codes.get(AGENT)}`);
  await signIn.waitForURL((u) => !u.pathname.startsWith('/sign-in'), { timeout: 30_000 });
  const cookies = await context.cookies();
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  await signIn.close();

  // 3. In the browser: a new tab each time, the same browser's cache (an agent's day).
  const timeTo = async (path: string, ready: (page: Page) => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(`${origin}${path}`);
      await ready(page).catch(async (err: unknown) => {
        await page.screenshot({ path: `reports/bench-console-failed.png`, fullPage: true });
        say(`not ready: ${(await page.locator('main').innerText()).slice(0, 800)}`);
        throw err;
      });
      const t = performance.now() - t0;
      if (i > 0) times.push(t); // the first warms the process (and fills the cache once)
      else row(`${path.replace(/\d+$/, '{id}')}: first open (cold cache)`, ms(t));
      await page.close();
    }
    return times;
  };
  // The floor of any console page: the app, the session, the member's roles and the console's chunk, no data.
  say('the console home in Chromium…');
  const home = await timeTo('/staff', (page) => page.locator('main h1').first().waitFor({ timeout: 60_000 }));
  row('floor: the console home (app, session, roles, chunk; no data) on screen', stats(home));
  say('the queue in Chromium…');
  const queue = await timeTo('/staff/support', (page) => page.locator('tr[data-ticket]').first().waitFor({ timeout: 60_000 }));
  row('queue, first page of rows on screen', stats(queue));
  say('the ticket in Chromium…');
  const thread = await timeTo(`/staff/support/${long}`, (page) => page.locator(`li[data-message="${MESSAGES}"], li[data-message]`).nth(MESSAGES).waitFor({ timeout: 60_000 }));
  row(`ticket with ${MESSAGES} messages, whole thread on screen`, stats(thread));
  // A message arriving, seen in an open ticket view: from the write's answer to its message on screen.
  say('messages arriving in an open ticket…');
  const view = await context.newPage();
  await view.goto(`${origin}/staff/support/${long}`);
  await view.locator('li[data-message]').nth(MESSAGES).waitFor({ timeout: 60_000 });
  const seen: number[] = [];
  for (let i = 0; i < ARRIVALS; i++) {
    const fresh = (await support.tickets.findById(long!))!;
    const t0 = performance.now();
    const { message } = await support.tickets.addMessage(fresh, { conteudo: `Chegou agora ${i}`, remetente: 'longa@example.com', origem: 'usuario' });
    await view.locator(`li[data-message="${message._id}"]`).waitFor({ timeout: 30_000 });
    seen.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 250 + Math.random() * 500));
  }
  row('a message arriving, on screen in an open ticket view (from its write)', `${stats(seen)}, max ${ms(Math.max(...seen))}`);
  await browser.close();

  // 4. The floor: what each page waits on, from Node.
  const agent = new http.Agent({ keepAlive: true });
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      http
        .get(`${origin}${path}`, { agent, headers: { cookie } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${path}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  const floor = async (paths: string[]) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const t = Math.max(...(await Promise.all(paths.map(get))));
      if (i > 0) times.push(t);
    }
    return times;
  };
  const queueFloor = await floor(['/api/staff/support?page=1&limit=50', '/api/staff/support/views']);
  row('floor: the queue\'s API calls (list and counts, in parallel)', stats(queueFloor));
  const threadFloor = await floor([`/api/staff/support/${long}`]);
  row('floor: the ticket\'s API call', stats(threadFloor));
  row('queue: p50 ÷ the console home\'s p50', `${(percentile(queue, 50) / percentile(home, 50)).toFixed(2)}×`);
  row('ticket: p50 ÷ the console home\'s p50', `${(percentile(thread, 50) / percentile(home, 50)).toFixed(2)}×`);

  agent.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  await closeInfra(infra);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
