/**
 * The receiver of requesters' mail (issue 39) on the test stack's MinIO and MongoDB, spoken to by
 * nodemailer (SMTP, and LMTP with `lmtp: true`) and line by line where nodemailer would not say
 * it. Nothing is acknowledged before it is stored: after a 250 the object is in MinIO, byte for
 * byte, and its record in MongoDB; a refusal (550, 552) or a retry-later (451) leaves neither.
 */
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { testConfig } from '../helpers/service';
import { connectMongo } from '../../models/infra/mongo';
import { createStorage } from '../../models/infra/storage';
import { createInboundMailRepo } from '../../models/support/inbound-mail.repo';
import { freePort } from '../../ops/dev-services';
import {
  Dialogue,
  incompleteUploads,
  mailStack,
  messageOfSize,
  objectKeys,
  readObject,
  recordsFrom,
  startReceiverProcess,
  startTestReceiver,
  type MailStack,
  type ReceiverProcess,
  type TestReceiver,
} from '../helpers/mail-receiver';

let stack: MailStack;
let receiver: TestReceiver;
const desk = () => stack.config.support.mail.address;
const deskTagged = (tag: string) => desk().replace('@', `+${tag}@`);
/** A sender of its own per test: its records are found by it. */
const newSender = () => `requester-${randomUUID()}@example.org`;

beforeAll(async () => {
  stack = await mailStack();
  receiver = await startTestReceiver(stack);
});
/** Receiver processes this file started: whatever a failed test left running is killed. */
const processes: ReceiverProcess[] = [];
const receiverProcess = async (env: NodeJS.ProcessEnv = {}) => {
  const proc = await startReceiverProcess(env);
  processes.push(proc);
  return proc;
};
afterAll(async () => {
  for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await receiver?.close();
  await stack?.close();
});

const smtp = (port: number, lmtp = false) => nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, lmtp });

/** A plain message, CRLF throughout, with what SMTP must carry unchanged: lines opening with a dot, 8-bit text. */
function plainMessage(from: string, to: string, body = 'Hello,\r\n.a line that opens with a dot\r\n..and two\r\n.\r\nOlá, não recebi a edição de hoje — ✉️\r\n'): Buffer {
  return Buffer.from(`From: ${from}\r\nTo: ${to}\r\nSubject: Where is my newsletter?\r\nMessage-ID: <${randomUUID()}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${body}`, 'utf8');
}

const queuedId = (response: string) => /queued as ([0-9a-f-]{36})/.exec(response)?.[1];

/** Sends through nodemailer; resolves with its error (responseCode, response) when refused. */
async function send(port: number, envelope: { from: string; to: string[] }, raw: Buffer, lmtp = false) {
  const transport = smtp(port, lmtp);
  try {
    return { info: await transport.sendMail({ envelope, raw }), err: undefined };
  } catch (err) {
    return { info: undefined, err: err as Error & { responseCode?: number; response?: string } };
  } finally {
    transport.close();
  }
}

/** EHLO (LHLO), MAIL FROM and the recipients, each expected to be accepted. */
async function openTransaction(port: number, from: string, to: string[], lmtp = false, mailParams = ''): Promise<Dialogue> {
  const { dialogue } = await Dialogue.open(port);
  expect((await dialogue.command(`${lmtp ? 'LHLO' : 'EHLO'} client.example.org`)).code).toBe(250);
  expect(await dialogue.command(`MAIL FROM:<${from}>${mailParams}`)).toMatchObject({ code: 250 });
  for (const rcpt of to) expect(await dialogue.command(`RCPT TO:<${rcpt}>`)).toMatchObject({ code: 250 });
  return dialogue;
}

