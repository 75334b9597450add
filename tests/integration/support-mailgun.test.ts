/**
 * Mailgun's inbound webhook (issue 39) on the real stack: deliveries built as Mailgun's route
 * `forward()` to a URL ending in `mime` posts them (multipart/form-data: `body-mime`, `recipient`,
 * `sender`, `timestamp`, `token`, `signature`, and fields we ignore) reach POST
 * /support/inbound/mailgun/mime of a support service started here; the shared worker processes
 * them on the support-mail queue. A reply to a ticket's reply address lands in the ticket, quote
 * stripped; a new mail opens a ticket. Every refusal (unsigned, forged, stale, replayed, not for
 * the desk, without body-mime, too large) stores nothing; without a signing key the route is 503;
 * with MinIO or MongoDB down it is 503, nothing is kept, and Mailgun's retry is no replay.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { connectMongo } from '../../models/infra/mongo';
import { createInboundMailRepo, INBOUND_MAIL_COLLECTION, type InboundMailDoc } from '../../models/support/inbound-mail.repo';
import { mailgunSignature } from '../../models/support/mailgun';
import { MAILGUN_TOKEN_COLLECTION } from '../../models/support/mailgun-token.repo';
import { messageModel, ticketModel, type MessageDoc, type TicketDoc } from '../../models/support/support.model';
import { freePort } from '../../ops/dev-services';
import { objectKeys, readObject } from '../helpers/mail-receiver';
import { eventually, testConfig } from '../helpers/service';
import { agentToken, buildTicket, client, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(120_000);

const PATH = '/support/inbound/mailgun/mime';
const KEY = process.env.MAILGUN_WEBHOOK_SIGNING_KEY || `key-${randomBytes(16).toString('hex')}`;
let svc: SupportService;

beforeAll(async () => {
  svc = await startSupportService({ MAILGUN_WEBHOOK_SIGNING_KEY: KEY });
});
afterAll(async () => {
  await svc?.close();
});

const desk = () => svc.deps.config.support.mail;
const replyAddress = (token: string) => desk().address.replace('@', `+${token}@`);
const newSender = (what = 'leitora') => `${what}-${randomUUID().slice(0, 8)}@example.com`;
const ticketDoc = async (id: number) => (await ticketModel(svc.deps.mongo.conn).findById(id).lean<TicketDoc>())!;
const messagesOf = async (ticketId: number) => await messageModel(svc.deps.mongo.conn).find({ ticketId }).sort({ _id: 1 }).lean<MessageDoc[]>();
const recordsFrom = async (mailFrom: string) => await svc.deps.mongo.conn.db!.collection<InboundMailDoc>(INBOUND_MAIL_COLLECTION).find({ 'envelope.mailFrom': mailFrom }).toArray();

async function settled(mailFrom: string, timeoutMs = 40_000): Promise<InboundMailDoc> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [record] = await recordsFrom(mailFrom);
    if (record && (record.state === 'processed' || record.state === 'failed')) return record;
    if (Date.now() > deadline) throw new Error(`the mail from ${mailFrom} was not settled in ${timeoutMs} ms: ${JSON.stringify(record?.state)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A message as Mailgun's MX received it: its Received header on top (a public client address), CRLF throughout. */
