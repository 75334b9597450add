/**
 * WhatsApp (issue 15) on the running stack: the news API in-process, the test run's worker
 * (conversation workflows on the `whatsapp` queue), FerretDB, Temporal, and the Cloud API double
 * (tests/doubles/whatsapp-double.ts) that the replies reach. Each test uses a phone of its own.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import request from 'supertest';
import { TASK_QUEUES, taskQueueName } from '../../workflows/ids';
import { whatsappRelayWorkflow } from '../../workflows/whatsapp/relay.workflow';
import { collectionOf } from '../../models/infra/mongo';
import { signatureOf } from '../../models/whatsapp/webhook.rules';
import { startNewsService, type NewsService } from '../helpers/news';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { CLOSED_PORT, eventually, testConfig, tokenFor } from '../helpers/service';
import { choiceMessage, deliver, double, messagesTo, newPhone, payload, textMessage, texts } from '../helpers/whatsapp';

jest.setTimeout(90_000);

let svc: NewsService;
beforeAll(async () => {
  svc = await startNewsService();
});
afterAll(async () => {
  await svc?.close();
});

/** Delivers one text and waits for the replies it brings (`replies` of them); returns their texts. */
async function say(phone: string, text: string, replies = 1): Promise<string[]> {
  const before = (await double().messages(phone)).length;
  await deliver(svc.callback, payload([textMessage(phone, text)])).expect(200);
  return texts(await messagesTo(phone, before + replies)).slice(before);
}
async function choose(phone: string, id: string, replies = 1): Promise<string[]> {
  const before = (await double().messages(phone)).length;
  await deliver(svc.callback, payload([choiceMessage(phone, id)])).expect(200);
  return texts(await messagesTo(phone, before + replies)).slice(before);
}

describe('GET /api/whatsapp/webhook (verification)', () => {
  const verify = (q: Record<string, string>) => request(svc.callback).get('/api/whatsapp/webhook').query(q);
  it('answers the challenge as plain text for subscribe with the verify token', async () => {
    const res = await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': testConfig().whatsapp.verifyToken!, 'hub.challenge': '1158201444' }).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('1158201444');
  });

  it('refuses a wrong token, another mode or no token (403), without echoing the token', async () => {
    for (const q of [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong-token-of-some-length', 'hub.challenge': '1' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': testConfig().whatsapp.verifyToken!, 'hub.challenge': '1' },
      { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
    ] as Record<string, string>[]) {
      const res = await verify(q).expect(403);
      expect(res.body).toMatchObject({ success: false, statusCode: 403 });
      expect(JSON.stringify(res.body)).not.toContain('wrong-token-of-some-length');
    }
  });

  it('reports the channel as configured (public)', async () => {
    const res = await request(svc.callback).get('/api/whatsapp/status').expect(200);
    expect(res.body.data).toEqual({ configured: true, phoneNumberId: testConfig().whatsapp.api!.phoneNumberId, flowConfigured: false });
  });
});

