/**
 * The webhook sender against the receiver double, in this process on 127.0.0.1 (allow-listed, as
 * development doubles are): a signed delivery arrives and the spec's library verifies it; 410,
 * 429 with Retry-After and a redirect come back as they are (the redirect not followed); a slow
 * receiver times out; a huge answer is cut at 4 KiB; and hosts that resolve to loopback, private
 * or link-local addresses are refused before anything is sent, with a fake resolver, so no real
 * DNS is asked. And the pure check of an endpoint's URL at registration (webhookUrlRefusal).
 */
import type { LookupAddress } from 'node:dns';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { newWebhookMessageId, newWebhookSecret, webhookHeaders } from '../../models/events/webhook-signing';
import { outcomeOf } from '../../models/events/webhook.rules';
import { agentKey, createWebhookSender, RESPONSE_BODY_LIMIT, webhookUrlRefusal, type WebhookSenderOptions } from '../../models/infra/webhook-sender';
import { startWebhookReceiverDouble, webhookReceiverControl, type WebhookReceiverDouble } from '../doubles/webhook-receiver-double';

const UA = 'NewsletterPlatform-Webhooks/test';
let double: WebhookReceiverDouble;
let control: ReturnType<typeof webhookReceiverControl>;

beforeAll(async () => {
  double = await startWebhookReceiverDouble(0);
  control = webhookReceiverControl(double.url);
});
afterAll(async () => {
  await double.close();
});
beforeEach(async () => {
  await control.reset();
});

const sender = (over: Partial<WebhookSenderOptions> = {}) => createWebhookSender({ userAgent: UA, allowHosts: ['127.0.0.1'], timeoutMs: 5000, ...over });

/** A signed message for an endpoint's secret, as the platform would send it. */
function message(secret: string, msgId = newWebhookMessageId()) {
  const body = JSON.stringify({ type: 'article.published', timestamp: new Date().toISOString(), data: { id: 'a1', title: 'Vale aprova recompra' } });
  return { body, headers: webhookHeaders({ msgId, timestamp: new Date(), body, secrets: [secret], userAgent: UA }) };
}