function rawMail(from: string, to: string, subject: string, body: string[], extra: string[] = []): Buffer {
  return Buffer.from(
    [
      'Received: from mail-ed1-f54.google.com (mail-ed1-f54.google.com [198.51.100.7]) by mxa.mailgun.org with ESMTP id 6744a1d2; Tue, 24 Nov 2026 12:41:17 +0000',
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${randomUUID()}@mail.example.com>`,
      ...extra,
      'Content-Type: text/plain; charset=utf-8',
      '',
      ...body,
      '',
    ].join('\r\n'),
  );
}

/** Mailgun's signature fields: a fresh timestamp, a 50-character token, the HMAC of both. */
function signature(at = new Date(), token = randomBytes(25).toString('hex'), key = KEY) {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return { timestamp, token, signature: mailgunSignature(key, timestamp, token) };
}

type Fields = Record<string, string | Buffer | undefined>;

/** A delivery as Mailgun posts it: multipart/form-data, each field a text part (no file name), body-mime among them. */
function mailgunDelivery(mail: { from: string; to: string; raw?: Buffer }, over: Fields = {}): Fields {
  return {
    recipient: mail.to,
    sender: mail.from,
    from: mail.from,
    subject: 'whatever Mailgun parsed (ignored)',
    'body-mime': mail.raw,
    'X-Mailgun-Incoming': 'Yes',
    ...signature(),
    ...over,
  };
}

/**
 * The multipart/form-data body Mailgun posts: one text part per field (`Content-Disposition:
 * form-data; name="…"`, no Content-Type), the values' bytes as they are; `asFile` sends body-mime
 * as a file part instead (a file name and application/octet-stream).
 */
function multipart(fields: Fields, asFile = false): { body: Buffer; type: string } {
  const boundary = `------------------------${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const file = asFile && name === 'body-mime' ? '; filename="message.mime"\r\nContent-Type: application/octet-stream' : '';
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n`), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

function post(fields: Fields, service: SupportService = svc, asFile = false) {
  const { body, type } = multipart(fields, asFile);
  return request(service.callback).post(PATH).set('X-Forwarded-For', client(service).ip).set('Content-Type', type).send(body);
}

/** A ticket opened through the API, its acknowledgement mailed (so it has a reply token). */
async function ticketWithAck(email = newSender()) {
  const opened = await client(svc).post('/support', buildTicket({ email })).expect(201);
  const id = opened.body.data.id as number;
  await eventually(async () => (await ticketDoc(id)).confirmacao?.estado, 'sent', 30_000);
  const ticket = await ticketDoc(id);
  return { id, email, token: ticket.mailToken!, ackId: ticket.confirmacao!.messageId! };
}

describe('a signed delivery', () => {
  it("of a reply to the ticket's reply address lands in the ticket, the quote stripped, recorded via mailgun", async () => {
    const t = await ticketWithAck();
    const to = replyAddress(t.token);
    const raw = rawMail(`Leitora <${t.email}>`, to, `Re: [#${t.id}] Entrega`, ['Chegou hoje, obrigada!', '', `On Thu, Nov 26, 2026 at 10:02 AM Newsletter Support <${to}> wrote:`, '> Recebemos seu pedido.', '> A equipe'], [`In-Reply-To: ${t.ackId}`]);
    const res = await post(mailgunDelivery({ from: t.email, to, raw })).expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Mensagem recebida', data: { received: true, id: expect.any(String) } });
    const record = await settled(t.email);
    expect(record).toMatchObject({
      _id: res.body.data.id,
      via: 'mailgun',
      envelope: { mailFrom: t.email, rcptTo: [to] },
      remote: { address: '198.51.100.7', hostname: 'mail-ed1-f54.google.com', helo: 'mail-ed1-f54.google.com' },
      state: 'processed',
      result: { ticketId: t.id, threadedBy: 'token' },
    });
    expect(await readObject(svc.deps.storage, record.objectKey)).toEqual(raw);
    const mine = (await messagesOf(t.id)).filter((m) => m.canal === 'email');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ origem: 'usuario', remetente: t.email, conteudo: 'Chegou hoje, obrigada!', emailRaw: record.objectKey });
    const view = (await client(svc).get(`/support/${t.id}`).set('Authorization', `Bearer ${await agentToken('agent-mailgun')}`).expect(200)).body.data.mensagens;
    expect(view.at(-1)).toMatchObject({ canal: 'email', conteudo: 'Chegou hoje, obrigada!' });
  });

  it('of a new mail to the desk opens a ticket', async () => {
    const from = newSender('novo');
    const raw = rawMail(from, desk().address, 'Não recebo a edição', ['Desde segunda não chega nada.']);
    await post(mailgunDelivery({ from, to: desk().address, raw })).expect(200);
    const record = await settled(from);
    expect(record).toMatchObject({ via: 'mailgun', state: 'processed', result: { threadedBy: 'new', acknowledged: true } });
    const ticket = await ticketDoc(record.result!.ticketId as number);
    expect(ticket).toMatchObject({ main: 'E-mail', email: from, description: 'Não recebo a edição' });
    expect((await messagesOf(ticket._id)).map((m) => [m.canal, m.conteudo])).toEqual([['email', 'Desde segunda não chega nada.']]);
  });

  it('keeps the message byte for byte, 8-bit bytes included, whether posted multipart or urlencoded', async () => {
    for (const urlencoded of [false, true]) {
      const from = newSender('bytes');
      const raw = Buffer.concat([rawMail(from, desk().address, 'bytes', []).subarray(0, -2), Buffer.from([0x4f, 0x6c, 0xe1, 0x20, 0xe3, 0x0d, 0x0a, 0xff, 0x00, 0x0d, 0x0a])]);
      const fields = mailgunDelivery({ from, to: desk().address, raw });
      const req = urlencoded
        ? request(svc.callback)
            .post(PATH)
            .set('X-Forwarded-For', client(svc).ip)
            .type('form')
            .send(Object.entries(fields).map(([k, v]) => `${encodeURIComponent(k)}=${Buffer.isBuffer(v) ? [...v].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('') : encodeURIComponent(v!)}`).join('&'))
        : post(fields);
      const res = await req.expect(200);
      const [record] = await recordsFrom(from);
      expect(record!._id).toBe(res.body.data.id);
      expect(await readObject(svc.deps.storage, record!.objectKey)).toEqual(raw);
    }
  });

  it('is taken with body-mime sent as a file part too', async () => {
    const from = newSender('file');
    const raw = rawMail(from, desk().address, 'arquivo', ['corpo']);
    await post(mailgunDelivery({ from, to: desk().address, raw }), svc, true).expect(200);
    const [record] = await recordsFrom(from);
    expect(await readObject(svc.deps.storage, record!.objectKey)).toEqual(raw);
  });
});