describe('POST /api/whatsapp/webhook (signatures)', () => {
  it('stores a signed delivery; refuses a missing or wrong signature and an altered body (401), storing nothing', async () => {
    const phone = newPhone();
    const inbound = () => collectionOf<{ _id: string }>(svc.deps.mongo.conn, 'whatsapp_inbound');
    const unsigned = textMessage(phone, 'ajuda');
    await deliver(svc.callback, payload([unsigned]), { signature: null }).expect(401);
    const forged = textMessage(phone, 'ajuda');
    await deliver(svc.callback, payload([forged]), { signature: signatureOf(JSON.stringify(payload([forged])), 'not-the-app-secret') }).expect(401);
    const altered = textMessage(phone, 'ajuda');
    const signedFor = JSON.stringify(payload([altered]));
    const res = await deliver(svc.callback, undefined, { raw: signedFor.replace('ajuda', 'parar'), signature: signatureOf(signedFor, testConfig().whatsapp.appSecret!) }).expect(401);
    expect(res.body).toMatchObject({ success: false, statusCode: 401 });
    expect(await inbound().countDocuments({ _id: { $in: [unsigned.id, forged.id, altered.id] } })).toBe(0);

    const ok = textMessage(phone, 'ajuda');
    expect((await deliver(svc.callback, payload([ok])).expect(200)).body.data).toEqual({ received: true, messages: 1, duplicates: 0, statuses: 0 });
    expect(await inbound().countDocuments({ _id: ok.id })).toBe(1);
    expect(texts(await messagesTo(phone, 1))[0]).toMatch(/^Olá! Envie uma destas palavras/);
  });

  it('refuses what is not a WhatsApp Business Account payload (400); checks the signature before reading the body', async () => {
    await deliver(svc.callback, { object: 'page', entry: [] }).expect(400);
    // Not JSON: 400 when signed, 401 when not (the body is parsed only after the signature is checked).
    expect((await deliver(svc.callback, undefined, { raw: '{"object": "whatsapp_business_account", ' }).expect(400)).body.error).toMatch(/not valid JSON/);
    await deliver(svc.callback, undefined, { raw: '{"object": "whatsapp_business_account", ', signature: null }).expect(401);
  });
});

