/**
 * Support by e-mail, inbound processing (issue 39), on the real stack: a receiver started here
 * (on the stack's MinIO and MongoDB) hands each stored mail to supportInboundMailWorkflow, which the
 * shared worker runs on the support-mail queue. Mail is sent by SMTP (nodemailer). A reply to the
 * ticket's reply address lands in the ticket with its quote stripped; a From forged as the requester
 * with the ticket's `[#n]` subject does not join ticket n; a delivery-status notification about our
 * acknowledgement marks it bounced and the address bouncing; a new mail opens a ticket whose
 * acknowledgement reaches Mailpit; a mail whose hand-over never happened (the receiver stopped
 * between its 250 and the start) is processed once the relay hands it over.
 *
 * DNS: the worker authenticates with the system resolver, which reaches nothing from the test
 * machine (SPF and DMARC come out `none`/`temperror`, never `pass`): so the subject never joins
 * here, and the spoofing case is the one that matters. DMARC pass and fail are covered by the unit
 * tests over a fake zone (tests/unit/inbound-process.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { createInboundMailRepo, INBOUND_MAIL_COLLECTION, type InboundMailDoc } from '../../models/support/inbound-mail.repo';
import { messageIdOf } from '../../models/support/mail-ids';
import { createMailRepo } from '../../models/support/mail.repo';
import { messageModel, ticketModel, type MessageDoc, type TicketDoc } from '../../models/support/support.model';
import { forwardStoredMail, handOverInboundMail } from '../../operations/support/inbound-process';
import { messageHeaders, waitForMessagesTo } from '../helpers/mailpit';
import { mailStack, startTestReceiver, type MailStack, type TestReceiver } from '../helpers/mail-receiver';
import { eventually } from '../helpers/service';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(120_000);

let svc: SupportService;
let stack: MailStack;
let receiver: TestReceiver;

const inbound = () => createInboundMailRepo(svc.deps.mongo.conn);
const handOverDeps = () => ({ temporal: svc.deps.temporal, taskQueuePrefix: svc.deps.config.temporal.taskQueuePrefix, inbound: inbound(), now: () => new Date() });

beforeAll(async () => {
  svc = await startSupportService();
  stack = await mailStack();
  receiver = await startTestReceiver(stack, { handOver: async (id) => void (await handOverInboundMail(handOverDeps(), id)) });
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  await svc?.close();
});

const desk = () => svc.deps.config.support.mail;
const domain = () => desk().address.split('@')[1]!;
const replyAddress = (token: string) => desk().address.replace('@', `+${token}@`);
const ticketDoc = async (id: number) => (await ticketModel(svc.deps.mongo.conn).findById(id).lean<TicketDoc>())!;
const messagesOf = async (ticketId: number) => await messageModel(svc.deps.mongo.conn).find({ ticketId }).sort({ _id: 1 }).lean<MessageDoc[]>();
const recordsFrom = async (mailFrom: string) => await svc.deps.mongo.conn.db!.collection<InboundMailDoc>(INBOUND_MAIL_COLLECTION).find({ 'envelope.mailFrom': mailFrom }).toArray();

/** Waits for the one record from `mailFrom` to be settled; answers it. */
async function settled(mailFrom: string, timeoutMs = 40_000): Promise<InboundMailDoc> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [record] = await recordsFrom(mailFrom);
    if (record && (record.state === 'processed' || record.state === 'failed')) return record;
    if (Date.now() > deadline) throw new Error(`the mail from ${mailFrom} was not settled in ${timeoutMs} ms: ${JSON.stringify(record?.state)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function send(envelope: { from: string; to: string[] }, raw: string | Buffer, port = receiver.smtpPort): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope, raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw.replace(/\r?\n/g, '\r\n')) });
  } finally {
    transport.close();
  }
}

/** A ticket opened through the API, its acknowledgement mailed (so it has a reply token and our Message-ID). */
async function ticketWithAck(email = `leitor-${randomUUID().slice(0, 8)}@example.com`) {
  const opened = await client(svc).post('/support', buildTicket({ email })).expect(201);
  const id = opened.body.data.id as number;
  await eventually(async () => (await ticketDoc(id)).confirmacao?.estado, 'sent', 30_000);
  const ticket = await ticketDoc(id);
  return { id, email, token: ticket.mailToken!, ackId: ticket.confirmacao!.messageId! };
}

it("a reply to the ticket's reply address lands in the ticket, the quote stripped, the raw mail kept", async () => {
  const t = await ticketWithAck();
  const raw = [
    `From: Leitora <${t.email}>`,
    `To: ${replyAddress(t.token)}`,
    `Subject: Re: [#${t.id}] Entrega`,
    `Message-ID: <${randomUUID()}@mail.example.com>`,
    `In-Reply-To: ${t.ackId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Chegou hoje, obrigada!',
    '',
    `On Thu, Nov 26, 2026 at 10:02 AM Newsletter Support <${replyAddress(t.token)}> wrote:`,
    '> Recebemos seu pedido.',
    '> A equipe',
    '',
  ].join('\n');
  await send({ from: t.email, to: [replyAddress(t.token)] }, raw);
  const record = await settled(t.email);
  expect(record).toMatchObject({ state: 'processed', result: { ticketId: t.id, threadedBy: 'token' } });
  const mine = (await messagesOf(t.id)).filter((m) => m.canal === 'email');
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ origem: 'usuario', remetente: t.email, conteudo: 'Chegou hoje, obrigada!', emailRaw: record.objectKey });
  const agentAuth = `Bearer ${await agentToken('agent-inbound')}`;
  const view = (await client(svc).get(`/support/${t.id}`).set('Authorization', agentAuth).expect(200)).body.data.mensagens;
  expect(view.at(-1)).toMatchObject({ canal: 'email', conteudo: 'Chegou hoje, obrigada!' });
  // The whole mail stays available to the staff, byte for byte, quote and all.
  const original = await client(svc).get(`/support/${t.id}/mensagens/${mine[0]!._id}/original`).set('Authorization', agentAuth).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  }).expect(200);
  expect(original.headers['content-type']).toBe('message/rfc822');
  expect(original.headers['content-disposition']).toContain(`chamado-${t.id}-mensagem-${mine[0]!._id}.eml`);
  expect((original.body as Buffer).equals(Buffer.from(raw.replace(/\r?\n/g, '\r\n')))).toBe(true);
  // Not for the requester's token; a message that came by no mail has none.
  await client(svc).get(`/support/${t.id}/mensagens/${mine[0]!._id}/original`).set('Authorization', `Bearer ${await readerToken(t.email)}`).expect(403);
  const staffReply = await client(svc).post(`/support/${t.id}/mensagens`).set('Authorization', agentAuth).send({ conteudo: 'Que bom!' }).expect(201);
  await client(svc).get(`/support/${t.id}/mensagens/${staffReply.body.data.id as number}/original`).set('Authorization', agentAuth).expect(404);
  await client(svc).get(`/support/${t.id}/mensagens/999999999/original`).set('Authorization', agentAuth).expect(404);
});

it("a From forged as the requester with the ticket's [#n] subject does not join ticket n", async () => {
  const t = await ticketWithAck();
  const raw = [`From: ${t.email}`, `To: ${desk().address}`, `Subject: Re: [#${t.id}] altere meu e-mail`, `Message-ID: <${randomUUID()}@evil.example>`, `In-Reply-To: <t${t.id}.m0.aaaaaaaaaaaaaaaaaaaa@${domain()}>`, '', 'Troque meu e-mail para outro@evil.example', ''].join('\n');
  await send({ from: t.email, to: [desk().address] }, raw);
  const record = await settled(t.email);
  expect(record.state).toBe('processed');
  expect(record.result).toMatchObject({ threadedBy: 'new' });
  expect(record.result!.ticketId).not.toBe(t.id);
  expect((await messagesOf(t.id)).filter((m) => m.canal === 'email')).toEqual([]);
});

it('a delivery-status notification about our acknowledgement marks it bounced and the address bouncing', async () => {
  const t = await ticketWithAck(`nobody-${randomUUID().slice(0, 8)}@example.com`);
  expect(t.ackId).toBe(messageIdOf(desk().secret, domain(), t.id, 0));
  const dsn = readFileSync(path.join(__dirname, '../fixtures/mail/dsn-bounce.eml'), 'latin1')
    .replaceAll('<t91.m0.qjzg3glajuuf4grbesmc@localhost>', t.ackId)
    .replaceAll('nobody.here@example.com', t.email)
    .replaceAll('support@localhost', desk().address);
  const bouncer = `mailer-daemon-${randomUUID().slice(0, 8)}@example.com`;
  await send({ from: bouncer, to: [desk().address] }, dsn);
  const record = await settled(bouncer);
  expect(record).toMatchObject({ state: 'processed', result: { kind: 'bounce', bounced: { ticketId: t.id, messageId: 0 }, bouncing: [t.email] } });
  expect((await ticketDoc(t.id)).confirmacao?.estado).toBe('bounced');
  expect((await createMailRepo(svc.deps.mongo.conn).recipient(t.email))?.bouncing).toBe(true);
  expect((await messagesOf(t.id)).filter((m) => m.canal === 'email')).toEqual([]);
});

it('a new mail to the desk opens a ticket and its acknowledgement reaches the sender', async () => {
  const sender = `novo-${randomUUID().slice(0, 8)}@example.com`;
  await send({ from: sender, to: [desk().address] }, [`From: ${sender}`, `To: ${desk().address}`, 'Subject: Não recebo a edição', `Message-ID: <${randomUUID()}@example.com>`, '', 'Desde segunda não chega nada.', ''].join('\n'));
  const record = await settled(sender);
  expect(record).toMatchObject({ state: 'processed', result: { threadedBy: 'new', acknowledged: true } });
  const ticket = await ticketDoc(record.result!.ticketId as number);
  expect(ticket).toMatchObject({ main: 'E-mail', issue: 'Outro', email: sender, description: 'Não recebo a edição' });
  expect((await messagesOf(ticket._id)).map((m) => [m.canal, m.conteudo])).toEqual([['email', 'Desde segunda não chega nada.']]);
  const [ack] = await waitForMessagesTo(sender, { timeoutMs: 30_000 });
  expect(ack!.subject).toContain(`#${ticket._id}`);
});

it('a mail whose hand-over never happened (the receiver stopped between its 250 and the start) is processed once the relay hands it over', async () => {
  const dying = await startTestReceiver(stack, { handOver: async () => await new Promise<never>(() => undefined) }, {});
  const sender = `orfao-${randomUUID().slice(0, 8)}@example.com`;
  await send({ from: sender, to: [desk().address] }, [`From: ${sender}`, `To: ${desk().address}`, 'Subject: perdido', `Message-ID: <${randomUUID()}@example.com>`, '', 'Alguém aí?', ''].join('\n'), dying.smtpPort);
  await dying.close();
  const [stored] = await recordsFrom(sender);
  expect(stored!.state).toBe('stored');
  // The oldest stored record of the database (the relay's first; other files' records stay as they are).
  await svc.deps.mongo.conn.db!.collection<InboundMailDoc>(INBOUND_MAIL_COLLECTION).updateOne({ _id: stored!._id }, { $set: { receivedAt: new Date(0) } });
  expect(await forwardStoredMail({ ...handOverDeps(), inbound: inbound() }, { olderThanMs: 30_000, limit: 1 })).toEqual({ forwarded: 1 });
  const record = await settled(sender);
  expect(record).toMatchObject({ state: 'processed', result: { threadedBy: 'new' } });
});

it('the round trip over SMTP: a mail opens a ticket; the staff reply reaches Mailpit threaded; the requester answers it and her words, the quote stripped, land in the ticket, which reopens; the reports count it as an e-mail ticket', async () => {
  const requester = `ida-volta-${randomUUID().slice(0, 8)}@example.com`;
  const firstId = `<${randomUUID()}@mail.example.com>`;
  await send({ from: requester, to: [desk().address] }, [`From: Leitora <${requester}>`, `To: ${desk().address}`, 'Subject: Minha assinatura sumiu', `Message-ID: ${firstId}`, '', 'Não acho minha assinatura desde ontem.', ''].join('\n'));
  const first = await settled(requester);
  const ticketId = first.result!.ticketId as number;
  expect(await ticketDoc(ticketId)).toMatchObject({ canal: 'email', description: 'Minha assinatura sumiu' });
  const [ack] = await waitForMessagesTo(requester, { timeoutMs: 30_000 });

  // Staff answer in the API (as the console does), then resolve it.
  const staff = client(svc, await agentToken('agent-round-trip'));
  const answer = await staff.post(`/support/${ticketId}/mensagens`, { conteudo: 'Encontramos: ela estava pausada. Já reativamos.' }).expect(201);
  const mails = await waitForMessagesTo(requester, { count: 2, timeoutMs: 30_000 });
  const staffMail = mails.find((m) => m.id !== ack!.id)!;
  const headers = await messageHeaders(staffMail.id);
  const staffMessageId = (headers['Message-Id'] ?? headers['Message-ID'])![0]!;
  expect(staffMessageId).toBe(messageIdOf(desk().secret, domain(), ticketId, answer.body.data.id as number));
  expect(headers['In-Reply-To']).toEqual([firstId]);
  const replyTo = headers['Reply-To']![0]!;
  const token = (await ticketDoc(ticketId)).mailToken!;
  expect(replyTo).toContain(replyAddress(token));
  await staff.patch(`/support/${ticketId}`, { status: 'resolved' }).expect(200);

  // She answers the staff's mail from her client: to its Reply-To, quoting it.
  const answerId = `<${randomUUID()}@mail.example.com>`;
  const quoted = staffMail.text.trim().split(/\r?\n/).map((l) => `> ${l}`);
  await send({ from: requester, to: [replyAddress(token)] }, [
    `From: Leitora <${requester}>`,
    `To: ${replyTo}`,
    `Subject: Re: ${staffMail.subject}`,
    `Message-ID: ${answerId}`,
    `In-Reply-To: ${staffMessageId}`,
    `References: ${firstId} ${staffMessageId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Voltou a sumir hoje de manhã.',
    '',
    `On Thu, Nov 26, 2026 at 3:14 PM Newsletter Support <${replyAddress(token)}> wrote:`,
    ...quoted,
    '',
  ].join('\n'));
  await eventually(async () => (await recordsFrom(requester)).filter((r) => r.state === 'processed').length, 2, 40_000);
  const records = await recordsFrom(requester);
  expect(records.map((r) => r.result)).toContainEqual(expect.objectContaining({ ticketId, threadedBy: 'token' }));
  const thread = await messagesOf(ticketId);
  expect(thread.map((m) => [m.origem, m.canal, m.conteudo])).toEqual([
    ['usuario', 'email', 'Não acho minha assinatura desde ontem.'],
    ['admin', 'api', 'Encontramos: ela estava pausada. Já reativamos.'],
    ['usuario', 'email', 'Voltou a sumir hoje de manhã.'],
  ]);
  // Her answer reopens what was resolved: a reopen the reports count.
  expect(await ticketDoc(ticketId)).toMatchObject({ status: 'open', reopenCount: 1, firstAdminReplyAt: expect.any(Date) });

  // The period in days around now, whatever the reports' time zone.
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const detailed = async (canal: string) =>
    (await staff.get('/support/relatorios/detalhado').query({ canal, data_inicio: day(-1), data_fim: day(1), fresh: 'true', limit: 100 }).expect(200)).body.data.linhas as { id: number; canal: string; primeiraRespostaSegundos: number | null; reaberturas: number }[];
  expect((await detailed('email')).find((r) => r.id === ticketId)).toMatchObject({ canal: 'email', primeiraRespostaSegundos: expect.any(Number), reaberturas: 1 });
  expect((await detailed('api')).map((r) => r.id)).not.toContain(ticketId);
  const options = (await staff.get('/support/relatorios/filtros').query({ fresh: 'true' }).expect(200)).body.data;
  expect(options.canais).toEqual(['api', 'email']);
});

it('a reply carrying a 20 MB file is accepted whole; the file is listed on the message as refused (too large), the small one kept', async () => {
  const t = await ticketWithAck();
  const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(20 * 1024 * 1024 - 9, 0x20)]);
  const boundary = `b-${randomUUID()}`;
  const raw = Buffer.from(
    [
      `From: ${t.email}`,
      `To: ${replyAddress(t.token)}`,
      `Subject: Re: [#${t.id}] Entrega`,
      `Message-ID: <${randomUUID()}@mail.example.com>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Segue o comprovante escaneado e minhas anotações.',
      `--${boundary}`,
      'Content-Type: application/pdf; name="comprovante.pdf"',
      'Content-Disposition: attachment; filename="comprovante.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      big.toString('base64').replace(/.{76}/g, '$&\r\n'),
      `--${boundary}`,
      'Content-Type: text/plain; name="anotacoes.txt"',
      'Content-Disposition: attachment; filename="anotacoes.txt"',
      '',
      'Pedido 88231, entregue em 20/11.',
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  );
  expect(raw.length).toBeGreaterThan(27 * 1024 * 1024);
  await send({ from: t.email, to: [replyAddress(t.token)] }, raw);
  const record = await settled(t.email, 90_000);
  expect(record).toMatchObject({ state: 'processed', size: raw.length, result: { ticketId: t.id, threadedBy: 'token', refusedFiles: 1 } });
  const [message] = (await messagesOf(t.id)).filter((m) => m.canal === 'email');
  expect(message).toMatchObject({ conteudo: 'Segue o comprovante escaneado e minhas anotações.', arquivosRecusados: [expect.objectContaining({ nome: 'comprovante.pdf', motivo: 'too-large', tamanho: big.length })] });
  const kept = await svc.deps.mongo.conn.db!.collection('ticket_attachments').find({ supportId: t.id, mensagemId: message!._id }).toArray();
  expect(kept.map((a) => [a.nomeArquivo, a.tipoArquivo])).toEqual([['anotacoes.txt', 'text/plain']]);
  const view = (await client(svc).get(`/support/${t.id}`).set('Authorization', `Bearer ${await agentToken('agent-inbound')}`).expect(200)).body.data.mensagens;
  expect(view.at(-1)).toMatchObject({ canal: 'email', arquivosRecusados: [expect.objectContaining({ nome: 'comprovante.pdf', motivo: 'too-large' })] });
});