/** A resolver that knows only the names given. */
function fakeLookup(names: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

describe('createWebhookSender', () => {
  it('delivers a signed message, which the receiver verifies with the standardwebhooks library', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('ok', { secret });
    const { body, headers } = message(secret);
    const attempt = await sender().send(double.endpointUrl('ok'), headers, body);
    expect(attempt).toMatchObject({ status: 204, responseBody: '' });
    expect(attempt.error).toBeUndefined();
    expect(outcomeOf(attempt.status)).toBe('delivered');
    const { deliveries, duplicates } = await control.deliveries('ok');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ verified: true, body, webhookId: headers['webhook-id'], attempt: 1 });
    expect(deliveries[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': UA });
    expect(duplicates).toBe(0);
  });

  it('keeps a 200 answer’s body, and the receiver counts a retry of the same id as a duplicate', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('again', { secret, successStatus: 200 });
    const msgId = newWebhookMessageId();
    const first = message(secret, msgId);
    expect(await sender().send(double.endpointUrl('again'), first.headers, first.body)).toMatchObject({ status: 200, responseBody: '{"ok":true}' });
    const retry = message(secret, msgId);
    await sender().send(double.endpointUrl('again'), retry.headers, retry.body);
    const view = await control.deliveries('again');
    expect(view.deliveries.map((d) => [d.attempt, d.verified])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(view.duplicates).toBe(1);
  });

  it('reports a receiver holding another secret as unverified, with the library’s reason', async () => {
    await control.endpoint('other-secret', { secret: newWebhookSecret() });
    const { body, headers } = message(newWebhookSecret());
    await sender().send(double.endpointUrl('other-secret'), headers, body);
    const [delivery] = (await control.deliveries('other-secret')).deliveries;
    expect(delivery).toMatchObject({ verified: false, verificationError: 'No matching signature found' });
  });

  it('returns 410 Gone, which disables the endpoint', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('gone', { secret, faults: [{ status: 410 }] });
    const { body, headers } = message(secret);
    const attempt = await sender().send(double.endpointUrl('gone'), headers, body);
    expect(attempt).toMatchObject({ status: 410, responseBody: 'fault 410' });
    expect(outcomeOf(attempt.status)).toBe('disable');
  });

  it('reads Retry-After on 429 and 503 only, and answers 2xx once the faults are spent', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('busy', { secret, faults: [{ status: 429, retryAfter: 120 }, { status: 503, retryAfter: '7' }, { status: 500, retryAfter: 60 }] });
    const send = async () => {
      const { body, headers } = message(secret);
      return sender().send(double.endpointUrl('busy'), headers, body);
    };
    const tooMany = await send();
    expect(tooMany).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(outcomeOf(tooMany.status)).toBe('retry');
    expect(await send()).toMatchObject({ status: 503, retryAfterMs: 7000 });
    const serverError = await send();
    expect(serverError.status).toBe(500);
    expect(serverError.retryAfterMs).toBeUndefined();
    expect((await send()).status).toBe(204);
  });

  it('does not follow a redirect: the 3xx is the answer, a failure to retry', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('elsewhere', { secret });
    await control.endpoint('moved', { secret, faults: [{ status: 302, location: double.endpointUrl('elsewhere') }] });
    const { body, headers } = message(secret);
    const attempt = await sender().send(double.endpointUrl('moved'), headers, body);
    expect(attempt.status).toBe(302);
    expect(outcomeOf(attempt.status)).toBe('retry');
    expect((await control.deliveries('elsewhere')).deliveries).toHaveLength(0);
  });

  it('gives up on a slow receiver at the timeout', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('slow', { secret, faults: [{ status: 200, delayMs: 3000 }] });
    const { body, headers } = message(secret);
    const attempt = await sender({ timeoutMs: 300 }).send(double.endpointUrl('slow'), headers, body);
    expect(attempt).toMatchObject({ status: 'timeout', responseBody: '', error: expect.stringMatching(/^timed out after 300 ms: http:\/\/127\.0\.0\.1:\d+\/hooks\/slow$/) });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(250);
    expect(attempt.durationMs).toBeLessThan(2500);
  });

  it('keeps the first 4 KiB of a huge answer and drops the rest unread', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('chatty', { secret, faults: [{ status: 200, bodyBytes: 50 * 1024 * 1024 }] });
    const { body, headers } = message(secret);
    const attempt = await sender().send(double.endpointUrl('chatty'), headers, body);
    expect(attempt.status).toBe(200);
    expect(RESPONSE_BODY_LIMIT).toBe(4096);
    expect(attempt.responseBody).toBe('x'.repeat(4096));
    // Reading 50 MiB on loopback would take far longer than dropping the connection.
    expect(attempt.durationMs).toBeLessThan(2000);
  });

  it('reports a receiver that refuses the connection as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const { body, headers } = message(newWebhookSecret());
    const attempt = await sender().send(`http://127.0.0.1:${port}/hooks/none`, headers, body);
    expect(attempt).toMatchObject({ status: 'network-error', error: `network error (ECONNREFUSED): http://127.0.0.1:${port}/hooks/none` });
    expect(outcomeOf(attempt.status)).toBe('retry');
  });

  it('connects an allow-listed host name to the address its resolver gave', async () => {
    const secret = newWebhookSecret();
    await control.endpoint('named', { secret });
    const { lookup, asked } = fakeLookup({ 'receiver.test': ['127.0.0.1'] });
    const port = new URL(double.url).port;
    const { body, headers } = message(secret);
    const attempt = await sender({ allowHosts: ['receiver.test'], lookup }).send(`http://receiver.test:${port}/hooks/named`, headers, body);
    expect(attempt.status).toBe(204);
    expect(asked).toEqual(['receiver.test']);
    expect((await control.deliveries('named')).deliveries[0]).toMatchObject({ verified: true });
  });

  it.each([
    ['loopback', '127.0.0.1', 'loopback'],
    ['a private network', '10.1.2.3', 'private'],
    ['the cloud metadata address', '169.254.169.254', 'linkLocal'],
    ['IPv6 loopback', '::1', 'loopback'],
  ])('refuses a host that is not allow-listed and resolves to %s, sending nothing', async (_what, address, range) => {
    const secret = newWebhookSecret();
    await control.endpoint('target', { secret });
    const { lookup } = fakeLookup({ 'hooks.customer.example': [address] });
    const port = new URL(double.url).port;
    const { body, headers } = message(secret);
    const attempt = await sender({ lookup }).send(`https://hooks.customer.example:${port}/hooks/target?token=secret`, headers, body);
    expect(attempt).toEqual({
      status: 'refused-address',
      durationMs: expect.any(Number),
      responseBody: '',
      error: `refused https://hooks.customer.example:${port}/hooks/target: resolves to ${address} (${range})`,
    });
    expect((await control.deliveries('target')).deliveries).toHaveLength(0);
  });

  it('refuses a host with any private address among public ones', async () => {
    const { lookup } = fakeLookup({ 'mixed.example': ['93.184.216.34', '10.0.0.7'] });
    const { body, headers } = message(newWebhookSecret());
    const attempt = await sender({ lookup }).send('https://mixed.example/hook', headers, body);
    expect(attempt).toMatchObject({ status: 'refused-address', error: 'refused https://mixed.example/hook: resolves to 10.0.0.7 (private)' });
  });

  it('refuses a literal private address, plain http to a host not allow-listed, and credentials, without resolving', async () => {
    const { lookup, asked } = fakeLookup({});
    const { body, headers } = message(newWebhookSecret());
    const send = (url: string) => sender({ lookup, allowHosts: [] }).send(url, headers, body);
    expect(await send('https://169.254.169.254/latest/meta-data')).toMatchObject({ status: 'refused-address', error: 'refused https://169.254.169.254/latest/meta-data: address 169.254.169.254 (linkLocal)' });
    expect(await send('http://hooks.customer.example/hook')).toMatchObject({ status: 'refused-address', error: 'refused http://hooks.customer.example/hook: only https URLs are allowed' });
    expect(await send('https://user:pw@hooks.customer.example/hook')).toMatchObject({ status: 'refused-address', error: 'refused https://hooks.customer.example/hook: credentials in the URL are not allowed' });
    expect(asked).toEqual([]);
  });

  it('reports a host that does not resolve as a network error', async () => {
    const { lookup } = fakeLookup({});
    const { body, headers } = message(newWebhookSecret());
    const attempt = await sender({ lookup }).send('https://nowhere.example/hook', headers, body);
    expect(attempt).toMatchObject({ status: 'network-error', error: 'could not resolve nowhere.example' });
  });

  it('times out a resolver that never answers, as a timeout and not a DNS failure', async () => {
    const never = () => new Promise<LookupAddress[]>(() => undefined);
    const { body, headers } = message(newWebhookSecret());
    const attempt = await sender({ lookup: never, timeoutMs: 50 }).send('https://slow-dns.example/hook', headers, body);
    expect(attempt).toMatchObject({ status: 'timeout', error: 'timed out after 50 ms resolving slow-dns.example' });
  });

  it('needs a User-Agent', () => {
    expect(() => createWebhookSender({ userAgent: ' ' })).toThrow(/userAgent/);
  });
});

