/**
 * Bounces and complaints about readers' mail (issue 40), on the real stack: readers' alerts and
 * digests go out with the inbound mailbox as their return path, so a delivery-status notification
 * or a feedback report (ARF) comes back by SMTP to the receiver, is stored, and the shared worker's
 * inbound processing hands it to the reader-mail feedback: a hard bounce suppresses the address, a
 * complaint suppresses it and switches the reader's e-mail alerts and digest off, and the next
 * alert's audience no longer reaches that address by e-mail. A report naming no mail of ours, or a
 * bounce that is only a delay, changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { createAlertClaimRepo } from '../../models/news/alert-claim.repo';
import { type createArticleQueries } from '../../models/news/article-query';
import { createPreferencesRepo } from '../../models/news/preferences.repo';
import { readerMessageId } from '../../models/news/reader-mail-ids';
import { createPushSubscriptionRepo } from '../../models/news/push-subscription.repo';
import { createReaderMailRepo } from '../../models/news/reader-mail.repo';
import { INBOUND_MAIL_COLLECTION, type InboundMailDoc } from '../../models/support/inbound-mail.repo';
import { ticketModel } from '../../models/support/support.model';
import { createUserRepo } from '../../models/users/user.repo';
import { createWhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { alertAudience } from '../../operations/news/alerts';
import { handOverInboundMail } from '../../operations/support/inbound-process';
import { createInboundMailRepo } from '../../models/support/inbound-mail.repo';
import { mailStack, startTestReceiver, type MailStack, type TestReceiver } from '../helpers/mail-receiver';
import { startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(120_000);

let svc: SupportService;
let stack: MailStack;
let receiver: TestReceiver;

beforeAll(async () => {
  svc = await startSupportService();
  stack = await mailStack();
  const handOverDeps = () => ({ temporal: svc.deps.temporal, taskQueuePrefix: svc.deps.config.temporal.taskQueuePrefix, inbound: createInboundMailRepo(svc.deps.mongo.conn), now: () => new Date() });
  receiver = await startTestReceiver(stack, { handOver: async (id) => void (await handOverInboundMail(handOverDeps(), id)) });
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  await svc?.close();
});

const conn = () => svc.deps.mongo.conn;
const returnPath = () => svc.deps.config.mail.readerReturnPath;
const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/mail', name), 'latin1');

async function send(from: string, raw: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from, to: [returnPath()] }, raw: Buffer.from(raw.replace(/\r?\n/g, '\r\n')) });
  } finally {
    transport.close();
  }
}

async function settled(mailFrom: string, timeoutMs = 40_000): Promise<InboundMailDoc> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await conn().db!.collection<InboundMailDoc>(INBOUND_MAIL_COLLECTION).findOne({ 'envelope.mailFrom': mailFrom });
    if (record && (record.state === 'processed' || record.state === 'failed')) return record;
    if (Date.now() > deadline) throw new Error(`the mail from ${mailFrom} was not settled in ${timeoutMs} ms: ${JSON.stringify(record?.state)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A reader who follows ENE with e-mail alerts and the digest on, and the alert mail we sent them (as sendMailAlerts records it). */
async function readerWithMail() {
  const userId = `reader-${randomUUID().slice(0, 8)}`;
  const email = `${userId}@example.com`;
  await createUserRepo(conn()).ensure(userId, email);
  await createPreferencesRepo(conn()).update(userId, { $set: { sectors: ['ENE'], 'notificationSettings.digest': true } });
  const key = `alert:${randomUUID()}:${userId}`;
  const mail = createReaderMailRepo(conn());
  const record = await mail.begin({ _id: key, kind: 'alert', userId, to: email, messageId: readerMessageId(svc.deps.config.web.secret, key, 'localhost') }, new Date());
  await mail.end(key, 'sent', '250 ok', new Date());
  return { userId, email, key, messageId: record!.messageId };
}

/** Whether the next breaking ENE article's audience reaches the reader by e-mail. */
async function mailedNextAlert(userId: string): Promise<boolean> {
  const articleId = `art-${randomUUID()}`;
  const audience = await alertAudience(
    {
      articles: { alertTarget: async () => ({ _id: articleId, title: 'Breaking', isBreaking: true, primarySector: 'ENE', primaryTopic: 'CONTRACT', entityIds: [], tickers: [], terms: [], baseScore: 90 }) } as unknown as Pick<ReturnType<typeof createArticleQueries>, 'alertTarget'>,
      preferences: createPreferencesRepo(conn()),
      whatsapp: createWhatsAppRepo(conn()),
      users: createUserRepo(conn()),
      claims: createAlertClaimRepo(conn()),
      readerMail: createReaderMailRepo(conn()),
      pushSubscriptions: createPushSubscriptionRepo(conn()),
      whatsappEnabled: false,
      pushEnabled: false,
      now: () => new Date(),
    },
    // The page that starts just before this reader (ids sort as strings; the shared database holds other readers).
    { articleId, after: userId.slice(0, -1), limit: 500 },
  );
  return audience.email.some((r) => r.userId === userId);
}