describe('refused, with nothing stored', () => {
  /** Posts the delivery; expects `status` and the support envelope's code; nothing from `from` recorded, no object written. */
  async function refused(fields: Fields, from: string, status: number, code: string, service = svc) {
    const before = await objectKeys(svc.deps.storage);
    const res = await post(fields, service).expect(status);
    expect(res.body).toMatchObject({ success: false, error: code, message: expect.any(String) });
    expect(await recordsFrom(from)).toEqual([]);
    expect(await objectKeys(svc.deps.storage)).toEqual(before);
    return res.body as { message: string };
  }
  const mail = (what: string) => {
    const from = newSender(what);
    return { from, to: desk().address, raw: rawMail(from, desk().address, what, ['texto']) };
  };

  it('unsigned, or signed with another key, or with a signature of other fields: 401', async () => {
    const m = mail('unsigned');
    expect((await refused(mailgunDelivery(m, { signature: undefined }), m.from, 401, 'UNAUTHENTICATED')).message).toMatch(/Missing Mailgun signature/);
    expect((await refused(mailgunDelivery(m, { timestamp: undefined, token: undefined, signature: undefined }), m.from, 401, 'UNAUTHENTICATED')).message).toMatch(/Missing/);
    expect((await refused(mailgunDelivery(m, signature(new Date(), undefined, 'key-someone-else-entirely')), m.from, 401, 'UNAUTHENTICATED')).message).toMatch(/Invalid Mailgun signature/);
    const s = signature();
    await refused(mailgunDelivery(m, { ...s, token: randomBytes(25).toString('hex') }), m.from, 401, 'UNAUTHENTICATED');
    await refused(mailgunDelivery(m, { ...s, signature: 'f'.repeat(64) }), m.from, 401, 'UNAUTHENTICATED');
    // Unsigned comes first: nothing else of it is looked at.
    await refused(mailgunDelivery({ ...m, to: 'someone@evil.example' }, { signature: undefined, 'body-mime': undefined }), m.from, 401, 'UNAUTHENTICATED');
  });

  it('a timestamp more than 9 hours from now: 401', async () => {
    const m = mail('stale');
    expect((await refused(mailgunDelivery(m, signature(new Date(Date.now() - 10 * 3_600_000))), m.from, 401, 'UNAUTHENTICATED')).message).toMatch(/9 hours/);
    await refused(mailgunDelivery(m, signature(new Date(Date.now() + 10 * 3_600_000))), m.from, 401, 'UNAUTHENTICATED');
  });

  it('a delivery repeated (its token used before: Mailgun resending after a lost answer, or a replay): answered as the first, the message kept once', async () => {
    const m = mail('replay');
    const fields = mailgunDelivery(m);
    await post(fields).expect(200);
    const [first] = await recordsFrom(m.from);
    const before = await objectKeys(svc.deps.storage);
    const res = await post(fields).expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Mensagem já recebida', data: { received: true, id: first!._id } });
    // Another body under the same signed token is the same delivery: nothing of it is stored.
    await post({ ...fields, 'body-mime': rawMail(m.from, m.to, 'outra', ['outro texto']) }).expect(200);
    expect((await recordsFrom(m.from)).map((r) => r._id)).toEqual([first!._id]);
    expect(await objectKeys(svc.deps.storage)).toEqual(before);
    // The token is kept hashed, never as it was sent.
    expect(await svc.deps.mongo.conn.db!.collection(MAILGUN_TOKEN_COLLECTION).countDocuments({ _id: fields.token as never })).toBe(0);
  });

  it('a recipient outside the desk: 406 (Mailgun does not retry)', async () => {
    const m = mail('outside');
    const body = await refused(mailgunDelivery({ ...m, to: 'someone@evil.example' }), m.from, 406, 'MESSAGE_REFUSED');
    expect(body.message).toMatch(/Not for this desk/);
    await refused(mailgunDelivery({ ...m, to: `${desk().address}, other@${desk().address.split('@')[1]}` }), m.from, 406, 'MESSAGE_REFUSED');
    await refused(mailgunDelivery({ ...m, to: desk().address.replace('@', 'x@') }), m.from, 406, 'MESSAGE_REFUSED');
  });

  it('without body-mime or recipient: 400', async () => {
    const m = mail('nomime');
    expect((await refused(mailgunDelivery(m, { 'body-mime': undefined }), m.from, 400, 'VALIDATION_FAILED')).message).toMatch(/body-mime is missing/);
    await refused(mailgunDelivery(m, { recipient: undefined }), m.from, 400, 'VALIDATION_FAILED');
  });

  it('a body that is no form: 415; a malformed one: 400', async () => {
    await request(svc.callback).post(PATH).set('X-Forwarded-For', client(svc).ip).send({ 'body-mime': 'x', ...signature() }).expect(415);
    const res = await request(svc.callback)
      .post(PATH)
      .set('X-Forwarded-For', client(svc).ip)
      .set('Content-Type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="body-mime"\r\n\r\nFrom: a@b\r\n')
      .expect(400);
    expect(res.body).toMatchObject({ success: false, error: 'VALIDATION_FAILED' });
  });

  it('larger than the limit: 406, read to its end and dropped', async () => {
    const small = await startSupportService({ MAILGUN_WEBHOOK_SIGNING_KEY: KEY, SUPPORT_MAIL_INBOUND_MAX_BYTES: String(64 * 1024) });
    try {
      const m = mail('big');
      const raw = Buffer.concat([m.raw, Buffer.from(`${'x'.repeat(76)}\r\n`.repeat(1_000))]);
      const body = await refused(mailgunDelivery({ ...m, raw }), m.from, 406, 'MESSAGE_REFUSED', small);
      expect(body.message).toMatch(/exceeds the limit of 65536 bytes/);
      // Signed before the message rather than after it (a form's order is the sender's): the same.
      const { timestamp, token, signature: sig, ...rest } = mailgunDelivery({ ...m, raw });
      await refused({ timestamp, token, signature: sig, ...rest }, m.from, 406, 'MESSAGE_REFUSED', small);
      // Just within the limit it is taken.
      await post(mailgunDelivery({ ...m, raw: raw.subarray(0, 64 * 1024) }), small).expect(200);
    } finally {
      await small.close();
    }
  });
});