describe('conversations', () => {
  it('signs up by messages, chooses sectors and topics from lists, turns alerts on; the account and preferences are the news API’s', async () => {
    const phone = newPhone();
    const email = `leitora-${randomUUID().slice(0, 8)}@example.com`;
    expect(await say(phone, 'Cadastro')).toEqual(['Vamos criar sua conta. Qual é o seu nome?']);
    expect(await say(phone, 'Ana Souza')).toEqual(['Prazer, Ana Souza! Agora, qual é o seu e-mail?']);
    expect((await say(phone, email.toUpperCase()))[0]).toMatch(/^Conta criada, Ana Souza!/);
    const contact = await svc.deps.whatsapp.contact(phone);
    expect(contact?.userId).toMatch(/^usr_wa_/);
    const userId = contact!.userId!;
    // The typed address is kept unproven: it names nobody's account (issue 35).
    expect(await svc.deps.users.findById(userId)).toMatchObject({ unverifiedEmail: email, name: 'Ana Souza', plan: 'starter' });
    expect((await svc.deps.users.findById(userId))?.email).toBeUndefined();

    const [sectors] = await say(phone, 'minhas PREFERÊNCIAS');
    expect(sectors).toMatch(/^Escolha os setores/);
    expect((await choose(phone, 'pref:toggle:sector:FIN'))[0]).toContain('Escolhidos: Finanças.');
    expect((await choose(phone, 'pref:page:sector:1'))[0]).toContain('Página 2 de 3');
    expect((await choose(phone, 'pref:toggle:sector:AGR'))[0]).toContain('Escolhidos: Finanças, Agronegócio.');
    expect((await choose(phone, 'pref:next'))[0]).toMatch(/^Escolha os temas/);
    await choose(phone, 'pref:toggle:topic:IPO');
    expect(await choose(phone, 'pref:save')).toEqual(['Preferências salvas. Setores: Finanças, Agronegócio. Temas: IPOs.']);
    expect((await svc.deps.preferences.get(userId))).toMatchObject({ sectors: ['FIN', 'AGR'], topics: ['IPO'], notificationSettings: { whatsapp: false } });
    // The list sent was a real interactive list (at most 10 rows, titles within 24 characters).
    const lists = (await double().messages(phone)).filter((m) => m.type === 'interactive');
    expect(lists.length).toBeGreaterThanOrEqual(5);

    expect((await say(phone, 'Voltar'))[0]).toMatch(/^Alertas de notícias urgentes retomados/);
    expect((await svc.deps.preferences.get(userId)).notificationSettings.whatsapp).toBe(true);
    expect((await say(phone, 'PARAR'))[0]).toMatch(/^Alertas pausados/);
    expect((await svc.deps.preferences.get(userId)).notificationSettings.whatsapp).toBe(false);
    const [account] = await say(phone, 'Minha Conta');
    expect(account).toContain(`Conta: Ana Souza <${email}> (não confirmado)`);
    expect(account).toContain('Setores: Finanças, Agronegócio');

    // The same e-mail from another phone: only typed here too, so an account of its own.
    const other = newPhone();
    await say(other, 'cadastrar');
    await say(other, 'Outra Pessoa');
    expect((await say(other, email))[0]).toMatch(/^Conta criada, Outra Pessoa!/);
    expect((await svc.deps.whatsapp.contact(other))?.userId).not.toBe(userId);

    // An e-mail an account has proven (signed in to the dashboard, or a token's): taken.
    const proven = `provada-${randomUUID().slice(0, 8)}@example.com`;
    await svc.deps.users.markEmailVerified(`usr_em_test_${randomUUID().slice(0, 8)}`, proven, new Date());
    const third = newPhone();
    await say(third, 'cadastrar');
    await say(third, 'Terceira Pessoa');
    expect((await say(third, proven))[0]).toMatch(/^Já existe uma conta com esse e-mail/);
    expect((await svc.deps.whatsapp.contact(third))?.userId).toBeNull();
  });

  it('reads commands whatever their accents and capitals; anything else gets help', async () => {
    const phone = newPhone();
    expect((await say(phone, 'ÚLTIMAS NOTÍCIAS'))[0]).toMatch(/^(Últimas notícias \(envie \*cadastro\*|Ainda não há notícias)/);
    expect((await say(phone, 'plantão!'))[0]).toMatch(/^(Notícias urgentes:|Nenhuma notícia urgente agora\.)/);
    expect((await say(phone, 'minha conta'))[0]).toMatch(/^Este número ainda não está vinculado/);
    expect((await say(phone, 'Parar'))[0]).toMatch(/precisa de uma conta/);
    expect((await say(phone, 'qual a cotação do dólar?'))[0]).toMatch(/^Olá! Envie uma destas palavras/);
  });

  it('links a phone to an existing account by a code sent to it and confirmed in the account', async () => {
    const phone = newPhone();
    const userId = `wa-login-${randomUUID().slice(0, 8)}`;
    const email = `${userId}@example.com`;
    await svc.deps.users.ensure(userId, email);
    const jwt = await tokenFor(userId, [], email);
    const link = (code: string, token = jwt) => request(svc.callback).post('/api/whatsapp/link').set('Authorization', `Bearer ${token}`).send({ code });
    await link('123456').expect(404); // nothing asked yet
    expect(await say(phone, 'Já tenho conta')).toEqual(['Qual é o e-mail da sua conta?']);
    const [codeMessage, told] = await say(phone, email, 2);
    expect(told).toMatch(/^Se houver uma conta com esse e-mail/);
    const code = /\*(\d{6})\*/.exec(codeMessage!)![1]!;
    // The code is recorded masked.
    expect(JSON.stringify(await svc.deps.whatsapp.outboundOf(phone))).not.toContain(code);
    await link(code === '000000' ? '000001' : '000000').expect(400);
    await link(code, await tokenFor(`someone-else-${randomUUID().slice(0, 6)}`)).expect(404);
    const res = await link(code).expect(200);
    expect(res.body.data).toEqual({ linked: true, phone: expect.stringMatching(/^5511•+\d\d$/) });
    await link(code).expect(404); // used once
    expect((await svc.deps.whatsapp.contact(phone))?.userId).toBe(userId);
    expect((await say(phone, 'conta'))[0]).toContain(`<${email}>`);

    // An e-mail without an account: the same answer, and no code.
    const stranger = newPhone();
    await say(stranger, 'entrar');
    expect(await say(stranger, `nobody-${randomUUID().slice(0, 6)}@example.com`)).toEqual([told]);
  });

  it('answers a message delivered twice (one after the other, and at once) once', async () => {
    const phone = newPhone();
    const message = textMessage(phone, 'ajuda');
    const first = await deliver(svc.callback, payload([message])).expect(200);
    expect(first.body.data).toMatchObject({ messages: 1, duplicates: 0 });
    const again = await Promise.all([1, 2, 3].map(() => deliver(svc.callback, payload([message]))));
    expect(again.map((r) => [r.status, r.body.data.duplicates])).toEqual([[200, 1], [200, 1], [200, 1]]);
    await messagesTo(phone, 1);
    await say(phone, 'conta'); // a later message's answer: the duplicate's would have come before it
    expect(texts(await double().messages(phone))).toHaveLength(2);
    expect((await collectionOf<{ deliveries: number }>(svc.deps.mongo.conn, 'whatsapp_inbound').findOne({ _id: message.id as never }))?.deliveries).toBe(4);
  });

  it('retries a reply the Cloud API throttles (429) and a 5xx, sending it once', async () => {
    const phone = newPhone();
    await double().script(phone, [{ status: 429, code: 130429 }, { status: 503, code: 2, message: 'Service temporarily unavailable' }]);
    expect((await say(phone, 'ajuda'))[0]).toMatch(/^Olá!/);
    await say(phone, 'conta');
    const sent = await svc.deps.whatsapp.outboundOf(phone);
    expect(sent.map((m) => [m.kind, m.status, m.attempts])).toEqual([['reply', 'sent', 3], ['reply', 'sent', 1]]);
    expect(await double().messages(phone)).toHaveLength(2);
  });

  it('stores delivery statuses on the messages they are about, never going back', async () => {
    const phone = newPhone();
    await say(phone, 'ajuda');
    const [sent] = await svc.deps.whatsapp.outboundOf(phone);
    const status = (s: string, at: number) => ({ id: sent!.wamid, status: s, timestamp: String(at), recipient_id: phone });
    const t = Math.floor(Date.now() / 1000);
    const res = await deliver(svc.callback, payload([], [status('delivered', t), status('read', t + 5), status('delivered', t + 6), { id: 'wamid.not-ours', status: 'read', timestamp: String(t), recipient_id: phone }])).expect(200);
    expect(res.body.data).toEqual({ received: true, messages: 0, duplicates: 0, statuses: 3 });
    const [after] = await svc.deps.whatsapp.outboundOf(phone);
    expect(after!.status).toBe('read');
    expect(after!.statuses.map((s) => s.status)).toEqual(['delivered', 'read', 'delivered']);
  });
});

describe('a worker that is down while messages arrive', () => {
  it('answers them after it is back, in the order they were sent', async () => {
    const prefix = `wa-down-${randomUUID().slice(0, 6)}-`;
    const api = await startNewsService({ TASK_QUEUE_PREFIX: prefix });
    let worker;
    try {
      const phone = newPhone();
      const email = `down-${randomUUID().slice(0, 8)}@example.com`;
      // Sent at once, in one delivery and then two more: stored and answered 200 with nobody to handle them.
      await deliver(api.callback, payload([textMessage(phone, 'cadastro')])).expect(200);
      await deliver(api.callback, payload([textMessage(phone, 'Bruno Lima'), textMessage(phone, email)])).expect(200);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await double().messages(phone)).toHaveLength(0);

      worker = await startOwnWorker(prefix, testConfig(), { WORKER_QUEUES: 'platform-ops,whatsapp' });
      const replies = texts(await messagesTo(phone, 3));
      expect(replies[0]).toBe('Vamos criar sua conta. Qual é o seu nome?');
      expect(replies[1]).toBe('Prazer, Bruno Lima! Agora, qual é o seu e-mail?');
      expect(replies[2]).toMatch(/^Conta criada, Bruno Lima!/);
    } finally {
      killGroup(worker);
      await api.close();
    }
  });
});

