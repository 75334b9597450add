/**
 * Idempotency-Key on the creating endpoints (issue 34, part 6), over HTTP against the real stack:
 * a retried write stores nothing twice. Under database faults, POST /support/{id}/mensagens had
 * answered 500/503 after storing the message, and the client's retry stored it again.
 *
 * For each endpoint (a ticket, a message, a bulk operation, an API key from the news API and from
 * the dashboard, an import, a re-enrichment) the attacks are: the same request twice with one key;
 * the key with another body; the same request four times at once; and a fault after the write
 * (a repository call that stores, then throws as the driver does when the connection drops; a
 * Temporal start that fails after the record was saved: 503), then the retry. Without a key, each
 * request stores again (the baseline the key fixes).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import request from 'supertest';
import { collectionOf } from '../../models/infra/mongo';
import { NOT_STARTED } from '../../models/infra/save-then-start';
import type { TemporalHandle } from '../../models/infra/temporal';
import { apiKeyModel } from '../../models/news/api-key.model';
import { createApiKey } from '../../operations/news/api-keys';
import { addMessage } from '../../operations/support/tickets';
import { messageModel, statusEventModel, ticketModel } from '../../models/support/support.model';
import { workflowIds } from '../../workflows/ids';
import { startNewsService, type NewsService } from '../helpers/news';
import { tokenFor } from '../helpers/service';
import { agentToken, buildTicket, client, insertTickets, readerToken, startSupportService, waitForBulk, type SupportService } from '../helpers/support';
import { Browser, startWebService, type WebService } from '../helpers/web';

jest.setTimeout(120_000);

let support: SupportService;
let news: NewsService;
let web: WebService;
const tag = randomUUID().slice(0, 8);

beforeAll(async () => {
  // The news service on a database and task queues of its own: its imports and re-enrichments are
  // only counted here (their workflows wait for a worker that never comes), and leave nothing in
  // the shared database other files count articles in.
  [support, news, web] = await Promise.all([
    startSupportService(),
    startNewsService({ MONGODB_DB: `idempotency_${tag}`, TASK_QUEUE_PREFIX: `idempotency-${tag}-` }),
    startWebService(),
  ]);
});
afterAll(async () => {
  await news?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await Promise.all([support?.close(), news?.close(), web?.close()]);
});

const REPLAYED = 'idempotent-replayed';
/** What the driver throws when the connection drops mid-request (mapped to 503 naming mongodb). */
const connectionLost = () => Object.assign(new Error('connection 4 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' });

/** The service's Temporal, whose next workflow start fails as an unreachable server's does (503), after which it is the real one. */
function startFailsOnce(real: TemporalHandle): TemporalHandle {
  let failed = false;
  const workflow = {
    start: (...args: Parameters<Client['workflow']['start']>) => {
      if (failed) return real.client.workflow.start(...args);
      failed = true;
      return Promise.reject(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { name: 'ServiceError', code: 14 }));
    },
    getHandle: (...args: Parameters<Client['workflow']['getHandle']>) => real.client.workflow.getHandle(...args),
  };
  return { ...real, client: { workflow } as unknown as Client };
}

/** One endpoint under attack: a fresh caller and resource per test. */
interface Target {
  /** Sends the request (`other`: the same operation with another body), with the key when given. */
  send(key: string | undefined, other?: boolean): Promise<request.Response>;
  /** How many of what it creates are stored for this test's caller. */
  count(): Promise<number>;
  status: number;
  idOf(res: request.Response): unknown;
  /** An API key's creation: its answer holds the secret, so a repeat gets 409 naming the key instead. */
  secret?: boolean;
  /** A streamed body (an import): the key alone names the request, another body under it gets the first answer. */
  keyAlone?: boolean;
}

const withKey = (req: request.Test, key: string | undefined) => (key === undefined ? req : req.set('Idempotency-Key', key));