describe('what it refuses (attacks)', () => {
  it('relays for no one: a recipient outside the desk is 550 5.1.1, and nothing is stored', async () => {
    const from = newSender();
    const before = await objectKeys(stack.storage);
    const { dialogue } = await Dialogue.open(receiver.smtpPort);
    await dialogue.command('EHLO relay-tester.example.org');
    expect((await dialogue.command(`MAIL FROM:<${from}>`)).code).toBe(250);
    const [local, domain] = desk().split('@');
    for (const outsider of ['victim@example.com', `${local}@example.com`, `${local}@${domain}.example.com`, `other@${domain}`, `${local}x@${domain}`, `${local}.x@${domain}`, `x${local}@${domain}`, `${local}%example.com@${domain}`]) {
      const reply = await dialogue.command(`RCPT TO:<${outsider}>`);
      expect({ outsider, code: reply.code, text: reply.text }).toEqual({ outsider, code: 550, text: expect.stringMatching(/^5\.1\.1 /) });
    }
    // With no recipient accepted there is no DATA.
    expect((await dialogue.command('DATA')).code).toBe(503);
    // The desk's own and its +tag addresses, in any case, are the only ones taken.
    expect((await dialogue.command(`RCPT TO:<${local!.toUpperCase()}+Tok3n@${domain!.toUpperCase()}>`)).code).toBe(250);
    dialogue.close();

    const { err } = await send(receiver.smtpPort, { from, to: ['someone@example.com'] }, plainMessage(from, 'someone@example.com'));
    expect(err?.responseCode).toBe(550);
    expect(await recordsFrom(stack, from)).toEqual([]);
    expect(await objectKeys(stack.storage)).toEqual(before);
  });

  it('announces SIZE and no AUTH or STARTTLS; refuses both', async () => {
    const { dialogue, greeting } = await Dialogue.open(receiver.smtpPort);
    expect(greeting.code).toBe(220);
    const ehlo = await dialogue.command('EHLO client.example.org');
    expect(ehlo.lines).toContain(`SIZE ${stack.config.support.mail.inbound.maxBytes}`);
    expect(ehlo.lines).toContain('ENHANCEDSTATUSCODES');
    expect(ehlo.lines.filter((l) => /^(AUTH|STARTTLS)/.test(l))).toEqual([]);
    expect((await dialogue.command(`AUTH PLAIN ${Buffer.from('\0user\0password').toString('base64')}`)).code).toBeGreaterThanOrEqual(500);
    expect((await dialogue.command('STARTTLS')).code).toBeGreaterThanOrEqual(500);
    dialogue.close();
  });

  it('refuses a declared SIZE over the limit at MAIL FROM: 552 5.3.4', async () => {
    const { dialogue } = await Dialogue.open(receiver.smtpPort);
    await dialogue.command('EHLO client.example.org');
    const reply = await dialogue.command(`MAIL FROM:<${newSender()}> SIZE=${stack.config.support.mail.inbound.maxBytes + 1}`);
    expect(reply).toMatchObject({ code: 552, text: expect.stringMatching(/^5\.3\.4 /) });
    // Declared within the limit, it goes on.
    expect((await dialogue.command(`MAIL FROM:<${newSender()}> SIZE=1000`)).code).toBe(250);
    dialogue.close();
  });

  it('refuses an undeclared message larger than the limit after DATA: 552 5.3.4, no object, no record', async () => {
    const small = await startTestReceiver(stack, {}, { maxBytes: 100_000 });
    try {
      const from = newSender();
      const before = await objectKeys(stack.storage);
      const { err } = await send(small.smtpPort, { from, to: [deskTagged('big')] }, messageOfSize(150_000));
      expect(err?.responseCode).toBe(552);
      expect(err?.response).toMatch(/^552 5\.3\.4 /);
      // The connection is still good for a message within the limit.
      const dialogue = await openTransaction(small.smtpPort, from, [desk()]);
      expect((await dialogue.command('DATA')).code).toBe(354);
      const [oversized] = await dialogue.data(messageOfSize(100_001));
      expect(oversized).toMatchObject({ code: 552, text: expect.stringMatching(/^5\.3\.4 /) });
      dialogue.close();
      expect(await recordsFrom(stack, from)).toEqual([]);
      expect(await objectKeys(stack.storage)).toEqual(before);
    } finally {
      await small.close();
    }
  });

  it('past a part (a multipart upload under way), the upload is aborted: no object, no upload left, no record', async () => {
    const maxBytes = 6 * 1024 * 1024;
    const small = await startTestReceiver(stack, {}, { maxBytes });
    try {
      const from = newSender();
      const before = await objectKeys(stack.storage);
      const dialogue = await openTransaction(small.smtpPort, from, [desk()]);
      expect((await dialogue.command('DATA')).code).toBe(354);
      const [reply] = await dialogue.data(messageOfSize(maxBytes + 512 * 1024));
      expect(reply).toMatchObject({ code: 552, text: expect.stringMatching(/^5\.3\.4 /) });
      dialogue.close();
      expect(await recordsFrom(stack, from)).toEqual([]);
      expect(await objectKeys(stack.storage)).toEqual(before);
      expect(await incompleteUploads(stack.storage)).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('takes at most 50 recipients: the 51st is 452 4.5.3', async () => {
    const dialogue = await openTransaction(receiver.smtpPort, newSender(), Array.from({ length: 50 }, (_, i) => deskTagged(`r${i}`)));
    expect(await dialogue.command(`RCPT TO:<${deskTagged('r50')}>`)).toMatchObject({ code: 452, text: expect.stringMatching(/^4\.5\.3 /) });
    dialogue.close();
  });

  it('with MinIO unreachable, asks the sender to retry (451 4.3.0) and records nothing', async () => {
    const closed = await freePort();
    const storage = createStorage(testConfig({ MINIO_ENDPOINT: `http://127.0.0.1:${closed}` }));
    const down = await startTestReceiver(stack, { storage });
    try {
      const from = newSender();
      const { err } = await send(down.smtpPort, { from, to: [deskTagged('minio')] }, plainMessage(from, desk()));
      expect(err?.responseCode).toBe(451);
      expect(err?.response).toMatch(/^451 4\.3\.0 /);
      expect(await recordsFrom(stack, from)).toEqual([]);
    } finally {
      await down.close();
    }
  });

  it('with MongoDB unreachable, asks the sender to retry (451 4.3.0) and deletes the object it wrote', async () => {
    const closed = await freePort();
    const mongo = connectMongo(testConfig({ MONGODB_URI: `mongodb://127.0.0.1:${closed}/` }));
    const down = await startTestReceiver(stack, { inbound: createInboundMailRepo(mongo.conn) });
    try {
      const from = newSender();
      const before = await objectKeys(stack.storage);
      const { err } = await send(down.smtpPort, { from, to: [desk()] }, plainMessage(from, desk()));
      expect(err?.responseCode).toBe(451);
      expect(err?.response).toMatch(/^451 4\.3\.0 /);
      expect(await objectKeys(stack.storage)).toEqual(before);
    } finally {
      await down.close();
      await mongo.close();
    }
  });

  it('a client that goes away in the middle of DATA leaves nothing behind', async () => {
    const from = newSender();
    const before = await objectKeys(stack.storage);
    const dialogue = await openTransaction(receiver.smtpPort, from, [desk()]);
    expect((await dialogue.command('DATA')).code).toBe(354);
    dialogue.write(messageOfSize(200_000).subarray(0, 100_000));
    await new Promise((r) => setTimeout(r, 200));
    dialogue.close();
    await new Promise((r) => setTimeout(r, 500));
    expect(await recordsFrom(stack, from)).toEqual([]);
    expect(await objectKeys(stack.storage)).toEqual(before);
  });
});

describe('what it accepts', () => {
  it('stores a message to support+token@ byte for byte and records it before the 250', async () => {
    const from = newSender();
    const to = deskTagged('t0k3n');
    const raw = plainMessage(from, to);
    const { info, err } = await send(receiver.smtpPort, { from, to: [to] }, raw);
    expect(err).toBeUndefined();
    expect(info!.response).toMatch(/^250 2\.6\.0 OK: queued as /);
    const id = queuedId(info!.response)!;
    // Read at once: the 250 came after both writes.
    const record = await stack.repo.get(id);
    expect(record).toMatchObject({
      _id: id,
      objectKey: expect.stringMatching(new RegExp(`^inbound-mail/\\d{4}/\\d{2}/\\d{2}/${id}\\.eml$`)),
      size: raw.length,
      envelope: { mailFrom: from, rcptTo: [to] },
      remote: { address: '127.0.0.1', helo: expect.any(String) },
      via: 'smtp',
      state: 'stored',
      handedOverAt: null,
    });
    const day = record!.receivedAt.toISOString().slice(0, 10).replaceAll('-', '/');
    expect(record!.objectKey).toBe(`inbound-mail/${day}/${id}.eml`);
    expect((await readObject(stack.storage, record!.objectKey)).equals(raw)).toBe(true);
    // Nothing of the message in the log: ids, sizes and counts only.
    expect(JSON.stringify(receiver.logger.lines)).not.toContain(from);
  });

  it('stores a message larger than a part (multipart) byte for byte', async () => {
    const from = newSender();
    const raw = messageOfSize(11 * 1024 * 1024 + 123);
    const { info, err } = await send(receiver.smtpPort, { from, to: [desk()] }, raw);
    expect(err).toBeUndefined();
    const record = await stack.repo.get(queuedId(info!.response)!);
    expect(record!.size).toBe(raw.length);
    expect((await readObject(stack.storage, record!.objectKey)).equals(raw)).toBe(true);
  });

  it('delivers by LMTP: one reply per recipient, one message stored', async () => {
    const from = newSender();
    const to = [deskTagged('a'), deskTagged('b')];
    const raw = plainMessage(from, to.join(', '));
    const { info, err } = await send(receiver.lmtpPort, { from, to: [...to, 'outsider@example.com'] }, raw, true);
    expect(err).toBeUndefined();
    expect(info!.accepted).toEqual(to);
    expect(info!.rejected).toEqual(['outsider@example.com']);
    const [record] = await recordsFrom(stack, from);
    expect(record).toMatchObject({ via: 'lmtp', envelope: { mailFrom: from, rcptTo: to }, size: raw.length, state: 'stored' });
    expect((await readObject(stack.storage, record!.objectKey)).equals(raw)).toBe(true);

    // Line by line: LHLO, and a 250 for each recipient, naming the one message.
    const second = newSender();
    const dialogue = await openTransaction(receiver.lmtpPort, second, to, true);
    expect((await dialogue.command('DATA')).code).toBe(354);
    const replies = await dialogue.data(plainMessage(second, desk()), 2);
    expect(replies.map((r) => r.code)).toEqual([250, 250]);
    expect(queuedId(replies[0]!.text)).toBe(queuedId(replies[1]!.text));
    expect((await recordsFrom(stack, second)).map((r) => r._id)).toEqual([queuedId(replies[0]!.text)]);
    // HELO/EHLO are not LMTP.
    expect((await dialogue.command('EHLO client.example.org')).code).toBe(500);
    dialogue.close();
  });

  it('a hand-over that throws loses nothing: 250, the record stays stored (for the relay)', async () => {
    const failing = await startTestReceiver(stack, {
      handOver: async () => {
        throw new Error('Temporal is unavailable');
      },
    });
    try {
      const from = newSender();
      const { info, err } = await send(failing.smtpPort, { from, to: [desk()] }, plainMessage(from, desk()));
      expect(err).toBeUndefined();
      const id = queuedId(info!.response)!;
      expect(await stack.repo.get(id)).toMatchObject({ state: 'stored', handedOverAt: null });
      expect((await stack.repo.pendingHandOver(new Date(Date.now() + 1_000), 10_000)).map((r) => r._id)).toContain(id);
      expect(failing.logger.lines).toContainEqual(expect.objectContaining({ level: 'warn', obj: expect.objectContaining({ id }) }));
    } finally {
      await failing.close();
    }
  });

  it('a hand-over that succeeds marks the record, and the relay no longer sees it', async () => {
    const handing = await startTestReceiver(stack, { handOver: async (id) => void (await stack.repo.markHandedOver(id, new Date())) });
    try {
      const from = newSender();
      const { info } = await send(handing.smtpPort, { from, to: [desk()] }, plainMessage(from, desk()));
      const id = queuedId(info!.response)!;
      expect(await stack.repo.get(id)).toMatchObject({ state: 'handed-over', handedOverAt: expect.any(Date) });
      expect((await stack.repo.pendingHandOver(new Date(Date.now() + 1_000), 10_000)).map((r) => r._id)).not.toContain(id);
    } finally {
      await handing.close();
    }
  });
});

describe('the receiver process (api/mail/server.ts)', () => {
  it('killed between accepting a message and its processing: once restarted, the message is processed from MinIO into a ticket', async () => {
    // A receiver that cannot reach Temporal: its hand-over fails, the 250 is still given (the
    // message is stored), and the process dies before anything starts its processing.
    const cut = await receiverProcess({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    const from = newSender();
    const raw = plainMessage(from, desk(), 'Minha edição de hoje não chegou.\r\n');
    const { info, err } = await send(cut.smtpPort, { from, to: [desk()] }, raw);
    expect(err).toBeUndefined();
    const id = queuedId(info!.response)!;
    cut.child.kill('SIGKILL');
    await cut.exited;
    expect(await stack.repo.get(id)).toMatchObject({ state: 'stored', via: 'smtp', envelope: { mailFrom: from } });
    expect((await readObject(stack.storage, (await stack.repo.get(id))!.objectKey)).equals(raw)).toBe(true);

    // Restarted (reaching Temporal): it hands over what was left stored, and the shared worker processes it.
    const restarted = await receiverProcess();
    let record = await stack.repo.get(id);
    for (const deadline = Date.now() + 30_000; record?.state !== 'processed' && record?.state !== 'failed' && Date.now() < deadline; record = await stack.repo.get(id)) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(record).toMatchObject({ state: 'processed', result: { kind: 'message', threadedBy: 'new' } });
    expect(restarted.logs()).toContain('mail left stored by an earlier run handed over');
    const ticketId = record!.result!.ticketId as number;
    const messages = await stack.mongo.conn.db!.collection('ticket_messages').find({ ticketId }).toArray();
    expect(messages).toEqual([expect.objectContaining({ canal: 'email', remetente: from, conteudo: 'Minha edição de hoje não chegou.', emailRaw: record!.objectKey })]);
  });

  it('on SIGTERM, lets a message in flight finish (250), refuses new work, and exits 0', async () => {
    const proc = await receiverProcess();
    const from = newSender();
    const raw = messageOfSize(300_000);
    const dialogue = await openTransaction(proc.smtpPort, from, [desk()]);
    expect((await dialogue.command('DATA')).code).toBe(354);
    dialogue.write(Dialogue.dotStuffed(raw.subarray(0, 150_000)));
    await new Promise((r) => setTimeout(r, 200));
    proc.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    // No new connections once it stops.
    await expect(Dialogue.open(proc.smtpPort)).rejects.toThrow();
    dialogue.write(Dialogue.dotStuffed(raw.subarray(150_000)));
    dialogue.write('.\r\n');
    const [reply] = await dialogue.replies(1);
    expect(reply).toMatchObject({ code: 250 });
    const id = queuedId(reply!.text)!;
    expect((await readObject(stack.storage, (await stack.repo.get(id))!.objectKey)).equals(raw)).toBe(true);
    // The next command of that connection is told the server is shutting down.
    expect((await dialogue.command('MAIL FROM:<x@example.org>')).code).toBe(421);
    expect(await proc.exited).toBe(0);
    expect(proc.logs()).not.toContain(from);
  });
});