describe('the message relay', () => {
  it('hands over what the webhook stored while Temporal was down', async () => {
    const down = await startNewsService({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` });
    const phone = newPhone();
    const message = textMessage(phone, 'ajuda');
    try {
      expect((await deliver(down.callback, payload([message])).expect(200)).body.data).toMatchObject({ messages: 1, duplicates: 0 });
    } finally {
      await down.close();
    }
    expect(await svc.deps.whatsapp.inboundById(message.id)).toMatchObject({ forwardedAt: null });
    // What the relay's schedule runs every minute (its age limit lifted so the test need not wait).
    const relayId = `whatsapp-relay-test-${randomUUID().slice(0, 8)}`;
    const relay = await svc.deps.temporal.client.workflow.execute(whatsappRelayWorkflow, {
      workflowId: relayId,
      taskQueue: taskQueueName(testConfig().temporal.taskQueuePrefix, TASK_QUEUES.whatsapp),
      args: [{ olderThanMs: 0, limit: 1_000 }],
    });
    expect(relay.forwarded).toBeGreaterThanOrEqual(1);
    expect(texts(await messagesTo(phone, 1))[0]).toMatch(/^Olá!/);
    // The conversation marks the message handled after its reply has gone out.
    expect(await eventually(async () => (await svc.deps.whatsapp.inboundById(message.id))?.handledAt instanceof Date, true)).toBe(true);
    expect(await svc.deps.whatsapp.inboundById(message.id)).toMatchObject({ forwardedAt: expect.any(Date), handledAt: expect.any(Date) });
    if (process.env.RECORD_HISTORY === '1') {
      const history = await svc.deps.temporal.client.workflow.getHandle(relayId).fetchHistory();
      writeFileSync(path.resolve(__dirname, '../fixtures/histories/whatsappRelayWorkflow.json'), `${historyToJSON(history)}\n`);
    }
  });
});

describe('breaking-news alerts', () => {
  it('reach exactly the matching opted-in readers, once, within the hourly cap; a template outside the 24-hour window', async () => {
    // A database, prefix and worker of their own: imports write articles, which other suites count.
    const run = randomUUID().slice(0, 6);
    const env = { TASK_QUEUE_PREFIX: `wa-alerts-${run}-`, MONGODB_DB: `wa_alerts_${run}`, WHATSAPP_ALERTS_PER_HOUR: '2' };
    const api = await startNewsService(env);
    let worker;
    try {
      worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-ingest,news-notify,whatsapp' });
      const now = Date.now();
      const reader = async (prefs: Record<string, unknown>, alerts: boolean, lastWroteAgoMs: number | null, linked = true) => {
        const userId = `alerts-${randomUUID().slice(0, 8)}`;
        const phone = newPhone();
        await api.deps.users.ensure(userId, `${userId}@example.com`);
        const minScore = (prefs.minScore as number | undefined) ?? 0;
        const { minScore: _minScore, ...follows } = prefs;
        await api.deps.preferences.update(userId, { $set: { ...follows, notificationSettings: { email: true, push: false, whatsapp: alerts, breakingOnly: false, minScore } } });
        if (linked) await api.deps.whatsapp.link(phone, userId, new Date());
        if (lastWroteAgoMs !== null) await collectionOf<{ _id: string }>(api.deps.mongo.conn, 'whatsapp_contacts').updateOne({ _id: phone }, { $set: { lastInboundAt: new Date(now - lastWroteAgoMs) } });
        return phone;
      };
      const energy = await reader({ sectors: ['ENE'] }, true, 3_600_000); // wrote an hour ago: in the window
      const keyword = await reader({ keywords: ['Petrobras'] }, true, 3 * 86_400_000); // wrote three days ago: a template
      const off = await reader({ sectors: ['ENE'] }, false, 60_000); // alerts off
      const elsewhere = await reader({ sectors: ['TEC'], keywords: ['inteligência artificial'] }, true, 60_000); // follows other things
      const demanding = await reader({ sectors: ['ENE'], minScore: 95 }, true, 60_000); // the article scores lower
      await reader({ watchlistTickers: ['PETR4'] }, true, null, false); // no phone linked

      // The cap is per clock hour: not a few seconds before the hour turns.
      const intoHour = Date.now() % 3_600_000;
      if (intoHour > 3_570_000) await new Promise((r) => setTimeout(r, 3_600_000 - intoHour + 1_000));
      const adminJwt = await tokenFor(`admin-${run}`, ['news.admin']);
      const line = (i: number, title: string, isBreaking: boolean, publishedAt = new Date()) =>
        JSON.stringify({ title, sourceName: 'Agência Teste', sourceUrl: `https://alerts.example/${run}/${i}`, publishedAt: publishedAt.toISOString(), primarySector: 'ENE', primaryTopic: 'CONTRACT', isBreaking, baseScore: 80 });
      const importLines = async (lines: string[]) => {
        const posted = await request(api.callback).post('/api/admin/articles/import').set('Authorization', `Bearer ${adminJwt}`).set('Content-Type', 'application/x-ndjson').send(`${lines.join('\n')}\n`).expect(202);
        const id = posted.body.data.id as string;
        const result = await api.deps.temporal.client.workflow.getHandle(`news-import-${id}`).result();
        return { id, result, breakingIds: (await api.deps.imports.get(id))?.breakingIds ?? [] };
      };
      // Alerts on every channel (issue 40): the WhatsApp part of each article's run.
      const alertsOf = async (articleIds: string[]) =>
        await Promise.all(articleIds.map(async (a) => ((await api.deps.temporal.client.workflow.getHandle(`news-alerts-${a}`).result()) as { whatsapp: unknown }).whatsapp as { recipients: number; sent: number; capped: number; refused: number }));

      const first = await importLines([line(1, 'Petrobras anuncia descoberta no pré-sal', true), line(2, 'Boletim de energia', false)]);
      expect(first.result).toMatchObject({ state: 'completed', inserted: 2, alerts: 1 });
      expect(first.breakingIds).toHaveLength(1);
      expect(await alertsOf(first.breakingIds)).toEqual([{ recipients: 2, sent: 2, capped: 0, refused: 0 }]);
      expect(await double().messages(energy)).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('*Petrobras anuncia descoberta no pré-sal*') })]);
      const [template] = await double().messages(keyword);
      expect(template).toMatchObject({ type: 'template', text: 'breaking_news_alert' });
      expect(template!.body).toMatchObject({ template: { name: 'breaking_news_alert', language: { code: 'pt_BR' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Petrobras anuncia descoberta no pré-sal' }] }] } });
      for (const phone of [off, elsewhere, demanding]) expect(await double().messages(phone)).toEqual([]);

      // Two more breaking energy articles: the energy reader's cap (2 an hour) lets one through.
      const second = await importLines([line(3, 'Apagão atinge o Sudeste', true), line(4, 'Leilão de energia é suspenso', true)]);
      const results = await alertsOf(second.breakingIds);
      expect(results.reduce((n, r) => n + r.sent, 0)).toBe(1);
      expect(results.reduce((n, r) => n + r.capped, 0)).toBe(1);
      expect(await double().messages(energy)).toHaveLength(2);
      expect(await double().messages(keyword)).toHaveLength(1);
      // The same article imported again is a duplicate: no new alert.
      const again = await importLines([line(1, 'Petrobras anuncia descoberta no pré-sal', true)]);
      expect(again.result).toMatchObject({ state: 'completed', inserted: 0, duplicates: 1, alerts: 0 });
      // Breaking news of two days ago, imported now, is archive: inserted, no alert.
      const archive = await importLines([line(5, 'Greve paralisa refinarias', true, new Date(Date.now() - 2 * 86_400_000))]);
      expect(archive.result).toMatchObject({ state: 'completed', inserted: 1, alerts: 0 });
      expect(archive.breakingIds).toEqual([]);
      if (process.env.RECORD_HISTORY === '1') {
        const dir = path.resolve(__dirname, '../fixtures/histories');
        writeFileSync(path.join(dir, 'newsAlertsWorkflow.json'), `${historyToJSON(await api.deps.temporal.client.workflow.getHandle(`news-alerts-${first.breakingIds[0]}`).fetchHistory())}\n`);
        writeFileSync(path.join(dir, 'newsImportWorkflow-every-channel.json'), `${historyToJSON(await api.deps.temporal.client.workflow.getHandle(`news-import-${first.id}`).fetchHistory())}\n`);
      }
    } finally {
      killGroup(worker);
      await api.deps.mongo.conn.dropDatabase().catch(() => undefined);
      await api.close();
    }
  });
});
