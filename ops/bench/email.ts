/**
 * Benchmark: support by e-mail, outbound (issue 39). In one run, against the stack `npm test`
 * provisions (its shared worker serves the support-mail queue and hands mail to Mailpit):
 *  1. the floor: the same mail handed straight to Mailpit by nodemailer from this process,
 *     BENCH_MAILS times one after another (default 100): p50/p95;
 *  2. staff replies one at a time (POST /support/{id}/mensagens with an agent's token, the send
 *     delay 0 as in tests): the time from the POST's answer to the delivery `sent` (the SMTP
 *     server took it), read from the database every 10 ms; p50/p95 and the ratio to the floor;
 *  3. a burst: BENCH_BURST replies (default 200) posted at once over 20 connections: how long
 *     until all are sent, and mails a second.
 *
 * Inbound (SMTP accept → message in the ticket) is measured when its processing lands (issue 39).
 * Run with `npm run bench:email`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeSupportDeps, supportService } from '../../api/support/service';
import { signToken } from '../../models/auth/token.rules';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { createMailer } from '../../models/infra/mail';
import { messageModel } from '../../models/support/support.model';
import { TICKET_ISSUES } from '../../models/support/ticket.rules';
import { percentile, say } from './load';

const MAILS = Number(process.env.BENCH_MAILS ?? 100);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ms = (x: number) => `${Math.round(x)} ms`;
const stats = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (n = ${xs.length})`;

async function main(): Promise<void> {
  const config = parseConfig({ ...process.env, SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000000', SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE: '1000000000' });
  if (config.support.mail.sendDelayMs !== 0) throw new Error('SUPPORT_MAIL_SEND_DELAY_SECONDS must be 0 (npm test sets it)');
  const infra = createInfra(config, 'support', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = await makeSupportDeps(infra);
  const server = http.createServer(createApp(definitionFor(supportService, config), deps).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const auth = `Bearer ${await signToken(config.auth.jwtSecret!, { sub: 'bench-agent', permissions: ['support.agent'], email: 'bench-agent@newsletter.dev' })}`;
  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const row = (measurement: string, result: string) => process.stdout.write(`| ${measurement} | ${result} |\n`);
  process.stdout.write(`**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${database}, Node ${process.version}, Mailpit as the SMTP server:**\n\n| measurement | result |\n|---|---:|\n`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: { data: { id: number } } }>((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = http.request(`${base}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      req.end(data);
    });
  const Messages = messageModel(conn);
  const sentAt = async (id: number, t0: number, timeoutMs = 60_000): Promise<number> => {
    for (;;) {
      const m = await Messages.findById(id, { entrega: 1 }).lean<{ entrega?: { estado: string } }>();
      if (m?.entrega?.estado === 'sent') return performance.now() - t0;
      if (m?.entrega && !['queued', 'sending'].includes(m.entrega.estado)) throw new Error(`message ${id}: ${m.entrega.estado}`);
      if (performance.now() - t0 > timeoutMs) throw new Error(`message ${id} not sent within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const newTicket = async (i: number) => {
    const res = await post('/support', { main: 'Entrega', issue: TICKET_ISSUES[1], description: `A edição não chegou (${i}).`, email: `bench-leitor-${i}-${Date.now()}@example.com`, wantReply: true });
    if (res.status !== 201) throw new Error(`POST /support: ${res.status}`);
    return res.body.data.id;
  };
  const content = `Olá! Reenviamos a edição de hoje. ${'Confira também a aba Promoções. '.repeat(10)}`;

  // 1. The floor: SMTP to Mailpit from here.
  say('the floor: nodemailer → Mailpit…');
  const mailer = createMailer(config);
  const floor: number[] = [];
  for (let i = 0; i < MAILS + 1; i++) {
    const t0 = performance.now();
    await mailer.send({ to: `bench-floor-${i}@example.com`, subject: '[#1] Entrega: bench', text: content, html: `<p>${content}</p>` });
    if (i > 0) floor.push(performance.now() - t0);
  }
  row('floor: one mail handed to Mailpit by nodemailer from this process (pooled)', stats(floor));

  // 2. Staff replies one at a time.
  say('staff replies one at a time…');
  const tickets: number[] = [];
  for (let i = 0; i < MAILS + 1; i++) tickets.push(await newTicket(i));
  const one: number[] = [];
  for (let i = 0; i < MAILS + 1; i++) {
    const res = await post(`/support/${tickets[i]}/mensagens`, { conteudo: content }, { authorization: auth });
    const t0 = performance.now();
    if (res.status !== 201) throw new Error(`POST mensagens: ${res.status}`);
    const t = await sentAt(res.body.data.id, t0);
    if (i > 0) one.push(t);
  }
  row('staff reply: POST answered → delivery `sent` (workflow start, claim, compose, SMTP, record)', stats(one));
  row('staff reply p50 ÷ the floor\'s p50', `${(percentile(one, 50) / percentile(floor, 50)).toFixed(1)}×`);

  // 3. A burst.
  say(`a burst of ${BURST} replies…`);
  const burstTickets: number[] = [];
  for (let i = 0; i < BURST; i++) burstTickets.push(await newTicket(10_000 + i));
  const t0 = performance.now();
  const ids = await Promise.all(burstTickets.map(async (id) => (await post(`/support/${id}/mensagens`, { conteudo: content }, { authorization: auth })).body.data.id));
  const posted = performance.now() - t0;
  const each = await Promise.all(ids.map((id) => sentAt(id, t0, 300_000)));
  const all = Math.max(...each);
  row(`burst: ${BURST} replies posted over 20 connections (all answered)`, ms(posted));
  row(`burst: until the last is sent`, `${ms(all)} (${(BURST / (all / 1000)).toFixed(1)} mails/s; each from the burst's start: ${stats(each)})`);

  mailer.close();
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
