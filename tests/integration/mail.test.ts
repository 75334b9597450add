/**
 * The product's mailer against the Mailpit `npm test` runs (SMTP_URL): a mail arrives with its
 * subject, sender, recipient, text and HTML, several at once over the pool; a mail server out of
 * reach, or one that never greets, is DEPENDENCY_UNAVAILABLE naming mail, without the message in
 * the error.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { loadConfig, parseConfig } from '../../models/config';
import { AppError } from '../../models/errors';
import { createMailer, type Mailer } from '../../models/infra/mail';
import { deleteAllMessages, latestCode, messagesTo, messageText, readMessage, waitForMessagesTo } from '../helpers/mailpit';

const config = loadConfig();
let mailer: Mailer;
const newAddress = () => `reader-${randomUUID()}@example.com`;

beforeAll(() => {
  mailer = createMailer(config);
});
afterAll(() => mailer.close());

/** A configuration whose mail goes to `url`. */
const mailTo = (url: string) => parseConfig({ ...process.env, SMTP_URL: url });

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

it('runs against the Mailpit npm test started', () => {
  expect(config.mail.smtpUrl).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
  expect(config.devServices.mailpitUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

it('delivers a mail with its subject, sender, recipient, text and HTML', async () => {
  const to = newAddress();
  const text = 'Seu código de acesso: 482913\nEle vale por 10 minutos.';
  await mailer.send({ to, subject: 'Seu código de acesso', text, html: '<p>Seu código de acesso: <b>482913</b></p>' });

  const [mail, ...others] = await waitForMessagesTo(to);
  expect(others).toHaveLength(0);
  expect(mail).toMatchObject({ subject: 'Seu código de acesso', to: [to], from: 'no-reply@localhost' });
  expect(mail!.text.trim()).toBe(text);
  expect(mail!.html).toContain('<b>482913</b>');
  expect((await messageText(mail!.id)).trim()).toBe(text);
  expect(await latestCode(to)).toBe('482913');
});

it('sends several mails at once over its pooled connections', async () => {
  const to = newAddress();
  await Promise.all(Array.from({ length: 8 }, (_, i) => mailer.send({ to, subject: `Mail ${i}`, text: `Body ${i}` })));
  const received = await waitForMessagesTo(to, { count: 8 });
  expect(received.map((m) => m.subject).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `Mail ${i}`).sort());
});

it('gives DEPENDENCY_UNAVAILABLE naming mail when the SMTP server cannot be reached', async () => {
  const unreachable = createMailer(mailTo(`smtp://127.0.0.1:${await closedPort()}`));
  try {
    const err = (await unreachable.send({ to: newAddress(), subject: 'Code', text: 'Your code: 771204' }).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', details: { dependency: 'mail' } });
    expect((err.cause as Error).message).toMatch(/ECONNREFUSED/);
    // Mail carries sign-in codes: the error never holds the message.
    expect(JSON.stringify({ message: err.message, cause: (err.cause as Error).message, details: err.details })).not.toContain('771204');
  } finally {
    unreachable.close();
  }
});

it('gives DEPENDENCY_UNAVAILABLE when the server accepts the connection but never greets', async () => {
  const silent = net.createServer(() => undefined);
  const sockets = new Set<net.Socket>();
  silent.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as net.AddressInfo;
  const mute = createMailer(mailTo(`smtp://127.0.0.1:${port}`), { greetingMs: 300 });
  try {
    const started = Date.now();
    await expect(mute.send({ to: newAddress(), subject: 'Code', text: 'Your code: 123456' })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      details: { dependency: 'mail' },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    mute.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});

it('reads and deletes through the helper', async () => {
  const to = newAddress();
  await mailer.send({ to, subject: 'To be deleted', text: 'gone soon' });
  await waitForMessagesTo(to);
  const [caught] = await messagesTo(to);
  await deleteAllMessages();
  expect(await messagesTo(to)).toEqual([]);
  // Gone (not only unlisted). Other mail may arrive meanwhile (the shared worker mails tickets' requesters), so no global count.
  await expect(readMessage(caught!.id)).rejects.toThrow();
});