it('a hard bounce of a reader alert suppresses the address: the next alert does not mail it', async () => {
  const r = await readerWithMail();
  expect(await mailedNextAlert(r.userId)).toBe(true);
  const dsn = fixture('dsn-bounce.eml').replaceAll('<t91.m0.qjzg3glajuuf4grbesmc@localhost>', r.messageId).replaceAll('nobody.here@example.com', r.email).replaceAll('support@localhost', returnPath());
  const bouncer = `mailer-daemon-${randomUUID().slice(0, 8)}@example.com`;
  await send(bouncer, dsn);
  expect(await settled(bouncer)).toMatchObject({ state: 'processed', result: { kind: 'bounce', bounced: null, bouncing: [r.email], readerMail: r.key } });
  expect(await createReaderMailRepo(conn()).suppression(r.email)).toMatchObject({ reason: 'bounce', mailId: r.key });
  expect((await createReaderMailRepo(conn()).get(r.key))?.state).toBe('bounced');
  expect(await mailedNextAlert(r.userId)).toBe(false);
});

it('a delay (4.x.x) changes nothing', async () => {
  const r = await readerWithMail();
  const dsn = fixture('dsn-bounce.eml')
    .replaceAll('<t91.m0.qjzg3glajuuf4grbesmc@localhost>', r.messageId)
    .replaceAll('nobody.here@example.com', r.email)
    .replace('Action: failed', 'Action: delayed')
    .replace('Status: 5.1.1', 'Status: 4.2.2');
  const bouncer = `mailer-daemon-${randomUUID().slice(0, 8)}@example.com`;
  await send(bouncer, dsn);
  expect(await settled(bouncer)).toMatchObject({ state: 'processed', result: { kind: 'bounce', bouncing: [], readerMail: r.key } });
  expect(await createReaderMailRepo(conn()).suppression(r.email)).toBeNull();
  expect(await mailedNextAlert(r.userId)).toBe(true);
});

it("a complaint (ARF) suppresses the address and switches the reader's e-mail alerts and digest off", async () => {
  const r = await readerWithMail();
  const arf = fixture('arf-complaint.eml').replaceAll('<r.alert-fixture@localhost>', r.messageId).replaceAll('reader.complains@example.com', r.email);
  const loop = `fbl-${randomUUID().slice(0, 8)}@mailbox.example`;
  await send(loop, arf);
  expect(await settled(loop)).toMatchObject({ state: 'processed', result: { kind: 'complaint', readerMail: r.key, suppressed: [r.email], ignored: null } });
  expect(await createReaderMailRepo(conn()).suppression(r.email)).toMatchObject({ reason: 'complaint' });
  expect((await createPreferencesRepo(conn()).get(r.userId)).notificationSettings).toMatchObject({ email: false, digest: false });
  expect(await mailedNextAlert(r.userId)).toBe(false);
  // A later bounce does not turn the complaint into a mere bounce.
  await createReaderMailRepo(conn()).suppress(r.email, 'bounce', '5.1.1', null, new Date());
  expect((await createReaderMailRepo(conn()).suppression(r.email))?.reason).toBe('complaint');
});

it('a report naming no mail of ours changes nothing and opens no ticket', async () => {
  const r = await readerWithMail();
  const arf = fixture('arf-complaint.eml').replaceAll('reader.complains@example.com', r.email); // the fixture's own Message-ID: none of ours
  const loop = `fbl-${randomUUID().slice(0, 8)}@mailbox.example`;
  await send(loop, arf);
  expect(await settled(loop)).toMatchObject({ state: 'processed', result: { kind: 'complaint', readerMail: null, suppressed: [], ignored: 'a feedback report about no reader mail of ours' } });
  expect(await createReaderMailRepo(conn()).suppression(r.email)).toBeNull();
  expect((await createPreferencesRepo(conn()).get(r.userId)).notificationSettings).toMatchObject({ email: true, digest: true });
  expect(await ticketModel(conn()).countDocuments({ email: 'feedbackloop@mailbox.example' })).toBe(0);
});
