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
 * Inbound, through a receiver started here (api/mail/server.ts, handing over to the shared worker):
 *  4. the receiver's own floor: a requester's reply sent by SMTP until its 250 (stored in MinIO,
 *     recorded, its workflow started), one after another: p50/p95;
 *  5. one at a time: from the SMTP send to the message in the ticket (quote stripped, stored),
 *     read from the database every 10 ms: p50/p95 (the issue's target: p95 < 5 s);
 *  6. a burst: BENCH_BURST replies sent at once over 10 SMTP connections: until all are in their
 *     tickets, messages a second.
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
import { jsonRequest, percentile, say } from './load';
import nodemailer from 'nodemailer';
import { startMailReceiver } from '../../api/mail/server';
import { freePort } from '../dev-services';
import { ticketModel } from '../../models/support/support.model';

const MAILS = Number(process.env.BENCH_MAILS ?? 100);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ms = (x: number) => `${Math.round(x)} ms`;
const stats = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (n = ${xs.length})`;

async function main(): Promise<void> {
  const config = parseConfig({
    ...process.env,
    SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000000',
    SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE: '1000000000',
    SUPPORT_MAIL_SMTP_PORT: String(await freePort()),
    SUPPORT_MAIL_LMTP_PORT: String(await freePort()),
  });
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
  const post = async (path: string, body: object, headers: Record<string, string> = {}) => {
    const res = await jsonRequest<{ data: { id: number } }>(agent, 'POST', `${base}${path}`, body, headers);
    return { status: res.status, body: res.json! };
  };
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

  // 4–6. Inbound: requesters' replies to their tickets' reply addresses, through our receiver.
  say('inbound: the receiver…');
  const receiver = await startMailReceiver(config);
  const Tickets = ticketModel(conn);
  const domain = config.support.mail.address.split('@')[1]!;
  /** Tickets whose acknowledgement went out (so each has its reply address's token). */
  const withTokens = async (count: number, from: number) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push(await newTicket(from + i));
    const out: { id: number; email: string; token: string }[] = [];
    for (const id of ids) {
      for (const until = performance.now() + 120_000; ; ) {
        const t = await Tickets.findById(id, { email: 1, mailToken: 1 }).lean<{ email: string; mailToken?: string }>();
        if (t?.mailToken) {
          out.push({ id, email: t.email, token: t.mailToken });
          break;
        }
        if (performance.now() > until) throw new Error(`ticket ${id}: no reply address within 120 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return out;
  };
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.ports.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 10, maxMessages: Infinity });
  let n = 0;
  const replyTo = async (t: { id: number; email: string; token: string }) => {
    const messageId = `<bench-${Date.now()}-${n++}@mail.example.com>`;
    const to = `support+${t.token}@${domain}`;
    const raw = [`From: ${t.email}`, `To: ${to}`, `Subject: Re: [#${t.id}] Entrega`, `Message-ID: ${messageId}`, 'Content-Type: text/plain; charset=utf-8', '', 'Chegou, obrigada!', '', `On Thu, Nov 26, 2026 at 10:02 AM Suporte <${to}> wrote:`, `> ${content}`, ''].join('\r\n');
    await smtp.sendMail({ envelope: { from: t.email, to: [to] }, raw });
    return `email:${t.id}:${messageId}`;
  };
  const visible = async (key: string, t0: number, timeoutMs = 60_000): Promise<number> => {
    for (;;) {
      if (await Messages.exists({ dedupeKey: key })) return performance.now() - t0;
      if (performance.now() - t0 > timeoutMs) throw new Error(`${key} not in its ticket within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const inboundTickets = await withTokens(MAILS + 1, 20_000);
  const accept: number[] = [];
  const landed: number[] = [];
  for (const [i, t] of inboundTickets.entries()) {
    const t0 = performance.now();
    const key = await replyTo(t);
    const accepted = performance.now() - t0;
    const seen = await visible(key, t0);
    if (i > 0) {
      accept.push(accepted);
      landed.push(seen);
    }
  }
  row("inbound: a reply sent by SMTP until the receiver's 250 (stored in MinIO, recorded, workflow started)", stats(accept));
  row('inbound: a reply sent by SMTP until its message is in the ticket (parse, authenticate, thread, strip, store)', stats(landed));
  row("inbound p95 ÷ the receiver's p95", `${(percentile(landed, 95) / percentile(accept, 95)).toFixed(1)}×`);

  say(`inbound: a burst of ${BURST} replies…`);
  const burstInbound = await withTokens(BURST, 30_000);
  const b0 = performance.now();
  const keys = await Promise.all(burstInbound.map((t) => replyTo(t)));
  const sent = performance.now() - b0;
  const inEach = await Promise.all(keys.map((k) => visible(k, b0, 300_000)));
  const inAll = Math.max(...inEach);
  row(`inbound burst: ${BURST} replies sent over 10 SMTP connections (all accepted)`, ms(sent));
  row('inbound burst: until the last is in its ticket', `${ms(inAll)} (${(BURST / (inAll / 1000)).toFixed(1)} messages/s; each from the burst's start: ${stats(inEach)})`);
  smtp.close();
  await receiver.stop();

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
