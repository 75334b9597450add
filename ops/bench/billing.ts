/**
 * Benchmark: Stripe webhooks (issue 13). Against the stack `npm test` provisions (its worker
 * applies the events):
 *  1. BENCH_CUSTOMERS accounts (default 200), each linked to a Stripe customer;
 *  2. five signed events per customer (checkout completed, a renewal paid, a plan change, a failed
 *     payment, then a cancellation or a payment), BENCH_CUSTOMERS × 5 deliveries (default 1,000),
 *     shuffled (Stripe does not promise order), from BENCH_SENDERS concurrent senders (default 20);
 *  3. p50/p99 time to the 2xx answer, and the time until every account shows its final plan;
 *     first, as the floor, the same number of deliveries of an event type billing does not use
 *     (signature checked and stored, nothing handed to Temporal).
 *
 * Run with `npm run bench:billing`. Prints Markdown to stdout, progress to stderr.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import Stripe from 'stripe';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeNewsDeps, newsService } from '../../api/news/service';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import type { Plan } from '../../models/shared/plan.rules';
import { measureLoad, say, type TimedRequest } from './load';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 200);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 20);
const DAY = 86_400;

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

async function main(): Promise<void> {
  const config = parseConfig({ ...process.env, RATE_LIMIT_WEBHOOK_PER_MINUTE: '1000000000' });
  const secret = config.billing.webhookSecret!;
  const prices = config.billing.prices;
  const infra = createInfra(config, 'news', createLogger({ name: 'bench', level: 'silent' }));
  await infra.mongo.ready;
  const deps = makeNewsDeps(infra);
  const app = createApp(definitionFor(newsService, config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const run = randomUUID().slice(0, 6);
  const now = Math.floor(Date.now() / 1000) - 600;
  const expected = new Map<string, Plan>();
  const requests: TimedRequest[] = [];
  say(`linking ${CUSTOMERS} accounts to Stripe customers…`);
  for (let i = 0; i < CUSTOMERS; i++) {
    const userId = `bench-billing-${run}-${i}`;
    const customer = `cus_bench${run}${i}`;
    const subscription = `sub_bench${run}${i}`;
    await deps.users.setPlan(userId, 'starter');
    await deps.billing.linkCustomer(userId, customer, null);
    const plan: Plan = i % 2 ? 'business' : 'pro';
    const cancels = i % 3 === 0;
    expected.set(userId, cancels ? 'starter' : plan);
    const sub = (status: string, p: Plan, periodEnd: number) => ({
      id: subscription, object: 'subscription', customer, status, cancel_at_period_end: false, metadata: {},
      items: { object: 'list', data: [{ id: `si_${i}`, current_period_end: periodEnd, price: { id: prices[p as 'pro'] } }] },
    });
    const invoice = (paid: boolean, periodEnd: number) => ({
      id: `in_${run}_${i}_${paid}_${periodEnd}`, object: 'invoice', customer, attempt_count: 1, next_payment_attempt: null,
      parent: { type: 'subscription_details', subscription_details: { subscription, metadata: {} } },
      lines: { object: 'list', data: [{ period: { start: periodEnd - 30 * DAY, end: periodEnd }, pricing: { type: 'price_details', price_details: { price: prices[plan as 'pro'] } } }] },
    });
    const events: [string, object][] = [
      ['checkout.session.completed', { id: `cs_${run}_${i}`, object: 'checkout.session', mode: 'subscription', customer, subscription, client_reference_id: userId, payment_status: 'paid', metadata: { userId, plan: 'pro' } }],
      ['invoice.payment_succeeded', invoice(true, now + 30 * DAY)],
      ['customer.subscription.updated', sub('active', plan, now + 30 * DAY)],
      ['invoice.payment_failed', invoice(false, now + 60 * DAY)],
      cancels ? ['customer.subscription.deleted', sub('canceled', plan, now - DAY)] : ['invoice.payment_succeeded', invoice(true, now + 60 * DAY)],
    ];
    events.forEach(([type, object], k) => {
      const payload = JSON.stringify({ id: `evt_${run}_${i}_${k}`, object: 'event', api_version: Stripe.API_VERSION, created: now + k * 10, data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type });
      requests.push({ method: 'POST', url: `${base}/api/subscriptions/webhook`, headers: { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) }, body: payload });
    });
  }
  shuffle(requests);

  process.stdout.write(`\n### Stripe webhooks — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}\n\n`);
  process.stdout.write(`${CUSTOMERS} customers, ${requests.length} signed deliveries (5 per customer, shuffled), ${SENDERS} concurrent senders.\n\n`);
  process.stdout.write('| what | p50 | p99 | deliveries/s | answers |\n|---|---:|---:|---:|---|\n');
  const agent = new http.Agent({ keepAlive: true, maxSockets: SENDERS });
  // The floor first, while Temporal and the worker are idle: verified and stored, nothing handed over.
  const unused = Array.from({ length: requests.length }, (_, k) => {
    const payload = JSON.stringify({ id: `evt_${run}_unused_${k}`, object: 'event', api_version: Stripe.API_VERSION, created: now, data: { object: { id: `ch_${k}`, object: 'charge' } }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type: 'charge.refunded' });
    return { method: 'POST' as const, url: `${base}/api/subscriptions/webhook`, headers: { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) }, body: payload };
  });
  await measureLoad('an event type billing does not use (verified and stored only)', agent, SENDERS, unused, []);
  const started = performance.now();
  await measureLoad('POST /api/subscriptions/webhook (to the 2xx)', agent, SENDERS, requests, []);
  const answered = performance.now();

  // Until every account shows its final plan.
  const users = infra.mongo.conn.db!.collection<{ _id: string; plan: Plan }>('users');
  let wrong = CUSTOMERS;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const docs = await users.find({ _id: { $in: [...expected.keys()] } }, { projection: { plan: 1 } }).toArray();
    wrong = docs.filter((d) => expected.get(d._id) !== d.plan).length + (CUSTOMERS - docs.length);
    if (wrong === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const settled = performance.now();
  process.stdout.write(
    `\nEvery account showing its final plan: **${wrong === 0 ? 'yes' : `no (${wrong} wrong after 300 s)`}**, ${((settled - started) / 1000).toFixed(2)} s after the first delivery, ${((settled - answered) / 1000).toFixed(2)} s after the last answer.\n`,
  );
  agent.destroy();
  server.close();
  await closeInfra(infra);
  if (wrong !== 0) process.exitCode = 1;
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
