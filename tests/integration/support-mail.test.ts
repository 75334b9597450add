/**
 * Support by e-mail, outbound (issue 39), on the real stack: the shared worker serves the
 * support-mail queue and hands mail to Mailpit. A new ticket's acknowledgement and a staff reply
 * reach the requester, threaded (their own Message-IDs, In-Reply-To and References, a reply address
 * carrying the ticket's token), and each delivery's state is on the message. The use case itself
 * (operations/support/mail-delivery.ts) is also driven directly, with the worker's dependencies: a
 * message's files attached up to the limit and linked beyond it (the signed link opens the file, a
 * tampered or expired one does not), an SMTP server refusing the message (failed, with why), one out
 * of reach (retried, the same Message-ID on the next attempt), a delivery that has ended (never sent
 * again), an address that bounces (not sent) and the relay (a delivery whose start was missed).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SMTPServer } from 'smtp-server';
import { deliveryDepsOf } from '../../activities/support-mail.activities';
import { createMailer, type Mailer } from '../../models/infra/mail';
import { signFileLink } from '../../models/support/file-links';
import { messageIdOf } from '../../models/support/mail-ids';
import { createMailRepo } from '../../models/support/mail.repo';
import { messageModel, ticketModel, type TicketDoc } from '../../models/support/support.model';
import { TICKET_ISSUES } from '../../models/support/ticket.rules';
import { deliverMail, forwardQueuedMail } from '../../operations/support/mail-delivery';
import { workflowIds } from '../../workflows/ids';
import { messageAttachments, messageHeaders, messagesTo, waitForMessagesTo } from '../helpers/mailpit';
import { eventually } from '../helpers/service';
import { agentToken, buildTicket, client, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(120_000);

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000c4d5cd330000000d4944415478da63f8cfc0f01f0005000201a2c4e1a50000000049454e44ae426082', 'hex');

let svc: SupportService;
let agentAuth: string;
let mailer: Mailer;
beforeAll(async () => {
  svc = await startSupportService();
  agentAuth = `Bearer ${await agentToken('agent-mail')}`;
  mailer = createMailer(svc.deps.config);
});
afterAll(async () => {
  mailer?.close();
  await svc?.close();
});

const desk = () => svc.deps.config.support.mail;
const domain = () => desk().address.split('@')[1]!;
const ourId = (ticketId: number, messageId: number) => messageIdOf(desk().secret, domain(), ticketId, messageId);
const header = (h: Record<string, string[]>, name: string) => h[name]?.[0];
const ticketDoc = async (id: number) => (await ticketModel(svc.deps.mongo.conn).findById(id).lean<TicketDoc>())!;
const delivery = async (ticketId: number, messageId: number) => await createMailRepo(svc.deps.mongo.conn).delivery({ ticketId, messageId });
/** The worker's dependencies of the use case, on this file's service (its mailer and limits can be changed). */
const deps = (over: { mailer?: Mailer; attachMaxBytes?: number } = {}) => {
  const d = deliveryDepsOf({ conn: svc.deps.mongo.conn, storage: svc.deps.storage, config: svc.deps.config, mailer: over.mailer ?? mailer });
  return over.attachMaxBytes === undefined ? d : { ...d, desk: { ...d.desk, attachMaxBytes: over.attachMaxBytes } };
};
/** A ticket and a staff message written straight to the repository: queued, no workflow started (the use case is driven by hand). */
async function queuedReply(over: Partial<{ wantReply: boolean; email: string }> = {}) {
  const email = over.email ?? `leitor-${randomUUID().slice(0, 8)}@example.com`;
  const ticket = await svc.deps.tickets.create({ main: 'Entrega', issue: TICKET_ISSUES[1]!, description: 'A edição não chegou.', email, newsletter: 'The News', wantReply: over.wantReply ?? true }, email);
  const { message } = await svc.deps.tickets.addMessage(ticket, { conteudo: 'Reenviamos a edição de hoje.\nConfira a caixa de entrada.', remetente: 'agent-mail@newsletter.dev', origem: 'admin', canal: 'console' });
  return { ticket, message, email };
}

