/** The caller's preferences: defaults, each kind of edit, replacement, validation. */
import request from 'supertest';
import { accountWithKey, startNewsService, type NewsService } from '../helpers/news';

let svc: NewsService;
beforeAll(async () => {
  svc = await startNewsService();
});
afterAll(() => svc?.close());

async function as() {
  const { key, userId } = await accountWithKey(svc, 'pro', { mode: 'test' });
  const send = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) => {
    const req = request(svc.callback)[method](`/api/users/preferences${path}`).set('X-API-Key', key);
    return body ? req.send(body) : req;
  };
  return { get: () => send('get', ''), send, userId };
}

describe('preferences', () => {
  it('starts from the defaults: nothing followed, e-mail on, messaging off', async () => {
    const u = await as();
    const res = await u.get().expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        sectors: [],
        sectorWeights: {},
        topics: [],
        topicWeights: {},
        watchlistCompanies: [],
        watchlistTickers: [],
        keywords: [],
        keywordWeights: {},
        notificationSettings: { email: true, push: false, whatsapp: false, breakingOnly: false, minScore: 0, digest: false, digestHour: 7, timeZone: 'America/Sao_Paulo', language: 'pt', quietHours: null },
        relevanceSettings: expect.objectContaining({ recencyDecayEnabled: true, recencyDecayHours: 24, sectorMultiplier: 1 }),
      },
    });
  });

  it('adds sectors with weights (default 1), changes a weight, removes a sector', async () => {
    const u = await as();
    expect((await u.send('post', '/sectors', { sector: 'FIN', weight: 4.5 }).expect(200)).body.data).toEqual({ sectors: ['FIN'], sectorWeights: { FIN: 4.5 } });
    expect((await u.send('post', '/sectors', { sector: 'ENE' }).expect(200)).body.data).toEqual({ sectors: ['FIN', 'ENE'], sectorWeights: { FIN: 4.5, ENE: 1 } });
    expect((await u.send('post', '/sectors', { sector: 'FIN', weight: 2 }).expect(200)).body.data).toEqual({ sectors: ['FIN', 'ENE'], sectorWeights: { FIN: 2, ENE: 1 } });
    expect((await u.send('delete', '/sectors/FIN').expect(200)).body.data).toEqual({ sectors: ['ENE'], sectorWeights: { ENE: 1 } });
    expect((await u.send('delete', '/sectors/FIN').expect(200)).body.data).toEqual({ sectors: ['ENE'], sectorWeights: { ENE: 1 } });
    expect((await u.get()).body.data.sectors).toEqual(['ENE']);
  });

  it.each([
    ['an unknown sector', '/sectors', { sector: 'XYZ' }],
    ['a weight above 5', '/sectors', { sector: 'FIN', weight: 5.5 }],
    ['a negative weight', '/topics', { topic: 'IPO', weight: -1 }],
    ['an unknown topic', '/topics', { topic: 'GOSSIP' }],
    ['a malformed ticker', '/watchlist/tickers', { ticker: 'PETROBRAS' }],
    ['a company id that is not a UUID', '/watchlist/companies', { entityId: '42' }],
    ['a one-letter keyword', '/keywords', { keyword: 'a' }],
    ['a keyword with a dot', '/keywords', { keyword: 'S.A.' }],
    ['a keyword with a space at its end', '/keywords', { keyword: 'Ações ' }],
    ['a keyword in mathematical letters', '/keywords', { keyword: '𝑻𝒉𝒆 𝒒𝒖𝒊𝒄𝒌 𝒇𝒐𝒙' }],
    ['a keyword in another script', '/keywords', { keyword: 'Газпром' }],
  ])('rejects %s with 400 and changes nothing', async (_label, path, body) => {
    const u = await as();
    const before = (await u.get()).body.data;
    const res = await u.send('post', path, body).expect(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
    expect((await u.get()).body.data).toEqual(before);
  });

  it('follows topics (M&A encoded in the path), watchlists and keywords', async () => {
    const u = await as();
    expect((await u.send('post', '/topics', { topic: 'M&A', weight: 3 }).expect(200)).body.data).toEqual({ topics: ['M&A'], topicWeights: { 'M&A': 3 } });
    expect((await u.send('delete', '/topics/M%26A').expect(200)).body.data).toEqual({ topics: [], topicWeights: {} });

    const company = '0b6f1a52-8c1e-4f7a-9d3b-2e5c7a9f1b34';
    await u.send('post', '/watchlist/companies', { entityId: company }).expect(200);
    const tickers = await u.send('post', '/watchlist/tickers', { ticker: 'petr4' }).expect(200);
    expect(tickers.body.data).toEqual({ watchlistCompanies: [company], watchlistTickers: ['PETR4'] });
    await u.send('post', '/watchlist/tickers', { ticker: 'PETR4' }).expect(200);
    expect((await u.get()).body.data.watchlistTickers).toEqual(['PETR4']);
    expect((await u.send('delete', '/watchlist/tickers/PETR4').expect(200)).body.data.watchlistTickers).toEqual([]);
    expect((await u.send('delete', `/watchlist/companies/${company}`).expect(200)).body.data.watchlistCompanies).toEqual([]);

    await u.send('post', '/keywords', { keyword: 'Ações', weight: 2 }).expect(200);
    const same = await u.send('post', '/keywords', { keyword: 'acoes', weight: 3 }).expect(200);
    expect(same.body.data).toEqual({ keywords: ['Ações'], keywordWeights: { 'Ações': 3 } });
    expect((await u.send('delete', '/keywords/ACOES').expect(200)).body.data).toEqual({ keywords: [], keywordWeights: {} });
    // The path parameter follows the body's rule (found by schemathesis: the documented pattern must mean the same everywhere).
    const refused = await u.send('delete', `/keywords/${encodeURIComponent('𝑻𝒉𝒆 𝒇𝒐𝒙')}`).expect(400);
    expect(refused.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
  });

  it('keeps a list within its limit when edits arrive at once (the limit is part of the update), and re-weighs at the limit', async () => {
    const u = await as();
    const kept = Array.from({ length: 48 }, (_, i) => `termo ${i}`);
    await u.send('put', '', { keywords: kept }).expect(200);
    const tries = await Promise.all(Array.from({ length: 6 }, (_, i) => u.send('post', '/keywords', { keyword: `novo ${i}` })));
    expect(tries.map((r) => r.status).sort()).toEqual([200, 200, 400, 400, 400, 400]);
    expect(tries.find((r) => r.status === 400)!.body).toMatchObject({ code: 'VALIDATION_FAILED', error: 'At most 50 keywords' });
    expect((await u.get()).body.data.keywords).toHaveLength(50);
    expect((await u.send('post', '/keywords', { keyword: 'TERMO 3', weight: 5 }).expect(200)).body.data.keywordWeights['termo 3']).toBe(5);

    const tickers = Array.from({ length: 99 }, (_, i) => `AB${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}3`);
    await u.send('put', '', { watchlistTickers: tickers }).expect(200);
    const watched = await Promise.all(['ZZZA3', 'ZZZB3', 'ZZZC3'].map((ticker) => u.send('post', '/watchlist/tickers', { ticker })));
    expect(watched.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    expect((await u.get()).body.data.watchlistTickers).toHaveLength(100);
  });

  it('changes only the notification and relevance settings sent, within their ranges', async () => {
    const u = await as();
    const n = await u.send('patch', '/notifications', { whatsapp: true, minScore: 60 }).expect(200);
    expect(n.body.data).toEqual({ email: true, push: false, whatsapp: true, breakingOnly: false, minScore: 60, digest: false, digestHour: 7, timeZone: 'America/Sao_Paulo', language: 'pt', quietHours: null });
    // The digest, its hour and time zone, the language and quiet hours (issue 40).
    const later = await u.send('patch', '/notifications', { digest: true, digestHour: 6, timeZone: 'Europe/Lisbon', language: 'en', quietHours: { start: '23:00', end: '06:30' } }).expect(200);
    expect(later.body.data).toMatchObject({ whatsapp: true, minScore: 60, digest: true, digestHour: 6, timeZone: 'Europe/Lisbon', language: 'en', quietHours: { start: '23:00', end: '06:30' } });
    for (const bad of [{ timeZone: 'Mars/Olympus' }, { language: 'fr' }, { digestHour: 24 }, { quietHours: { start: '25:00', end: '06:00' } }, { quietHours: { start: '06:00' } }]) {
      const refused = await u.send('patch', '/notifications', bad).expect(400);
      expect(refused.body).toMatchObject({ success: false });
    }
    expect((await u.send('patch', '/notifications', { quietHours: null }).expect(200)).body.data).toMatchObject({ timeZone: 'Europe/Lisbon', quietHours: null });
    const r = await u.send('patch', '/relevance', { watchlistMultiplier: 3, recencyDecayHours: 48 }).expect(200);
    expect(r.body.data).toMatchObject({ watchlistMultiplier: 3, recencyDecayHours: 48, sectorMultiplier: 1 });
    await u.send('patch', '/relevance', { recencyDecayHours: 0 }).expect(400);
    await u.send('patch', '/notifications', { minScore: 101 }).expect(400);
    await u.send('patch', '/notifications', {}).expect(400);
    await u.send('patch', '/notifications', { sms: true }).expect(400);
    expect((await u.get()).body.data.notificationSettings.minScore).toBe(60);
  });

  it('reads settings stored before the digest, time zone, language and quiet hours existed with their defaults, and edits them one by one', async () => {
    const u = await as();
    await svc.deps.mongo.conn.db!.collection('user_preferences').insertOne({
      _id: u.userId as never, sectors: ['FIN'], sectorWeights: { FIN: 1 }, topics: [], topicWeights: {}, watchlistCompanies: [], watchlistTickers: [], keywords: [], keywordWeights: {},
      notificationSettings: { email: false, push: false, whatsapp: true, breakingOnly: true, minScore: 40 }, relevanceSettings: {}, updatedAt: new Date(),
    });
    expect((await u.get().expect(200)).body.data.notificationSettings).toEqual({ email: false, push: false, whatsapp: true, breakingOnly: true, minScore: 40, digest: false, digestHour: 7, timeZone: 'America/Sao_Paulo', language: 'pt', quietHours: null });
    expect((await u.send('patch', '/notifications', { digest: true }).expect(200)).body.data).toMatchObject({ whatsapp: true, minScore: 40, digest: true, digestHour: 7 });
  });

  it('replaces the whole document: defaults for what is absent, weights only for what is followed', async () => {
    const u = await as();
    await u.send('post', '/keywords', { keyword: 'dividendos' }).expect(200);
    const res = await u
      .send('put', '', { sectors: ['TEC', 'TEC', 'FIN'], sectorWeights: { TEC: 5, AGR: 2 }, watchlistTickers: ['vale3'], relevanceSettings: { recencyDecayEnabled: false } })
      .expect(200);
    expect(res.body.data).toMatchObject({
      sectors: ['TEC', 'FIN'],
      sectorWeights: { TEC: 5, FIN: 1 },
      watchlistTickers: ['VALE3'],
      keywords: [],
      notificationSettings: { whatsapp: false },
      relevanceSettings: { recencyDecayEnabled: false, recencyDecayHours: 24 },
    });
    await u.send('put', '', { sectors: ['NOPE'] }).expect(400);
    expect((await u.get()).body.data.sectors).toEqual(['TEC', 'FIN']);
  });

  it('needs a valid API key', async () => {
    const res = await request(svc.callback).get('/api/users/preferences').expect(401);
    expect(res.body.error).toMatch(/POST \/api\/keys/);
  });
});