describe('kept-alive connections', () => {
  /** A receiver of its own that counts connections and requests, answering 204. */
  async function counting() {
    const sockets = new Set<Socket>();
    let connections = 0;
    let requests = 0;
    const server = createHttpServer((req, res) => {
      requests += 1;
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('connection', (socket: Socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      port,
      counts: () => ({ connections, requests, open: sockets.size }),
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('sends deliveries to one origin over kept connections, and still resolves and checks the host at each', async () => {
    const rx = await counting();
    const { lookup, asked } = fakeLookup({ 'hooks.test': ['127.0.0.1'] });
    const s = sender({ allowHosts: ['hooks.test'], lookup });
    try {
      for (let i = 0; i < 10; i += 1) {
        const { body, headers } = message(newWebhookSecret());
        expect((await s.send(`http://hooks.test:${rx.port}/hooks/${i}`, headers, body)).status).toBe(204);
      }
      // Ten deliveries, one after the other: a connection each without the pool. undici's pool
      // opens a second one when the next request comes before the first connection is handed back
      // (the same tick as the answer's end), and then has one free each time.
      expect(rx.counts().requests).toBe(10);
      expect(rx.counts().connections).toBeLessThanOrEqual(2);
      expect(asked).toEqual(Array.from({ length: 10 }, () => 'hooks.test'));
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it('a changed DNS answer never rides a kept connection: a refused address sends nothing, a new one gets its own connection', async () => {
    const rx = await counting();
    const names: Record<string, string[]> = { 'hooks.test': ['127.0.0.1'] };
    const { lookup } = fakeLookup(names);
    const s = sender({ allowHosts: ['hooks.test'], lookup });
    const url = `http://hooks.test:${rx.port}/hooks/moved`;
    try {
      const first = message(newWebhookSecret());
      expect((await s.send(url, first.headers, first.body)).status).toBe(204);
      expect(rx.counts()).toMatchObject({ connections: 1, requests: 1, open: 1 });

      // The host now also resolves to an address never allowed: refused, though a connection is kept.
      names['hooks.test'] = ['127.0.0.1', '0.0.0.0'];
      const second = message(newWebhookSecret());
      expect(await s.send(url, second.headers, second.body)).toMatchObject({ status: 'refused-address', error: expect.stringContaining('resolves to 0.0.0.0 (unspecified)') });
      expect(rx.counts()).toMatchObject({ requests: 1 });

      // Another loopback address: connected to anew (nothing listens there), not sent down the kept connection.
      names['hooks.test'] = ['127.0.0.2'];
      const third = message(newWebhookSecret());
      expect(await s.send(url, third.headers, third.body)).toMatchObject({ status: 'network-error', error: expect.stringContaining('ECONNREFUSED') });
      expect(rx.counts()).toMatchObject({ connections: 1, requests: 1 });
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it('close() closes the kept connections', async () => {
    const rx = await counting();
    const s = sender();
    const { body, headers } = message(newWebhookSecret());
    expect((await s.send(`http://127.0.0.1:${rx.port}/hooks/closing`, headers, body)).status).toBe(204);
    expect(rx.counts().open).toBe(1);
    await s.close();
    for (let i = 0; rx.counts().open > 0 && i < 100; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(rx.counts().open).toBe(0);
    await rx.close();
  });

  it('keys an agent by origin and the set of addresses, in any order', () => {
    const a = [
      { address: '203.0.113.7', family: 4 },
      { address: '2001:db8::1', family: 6 },
    ];
    expect(agentKey(new URL('https://hooks.example/a'), a)).toBe(agentKey(new URL('https://hooks.example/b?x=1'), [...a].reverse()));
    expect(agentKey(new URL('https://hooks.example/a'), a)).not.toBe(agentKey(new URL('https://hooks.example:8443/a'), a));
    expect(agentKey(new URL('https://hooks.example/a'), a)).not.toBe(agentKey(new URL('https://hooks.example/a'), a.slice(0, 1)));
  });
});

describe('webhookUrlRefusal', () => {
  const options = { allowHosts: ['127.0.0.1', 'receiver.test:8080'] };

  it('accepts https URLs', () => {
    expect(webhookUrlRefusal('https://hooks.customer.example/news?token=abc', options)).toBeNull();
    expect(webhookUrlRefusal('https://hooks.customer.example:8443/news', { allowHosts: [] })).toBeNull();
  });

  it('refuses plain http unless the host is allow-listed (development)', () => {
    expect(webhookUrlRefusal('http://hooks.customer.example/news', options)).toBe('only https URLs are allowed');
    expect(webhookUrlRefusal('http://127.0.0.1:4000/hooks/a', options)).toBeNull();
    expect(webhookUrlRefusal('http://receiver.test:8080/hooks/a', options)).toBeNull();
    expect(webhookUrlRefusal('http://receiver.test:8081/hooks/a', options)).toBe('only https URLs are allowed');
  });

  it('refuses credentials, other schemes and what is not a URL', () => {
    expect(webhookUrlRefusal('https://user:pass@hooks.customer.example/', options)).toBe('credentials in the URL are not allowed');
    expect(webhookUrlRefusal('ftp://hooks.customer.example/', options)).toBe('scheme ftp: is not allowed');
    expect(webhookUrlRefusal('file:///etc/passwd', options)).toBe('scheme file: is not allowed');
    expect(webhookUrlRefusal('not a url', options)).toBe('not a valid URL');
  });
});