const targets: Record<string, () => Promise<Target>> = {
  'POST /support (a ticket, public)': async () => {
    const c = client(support);
    const body = buildTicket();
    return {
      send: (key, other) => withKey(c.post('/support', other ? { ...body, description: 'Outra descrição do problema.' } : body), key),
      count: () => ticketModel(support.deps.mongo.conn).countDocuments({ email: body.email }),
      status: 201,
      idOf: (res) => res.body.data.id,
    };
  },
  'POST /support/{id}/mensagens (a message)': async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const ticket = await support.deps.tickets.create(buildTicket({ email }), email);
    const c = client(support, await readerToken(email));
    return {
      send: (key, other) => withKey(c.post(`/support/${ticket._id}/mensagens`, { conteudo: other ? 'Outra mensagem.' : 'Ainda não recebi a edição.' }), key),
      count: () => messageModel(support.deps.mongo.conn).countDocuments({ ticketId: ticket._id }),
      status: 201,
      idOf: (res) => res.body.data.id,
    };
  },
  'POST /support/bulk/status (a bulk operation)': async () => {
    const sub = `agent-idem-${randomUUID().slice(0, 8)}`;
    const ids = await insertTickets(support, 3);
    const c = client(support, await agentToken(sub));
    return {
      send: (key, other) => withKey(c.post('/support/bulk/status', { ticketIds: ids, status: other ? 'closed' : 'resolved' }), key),
      count: () => collectionOf(support.deps.mongo.conn, 'bulk_operations').countDocuments({ createdBy: sub }),
      status: 202,
      idOf: (res) => res.body.data.operationId,
    };
  },
  'POST /api/keys (an API key, news API)': async () => {
    const sub = `idem-keys-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub, [], `${sub}@example.com`);
    return {
      send: (key, other) => withKey(request(news.callback).post('/api/keys').set('Authorization', `Bearer ${jwt}`).send({ name: other ? 'Outra' : 'Produção' }), key),
      count: () => apiKeyModel(news.deps.mongo.conn).countDocuments({ userId: sub }),
      status: 201,
      idOf: (res) => res.body.data.id,
      secret: true,
    };
  },
  'POST /api/account/keys (an API key, dashboard)': async () => {
    const b = new Browser(web);
    const signedIn = await b.signIn(`idem-${randomUUID().slice(0, 8)}@example.com`);
    const userId = signedIn.body.data.user.id as string;
    return {
      send: (key, other) => withKey(b.post('/api/account/keys', { name: other ? 'Outra' : 'Painel' }), key),
      count: () => apiKeyModel(web.deps.mongo.conn).countDocuments({ userId }),
      status: 201,
      idOf: (res) => res.body.data.id,
      secret: true,
    };
  },
  'POST /api/admin/articles/import (an import, JSON lines)': async () => {
    const sub = `idem-import-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub, ['news.admin']);
    const line = (n: number) =>
      JSON.stringify({ title: `Nota ${n}`, sourceName: 'Teste', sourceUrl: `https://idempotency.example/${sub}/${n}`, publishedAt: '2026-11-20T10:00:00Z', primarySector: 'FIN', primaryTopic: 'DIV' });
    return {
      send: (key, other) =>
        withKey(
          request(news.callback)
            .post('/api/admin/articles/import')
            .set('Authorization', `Bearer ${jwt}`)
            .set('Content-Type', 'application/x-ndjson')
            .send(other ? [line(3)].join('\n') : [line(1), line(2)].join('\n')),
          key,
        ),
      count: () => collectionOf(news.deps.mongo.conn, 'news_imports').countDocuments({ requestedBy: sub }),
      status: 202,
      idOf: (res) => res.body.data.id,
      keyAlone: true,
    };
  },
  'POST /api/admin/enrichments (a re-enrichment)': async () => {
    const sub = `idem-reenrich-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub, ['news.admin']);
    const [one, two] = [randomUUID(), randomUUID()];
    return {
      send: (key, other) => withKey(request(news.callback).post('/api/admin/enrichments').set('Authorization', `Bearer ${jwt}`).send({ articleIds: [other ? two : one] }), key),
      count: () => collectionOf(news.deps.mongo.conn, 'news_reenrichments').countDocuments({ createdBy: sub }),
      status: 202,
      idOf: (res) => res.body.data.id,
    };
  },
};

const cases = Object.keys(targets).map((name) => [name] as const);

describe.each(cases)('%s', (name) => {
  const make = targets[name]!;

  it('without a key, a repeated request stores again (what the key is for)', async () => {
    const t = await make();
    expect((await t.send(undefined)).status).toBe(t.status);
    expect((await t.send(undefined)).status).toBe(t.status);
    expect(await t.count()).toBe(2);
  });

  it('the same request twice with one key: stored once, the first answer again, marked replayed', async () => {
    const t = await make();
    const key = randomUUID();
    const first = await t.send(key);
    expect(first.status).toBe(t.status);
    expect(first.headers[REPLAYED]).toBeUndefined();
    const again = await t.send(key);
    expect(again.headers[REPLAYED]).toBe('true');
    if (t.secret) {
      // The secret was shown once: the repeat names the key made, and holds no secret.
      expect(again.status).toBe(409);
      expect(again.body.details).toMatchObject({ id: t.idOf(first), name: first.body.data.name, prefix: first.body.data.prefix });
      expect(JSON.stringify(again.body)).not.toContain(first.body.data.key);
    } else {
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(first.headers.location);
    }
    expect(await t.count()).toBe(1);
  });

  it('the key with another body: refused (422) and nothing written', async () => {
    const t = await make();
    const key = randomUUID();
    const first = await t.send(key);
    expect(first.status).toBe(t.status);
    const other = await t.send(key, true);
    if (t.keyAlone) {
      // A streamed body is not compared (documented): the key alone names the import.
      expect(other.status).toBe(t.status);
      expect(other.headers[REPLAYED]).toBe('true');
      expect(t.idOf(other)).toBe(t.idOf(first));
    } else {
      expect(other.status).toBe(422);
      expect(other.body).toMatchObject({ success: false });
      expect(JSON.stringify(other.body)).toContain('IDEMPOTENCY_KEY_REUSED');
    }
    expect(await t.count()).toBe(1);
  });

  it('four requests at once with one key: one stored; the others get its answer or 409 (still in progress)', async () => {
    const t = await make();
    const key = randomUUID();
    const answers = await Promise.all([1, 2, 3, 4].map(() => t.send(key)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === t.status || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === t.status).length).toBeGreaterThanOrEqual(1);
    if (!t.secret) expect(new Set(answers.filter((a) => a.status === t.status).map(t.idOf)).size).toBe(1);
    expect(await t.count()).toBe(1);
    // Once the first has answered, the key gives its answer.
    const later = await t.send(key);
    expect(later.headers[REPLAYED]).toBe('true');
    expect(await t.count()).toBe(1);
  });

  it('a key that is not 1–255 visible ASCII characters: 400 naming the header, nothing written', async () => {
    const t = await make();
    for (const bad of ['two words', 'k'.repeat(256), '']) {
      const res = await t.send(bad);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('Idempotency-Key');
    }
    expect(await t.count()).toBe(0);
  });
});

describe('a key belongs to its caller', () => {
  it('two accounts sending the same key each get their own key created', async () => {
    const key = randomUUID();
    const [a, b] = [`idem-a-${tag}`, `idem-b-${tag}`];
    for (const sub of [a, b]) {
      const jwt = await tokenFor(sub);
      const res = await request(news.callback).post('/api/keys').set('Authorization', `Bearer ${jwt}`).set('Idempotency-Key', key).send({ name: 'Mesma chave' }).expect(201);
      expect(res.headers[REPLAYED]).toBeUndefined();
    }
    expect(await apiKeyModel(news.deps.mongo.conn).countDocuments({ userId: { $in: [a, b] } })).toBe(2);
  });

  it('the same key on another ticket is another request (422), not a message written there', async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const [one, two] = [await support.deps.tickets.create(buildTicket({ email }), email), await support.deps.tickets.create(buildTicket({ email }), email)];
    const c = client(support, await readerToken(email));
    const key = randomUUID();
    await c.post(`/support/${one._id}/mensagens`, { conteudo: 'Olá' }).set('Idempotency-Key', key).expect(201);
    await c.post(`/support/${two._id}/mensagens`, { conteudo: 'Olá' }).set('Idempotency-Key', key).expect(422);
    expect(await messageModel(support.deps.mongo.conn).countDocuments({ ticketId: two._id })).toBe(0);
  });
});

describe('what is created carries the key (a claim that lapsed: two runs of one request at once)', () => {
  it('four openings of one ticket under one requestKey at once: one ticket, one creation event', async () => {
    const body = buildTicket();
    const requestKey = `race-${randomUUID()}`;
    const made = await Promise.all([1, 2, 3, 4].map(() => support.deps.tickets.create(body, body.email, requestKey)));
    expect(new Set(made.map((t) => t._id)).size).toBe(1);
    expect(await ticketModel(support.deps.mongo.conn).countDocuments({ email: body.email })).toBe(1);
    expect(await statusEventModel(support.deps.mongo.conn).countDocuments({ ticketId: made[0]!._id, source: 'create' })).toBe(1);
    const indexes = await ticketModel(support.deps.mongo.conn).collection.indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { requestKey: 1 }, unique: true, sparse: true }));
  });

  it('four writes of one message under one requestKey at once: one message', async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const ticket = await support.deps.tickets.create(buildTicket({ email }), email);
    const reader = { sub: 'reader', email, permissions: [] };
    const requestKey = `race-${randomUUID()}`;
    const made = await Promise.all([1, 2, 3, 4].map(() => addMessage(support.deps, reader, ticket._id, 'Olá', requestKey)));
    expect(new Set(made.map((m) => m._id)).size).toBe(1);
    expect(await messageModel(support.deps.mongo.conn).countDocuments({ ticketId: ticket._id })).toBe(1);
  });

  it('four creations of one API key under one requestKey at once: one key; the others are told it exists', async () => {
    const userId = `idem-race-${randomUUID().slice(0, 8)}`;
    const requestKey = `race-${randomUUID()}`;
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => createApiKey(news.deps, { userId, email: undefined, name: 'Corrida', mode: 'test', expiry: 'none', requestKey })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(['CONFLICT', 'CONFLICT', 'CONFLICT']);
    expect(await apiKeyModel(news.deps.mongo.conn).countDocuments({ userId })).toBe(1);
  });
});

describe('a fault after the write (5xx), then the retry with the same key', () => {
  it('a message stored, then the ticket update failed (503): the retry stores nothing and returns that message', async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const ticket = await support.deps.tickets.create(buildTicket({ email }), email);
    const c = client(support, await readerToken(email));
    const key = randomUUID();
    const real = support.deps.tickets;
    support.deps.tickets = {
      ...real,
      addMessage: async (...args: Parameters<typeof real.addMessage>) => {
        await real.addMessage(...args);
        throw connectionLost();
      },
    };
    try {
      const failed = await c.post(`/support/${ticket._id}/mensagens`, { conteudo: 'Ainda não recebi.' }).set('Idempotency-Key', key).expect(503);
      expect(failed.body).toMatchObject({ success: false, error: 'DEPENDENCY_UNAVAILABLE' });
    } finally {
      support.deps.tickets = real;
    }
    const stored = await messageModel(support.deps.mongo.conn).find({ ticketId: ticket._id }).lean();
    expect(stored).toHaveLength(1);
    const retry = await c.post(`/support/${ticket._id}/mensagens`, { conteudo: 'Ainda não recebi.' }).set('Idempotency-Key', key).expect(201);
    expect(retry.headers[REPLAYED]).toBeUndefined(); // run again, and found
    expect(retry.body.data).toMatchObject({ id: stored[0]!._id, conteudo: 'Ainda não recebi.' });
    expect(await messageModel(support.deps.mongo.conn).countDocuments({ ticketId: ticket._id })).toBe(1);
    // Its answer is kept now.
    const replay = await c.post(`/support/${ticket._id}/mensagens`, { conteudo: 'Ainda não recebi.' }).set('Idempotency-Key', key).expect(201);
    expect(replay.headers[REPLAYED]).toBe('true');
    expect(replay.body).toEqual(retry.body);
  });

  it('an admin reply stored with its status change, then the answer lost: the retry adds no message and no second event', async () => {
    const email = `leitor-${randomUUID().slice(0, 8)}@example.com`;
    const ticket = await support.deps.tickets.create(buildTicket({ email }), email);
    const c = client(support, await agentToken());
    const key = randomUUID();
    const real = support.deps.tickets;
    support.deps.tickets = {
      ...real,
      addMessage: async (...args: Parameters<typeof real.addMessage>) => {
        await real.addMessage(...args);
        throw connectionLost();
      },
    };
    try {
      await c.post(`/support/${ticket._id}/mensagens`, { conteudo: 'Estamos verificando.' }).set('Idempotency-Key', key).expect(503);
    } finally {
      support.deps.tickets = real;
    }
    await c.post(`/support/${ticket._id}/mensagens`, { conteudo: 'Estamos verificando.' }).set('Idempotency-Key', key).expect(201);
    expect(await messageModel(support.deps.mongo.conn).countDocuments({ ticketId: ticket._id })).toBe(1);
    expect((await support.deps.tickets.findById(ticket._id))!.status).toBe('in_progress');
    expect(await statusEventModel(support.deps.mongo.conn).countDocuments({ ticketId: ticket._id, to: 'in_progress' })).toBe(1);
  });

  it('a ticket stored, then the answer lost (503): the retry returns that ticket, and its creation is recorded once', async () => {
    const c = client(support);
    const body = buildTicket();
    const key = randomUUID();
    const real = support.deps.tickets;
    support.deps.tickets = {
      ...real,
      create: async (...args: Parameters<typeof real.create>) => {
        await real.create(...args);
        throw connectionLost();
      },
    };
    try {
      await c.post('/support', body).set('Idempotency-Key', key).expect(503);
    } finally {
      support.deps.tickets = real;
    }
    const stored = await ticketModel(support.deps.mongo.conn).find({ email: body.email }).lean();
    expect(stored).toHaveLength(1);
    const retry = await c.post('/support', body).set('Idempotency-Key', key).expect(201);
    expect(retry.body.data).toMatchObject({ id: stored[0]!._id, email: body.email, status: 'open' });
    expect(await ticketModel(support.deps.mongo.conn).countDocuments({ email: body.email })).toBe(1);
    expect(await statusEventModel(support.deps.mongo.conn).countDocuments({ ticketId: stored[0]!._id, source: 'create' })).toBe(1);
  });

  it('a bulk operation saved, then its workflow start failed (503): the retry starts that operation, which changes each ticket once', async () => {
    const sub = `agent-idem-${randomUUID().slice(0, 8)}`;
    const jwt = await agentToken(sub);
    const ids = await insertTickets(support, 3);
    const key = randomUUID();
    const real = support.deps.temporal;
    support.deps.temporal = startFailsOnce(real);
    try {
      const failed = await client(support, jwt).post('/support/bulk/status', { ticketIds: ids, status: 'resolved' }).set('Idempotency-Key', key).expect(503);
      expect(failed.body.details).toMatchObject({ dependency: 'temporal' });
      const ops = await collectionOf(support.deps.mongo.conn, 'bulk_operations').find({ createdBy: sub }).toArray();
      expect(ops).toEqual([expect.objectContaining({ state: 'failed', error: NOT_STARTED })]);
      const retry = await client(support, jwt).post('/support/bulk/status', { ticketIds: ids, status: 'resolved' }).set('Idempotency-Key', key).expect(202);
      expect(retry.body.data).toMatchObject({ operationId: ops[0]!._id, state: 'running' });
      expect(await waitForBulk(support, jwt, retry.body.data.operationId as string)).toMatchObject({ state: 'completed', succeeded: 3 });
    } finally {
      support.deps.temporal = real;
    }
    expect(await collectionOf(support.deps.mongo.conn, 'bulk_operations').countDocuments({ createdBy: sub })).toBe(1);
    expect(await statusEventModel(support.deps.mongo.conn).countDocuments({ ticketId: { $in: ids }, to: 'resolved' })).toBe(3);
  });

  it('an API key stored, then the answer lost (503): the retry creates none and names the key to revoke', async () => {
    const sub = `idem-keys-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub);
    const key = randomUUID();
    const real = news.deps.apiKeys;
    news.deps.apiKeys = {
      ...real,
      createOnce: async (...args: Parameters<typeof real.createOnce>) => {
        await real.createOnce(...args);
        throw connectionLost();
      },
    };
    try {
      await request(news.callback).post('/api/keys').set('Authorization', `Bearer ${jwt}`).set('Idempotency-Key', key).send({ name: 'Produção' }).expect(503);
    } finally {
      news.deps.apiKeys = real;
    }
    const stored = await apiKeyModel(news.deps.mongo.conn).find({ userId: sub }).lean();
    expect(stored).toHaveLength(1);
    const retry = await request(news.callback).post('/api/keys').set('Authorization', `Bearer ${jwt}`).set('Idempotency-Key', key).send({ name: 'Produção' }).expect(409);
    expect(retry.body).toMatchObject({ success: false, code: 'CONFLICT', details: { id: stored[0]!.keyId } });
    expect(await apiKeyModel(news.deps.mongo.conn).countDocuments({ userId: sub })).toBe(1);
    // The key made can be revoked by the id the answer gave.
    await request(news.callback).delete(`/api/keys/${stored[0]!.keyId}`).set('Authorization', `Bearer ${jwt}`).expect(200);
  });

  it('an import staged and saved, then its workflow start failed (503): the retry starts that import, stores no second', async () => {
    const sub = `idem-import-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub, ['news.admin']);
    const body = JSON.stringify({ title: 'Nota', sourceName: 'Teste', sourceUrl: `https://idempotency.example/${sub}`, publishedAt: '2026-11-20T10:00:00Z', primarySector: 'FIN', primaryTopic: 'DIV' });
    const key = randomUUID();
    const post = () => request(news.callback).post('/api/admin/articles/import').set('Authorization', `Bearer ${jwt}`).set('Content-Type', 'application/x-ndjson').set('Idempotency-Key', key).send(body);
    const real = news.deps.temporal;
    news.deps.temporal = startFailsOnce(real);
    try {
      await post().expect(503);
      const stored = await collectionOf(news.deps.mongo.conn, 'news_imports').find({ requestedBy: sub }).toArray();
      expect(stored).toEqual([expect.objectContaining({ state: 'failed', error: NOT_STARTED })]);
      const retry = await post().expect(202);
      expect(retry.body.data).toMatchObject({ id: stored[0]!._id, state: 'queued', error: null });
      const described = await real.client.workflow.getHandle(workflowIds.newsImport(stored[0]!._id as unknown as string)).describe();
      expect(described.status.name).toBe('RUNNING');
    } finally {
      news.deps.temporal = real;
    }
    expect(await collectionOf(news.deps.mongo.conn, 'news_imports').countDocuments({ requestedBy: sub })).toBe(1);
  });

  it('a re-enrichment saved, then its workflow start failed (503): the retry starts that operation, stores no second', async () => {
    const sub = `idem-reenrich-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(sub, ['news.admin']);
    const key = randomUUID();
    const body = { articleIds: [randomUUID()] };
    const post = () => request(news.callback).post('/api/admin/enrichments').set('Authorization', `Bearer ${jwt}`).set('Idempotency-Key', key).send(body);
    const real = news.deps.temporal;
    news.deps.temporal = startFailsOnce(real);
    try {
      await post().expect(503);
      const retry = await post().expect(202);
      expect(retry.body.data).toMatchObject({ state: 'running', error: null });
      const described = await real.client.workflow.getHandle(workflowIds.newsReenrich(retry.body.data.id as string)).describe();
      expect(['RUNNING', 'COMPLETED']).toContain(described.status.name);
    } finally {
      news.deps.temporal = real;
    }
    expect(await collectionOf(news.deps.mongo.conn, 'news_reenrichments').countDocuments({ createdBy: sub })).toBe(1);
  });
});