describe('configuration and faults', () => {
  it('without a signing key the route is 503 and says why', async () => {
    const unset = await startSupportService({ MAILGUN_WEBHOOK_SIGNING_KEY: '' });
    try {
      const from = newSender('nokey');
      const res = await post(mailgunDelivery({ from, to: desk().address, raw: rawMail(from, desk().address, 'x', ['y']) }), unset).expect(503);
      expect(res.body).toMatchObject({ success: false, error: 'DEPENDENCY_UNAVAILABLE', message: expect.stringMatching(/MAILGUN_WEBHOOK_SIGNING_KEY/) });
      expect(await recordsFrom(from)).toEqual([]);
    } finally {
      await unset.close();
    }
  });

  it('with MinIO unreachable: 503, nothing recorded, and the retry of the same delivery is taken', async () => {
    const down = await startSupportService({ MAILGUN_WEBHOOK_SIGNING_KEY: KEY, MINIO_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    try {
      const from = newSender('minio');
      const fields = mailgunDelivery({ from, to: desk().address, raw: rawMail(from, desk().address, 'minio', ['texto']) });
      const res = await post(fields, down).expect(503);
      expect(res.body).toMatchObject({ success: false, error: 'DEPENDENCY_UNAVAILABLE' });
      expect(await recordsFrom(from)).toEqual([]);
      // Mailgun retries (the same signed token): no replay, since nothing was kept.
      await post(fields).expect(200);
      expect(await recordsFrom(from)).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  it('with MongoDB unreachable for the record: 503, the object it wrote deleted, the token given back', async () => {
    const mongo = connectMongo(testConfig({ MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/` }));
    const accept = svc.deps.mailgun.accept;
    svc.deps.mailgun.accept = { ...accept, inbound: createInboundMailRepo(mongo.conn), dependencyTimeoutMs: 2_000 };
    try {
      const from = newSender('mongo');
      const fields = mailgunDelivery({ from, to: desk().address, raw: rawMail(from, desk().address, 'mongo', ['texto']) });
      const before = await objectKeys(svc.deps.storage);
      await post(fields).expect(503);
      expect(await objectKeys(svc.deps.storage)).toEqual(before);
      svc.deps.mailgun.accept = accept;
      expect(await recordsFrom(from)).toEqual([]);
      await post(fields).expect(200);
      expect(await recordsFrom(from)).toHaveLength(1);
    } finally {
      svc.deps.mailgun.accept = accept;
      await mongo.close();
    }
  });
});