describe('through the worker', () => {
  it('acknowledges a new ticket, then mails a staff reply on the same thread; each delivery ends sent', async () => {
    const body = buildTicket();
    const opened = await client(svc).post('/support', body).expect(201);
    const id = opened.body.data.id as number;

    const [ack] = await waitForMessagesTo(body.email, { timeoutMs: 30_000 });
    const ackHeaders = await messageHeaders(ack!.id);
    const token = (await ticketDoc(id)).mailToken!;
    expect(token).toMatch(/^[a-z2-7]{24}$/);
    expect(header(ackHeaders, 'Message-Id') ?? header(ackHeaders, 'Message-ID')).toBe(ourId(id, 0));
    expect(header(ackHeaders, 'Auto-Submitted')).toBe('auto-replied');
    expect(header(ackHeaders, 'Reply-To')).toContain(`support+${token}@${domain()}`);
    expect(ack!.subject).toContain(`#${id}`);
    expect(ack!.text).toContain(String(id));
    expect((await eventually(async () => (await ticketDoc(id)).confirmacao?.estado, 'sent'))).toBe('sent');

    const sent = await client(svc).post(`/support/${id}/mensagens`).set('Authorization', agentAuth).send({ conteudo: 'Reenviamos a edição <b>de hoje</b>.' }).expect(201);
    expect(sent.body.data).toMatchObject({ origem: 'admin', canal: 'api', entrega: { estado: 'queued', motivo: null } });
    const messageId = sent.body.data.id as number;
    const mails = await waitForMessagesTo(body.email, { count: 2, timeoutMs: 30_000 });
    const reply = mails.find((m) => m.id !== ack!.id)!;
    const h = await messageHeaders(reply.id);
    expect(header(h, 'Message-Id') ?? header(h, 'Message-ID')).toBe(ourId(id, messageId));
    expect(header(h, 'In-Reply-To')).toBe(ourId(id, 0));
    expect(header(h, 'References')).toContain(ourId(id, 0));
    expect(header(h, 'Reply-To')).toContain(`support+${token}@${domain()}`);
    expect(header(h, 'Auto-Submitted')).toBeUndefined();
    expect(reply.text).toContain('Reenviamos a edição <b>de hoje</b>.');
    // The staff's words are text in the HTML too, never markup.
    expect(reply.html).toMatch(/Reenviamos a edição &(lt|#60);b&(gt|#62);de hoje&(lt|#60);\/b&(gt|#62);\./);
    expect(reply.html).not.toContain('<b>de hoje</b>');

    const state = async () => (await client(svc).get(`/support/${id}`).set('Authorization', agentAuth).expect(200)).body.data.mensagens.find((m: { id: number }) => m.id === messageId)?.entrega?.estado;
    expect(await eventually(state, 'sent')).toBe('sent');
  });

  it("writes the requester's mail in the ticket's language: English when asked, Portuguese by default", async () => {
    const en = buildTicket({ idioma: 'en' });
    const opened = await client(svc).post('/support', en).expect(201);
    expect(opened.body.data.idioma).toBe('en');
    const [mail] = await waitForMessagesTo(en.email, { timeoutMs: 30_000 });
    expect(mail!.text).toContain(`We received your ticket #${opened.body.data.id}`);
    const pt = buildTicket();
    const ptId = (await client(svc).post('/support', pt).expect(201)).body.data.id as number;
    const [ptMail] = await waitForMessagesTo(pt.email, { timeoutMs: 30_000 });
    expect(ptMail!.text).toContain(`Recebemos seu chamado #${ptId}`);
    await client(svc).post('/support', buildTicket({ idioma: 'fr' })).expect(400);
  });

  it('a requester who wants no reply: no acknowledgement, and a staff reply is not mailed (with why); no workflow starts', async () => {
    const body = buildTicket({ wantReply: false });
    const id = (await client(svc).post('/support', body).expect(201)).body.data.id as number;
    expect((await ticketDoc(id)).confirmacao).toMatchObject({ estado: 'not-sent', motivo: expect.stringContaining('no reply') });
    const sent = await client(svc).post(`/support/${id}/mensagens`).set('Authorization', agentAuth).send({ conteudo: 'Resolvido.' }).expect(201);
    expect(sent.body.data.entrega).toMatchObject({ estado: 'not-sent', motivo: expect.stringContaining('wantReply: false') });
    for (const messageId of [0, sent.body.data.id as number]) {
      await expect(svc.deps.temporal.client.workflow.getHandle(workflowIds.supportMail(id, messageId)).describe()).rejects.toThrow(/not found/i);
    }
    expect(await messagesTo(body.email)).toEqual([]);
  });

  it('the relay starts a delivery whose start was missed', async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const ticket = await svc.deps.tickets.create({ main: 'Entrega', issue: TICKET_ISSUES[1]!, description: 'Sem edição.', email, wantReply: true }, email);
    // The oldest queued acknowledgement of the database: the relay's first.
    // (The driver's collection: Mongoose keeps createdAt immutable.)
    await svc.deps.mongo.conn.collection('tickets').updateOne({ _id: ticket._id } as never, { $set: { createdAt: new Date(0) } });
    const warned: unknown[] = [];
    const relay = { temporal: svc.deps.temporal, taskQueuePrefix: svc.deps.config.temporal.taskQueuePrefix, sendDelayMs: 0, mail: createMailRepo(svc.deps.mongo.conn), now: () => new Date(), logger: { warn: (o: unknown) => void warned.push(o) } };
    expect([await forwardQueuedMail(relay, { olderThanMs: 60_000, limit: 1 }), warned]).toEqual([{ forwarded: 1 }, []]);
    const [ack] = await waitForMessagesTo(email, { timeoutMs: 30_000 });
    expect(ack!.subject).toContain(`#${ticket._id}`);
    expect(await eventually(async () => (await ticketDoc(ticket._id)).confirmacao?.estado, 'sent')).toBe('sent');
  });
});

describe('the use case (the worker step, driven directly)', () => {
  it("attaches the message's files up to the limit and links the rest; the signed link opens the file, a tampered or expired one does not", async () => {
    const { ticket, message, email } = await queuedReply();
    const small = await request(svc.callback).post(`/support/${ticket._id}/anexos`).set('Authorization', agentAuth).field('mensagemId', String(message._id)).attach('arquivo', PNG, { filename: 'tela.png', contentType: 'image/png' }).expect(201);
    const csv = Buffer.from(`nome,email\n${'Ana,ana@example.com\n'.repeat(200)}`);
    const large = await request(svc.callback).post(`/support/${ticket._id}/anexos`).set('Authorization', agentAuth).field('mensagemId', String(message._id)).attach('arquivo', csv, { filename: 'lista.csv', contentType: 'text/csv' }).expect(201);

    expect(await deliverMail(deps({ attachMaxBytes: 1_000 }), { ticketId: ticket._id, messageId: message._id })).toEqual({ estado: 'sent', motivo: null });
    const [mail] = await waitForMessagesTo(email, { timeoutMs: 15_000 });
    expect((await messageAttachments(mail!.id)).map((a) => [a.FileName, a.ContentType])).toEqual([['tela.png', 'image/png']]);
    const link = new RegExp(`${svc.deps.config.http.publicUrls.support}/support/arquivos/${large.body.data.id}\\?expira=(\\d+)&assinatura=([A-Za-z0-9_-]{43})`).exec(mail!.text);
    expect(link).not.toBeNull();
    expect(mail!.text).toContain('lista.csv');
    expect(small.body.data.id).toBeGreaterThan(0);

    const path = `/support/arquivos/${large.body.data.id}?expira=${link![1]}&assinatura=${link![2]}`;
    const opened = await request(svc.callback).get(path).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(opened.status).toBe(200);
    expect(Buffer.compare(opened.body as Buffer, csv)).toBe(0);
    expect(opened.headers['content-disposition']).toMatch(/^attachment/);
    expect(opened.headers['cache-control']).toBe('private, no-store');

    const tampered = `/support/arquivos/${small.body.data.id}?expira=${link![1]}&assinatura=${link![2]}`;
    expect((await request(svc.callback).get(tampered)).status).toBe(404);
    const old = signFileLink(desk().secret, large.body.data.id, new Date(Date.now() - 40 * 24 * 3600_000));
    expect((await request(svc.callback).get(`/support/arquivos/${large.body.data.id}?expira=${old.expira}&assinatura=${old.assinatura}`)).status).toBe(404);
    const malformed = await request(svc.callback).get(`/support/arquivos/${large.body.data.id}?expira=1&assinatura=<script>`);
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ success: false });
  });

  it('an SMTP server that refuses the message: failed, with its reply, and not tried again', async () => {
    const refusing = new SMTPServer({
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const port = (refusing.server.address() as AddressInfo).port;
    const refused = createMailer({ ...svc.deps.config, mail: { ...svc.deps.config.mail, smtpUrl: `smtp://127.0.0.1:${port}` } });
    try {
      const { ticket, message } = await queuedReply();
      const outcome = await deliverMail(deps({ mailer: refused }), { ticketId: ticket._id, messageId: message._id });
      expect(outcome).toMatchObject({ estado: 'failed', motivo: expect.stringMatching(/550.*mailbox unavailable/) });
      expect(await delivery(ticket._id, message._id)).toMatchObject({ estado: 'failed', tentativas: 1, motivo: expect.stringContaining('550') });
      // Ended: a second run sends nothing and answers the state.
      expect(await deliverMail(deps({ mailer: refused }), { ticketId: ticket._id, messageId: message._id })).toMatchObject({ estado: 'failed' });
      expect((await delivery(ticket._id, message._id))!.tentativas).toBe(1);
    } finally {
      refused.close();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('an SMTP server out of reach: DEPENDENCY_UNAVAILABLE (the workflow retries), and the next attempt sends the same Message-ID once', async () => {
    const unreachable = createMailer({ ...svc.deps.config, mail: { ...svc.deps.config.mail, smtpUrl: 'smtp://127.0.0.1:1' } });
    try {
      const { ticket, message, email } = await queuedReply();
      const target = { ticketId: ticket._id, messageId: message._id };
      await expect(deliverMail(deps({ mailer: unreachable }), target)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
      expect(await delivery(ticket._id, message._id)).toMatchObject({ estado: 'sending', tentativas: 1, messageId: ourId(ticket._id, message._id) });

      expect(await deliverMail(deps(), target)).toEqual({ estado: 'sent', motivo: null });
      expect(await delivery(ticket._id, message._id)).toMatchObject({ estado: 'sent', tentativas: 2, messageId: ourId(ticket._id, message._id) });
      // Ended: a retried activity sends nothing more.
      expect(await deliverMail(deps(), target)).toEqual({ estado: 'sent', motivo: null });
      const mails = await waitForMessagesTo(email, { timeoutMs: 15_000 });
      expect(mails).toHaveLength(1);
      expect(header(await messageHeaders(mails[0]!.id), 'Message-Id') ?? header(await messageHeaders(mails[0]!.id), 'Message-ID')).toBe(ourId(ticket._id, message._id));
    } finally {
      unreachable.close();
    }
  });

  it('an address that bounces is not mailed, with why; the ticket shows the state change', async () => {
    const { ticket, message, email } = await queuedReply();
    await createMailRepo(svc.deps.mongo.conn).markBouncing(email, '5.1.1 user unknown', new Date());
    const before = (await ticketDoc(ticket._id)).updatedAt;
    const outcome = await deliverMail(deps(), { ticketId: ticket._id, messageId: message._id });
    expect(outcome).toMatchObject({ estado: 'not-sent', motivo: expect.stringMatching(/bounces.*5\.1\.1 user unknown/) });
    expect((await ticketDoc(ticket._id)).updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(await messagesTo(email)).toEqual([]);
    // What the API shows of it.
    const shown = (await client(svc).get(`/support/${ticket._id}`).set('Authorization', agentAuth).expect(200)).body.data.mensagens.find((m: { id: number }) => m.id === message._id);
    expect(shown).toMatchObject({ canal: 'console', entrega: { estado: 'not-sent', motivo: expect.stringContaining('bounces') } });
  });

  it('a message no longer there, or a ticket deleted: nothing is sent', async () => {
    const { ticket, message } = await queuedReply();
    await messageModel(svc.deps.mongo.conn).updateOne({ _id: message._id }, { $set: { ticketId: -1 } });
    expect(await deliverMail(deps(), { ticketId: ticket._id, messageId: message._id })).toMatchObject({ estado: 'not-sent' });
    const gone = await queuedReply();
    await client(svc).delete(`/support/${gone.ticket._id}`).set('Authorization', agentAuth).expect(200);
    expect(await deliverMail(deps(), { ticketId: gone.ticket._id, messageId: gone.message._id })).toEqual({ estado: 'not-sent', motivo: 'the ticket was deleted' });
  });
});
