/** Entities: list filters, pagination edges, one entity, and the read:entities scope. */
import { randomInt, randomUUID } from 'node:crypto';
import type { EntityDoc } from '../../models/news/entity.model';
import { fold } from '../../models/news/text.rules';
import { accountWithKey, startNewsService, withKey, type NewsService } from '../helpers/news';

let svc: NewsService;
let key: string;
// A ticker of this run alone, so other tests' entities never show up in these lists.
const letters = () => Array.from({ length: 4 }, () => String.fromCharCode(65 + randomInt(26))).join('');
const ticker = `${letters()}3`;
const ids: string[] = [];

beforeAll(async () => {
  svc = await startNewsService();
  key = (await accountWithKey(svc, 'starter', { mode: 'test', scopes: ['read:entities'] })).key;
  const docs: EntityDoc[] = ['Alfa', 'Beta', 'Gama', 'Delta', 'Épsilon'].map((name, i) => ({
    _id: randomUUID(),
    entityType: i === 4 ? 'TICKER' : 'COMPANY',
    canonicalName: `${name} ${ticker}`,
    aliases: [`${name} S.A.`],
    ticker,
    cnpj: i === 4 ? null : `11.222.333/000${i}-81`,
    nameKeys: [fold(name)],
    createdAt: new Date('2026-11-01T00:00:00Z'),
  }));
  await svc.deps.entities.insertMany(docs);
  ids.push(...docs.map((d) => d._id));
});
afterAll(() => svc?.close());

describe('GET /api/entities', () => {
  it('lists by name with the spec pagination; hasMore is exact at the boundary', async () => {
    const all = await withKey(svc, key, `/api/entities?ticker=${ticker}&limit=5`).expect(200);
    expect(all.body.data.map((e: { canonicalName: string }) => e.canonicalName)).toEqual(['Alfa', 'Beta', 'Delta', 'Gama', 'Épsilon'].map((n) => `${n} ${ticker}`));
    expect(all.body.pagination).toEqual({ limit: 5, offset: 0, total: 5, hasMore: false });
    expect((await withKey(svc, key, `/api/entities?ticker=${ticker}&limit=4`).expect(200)).body.pagination).toEqual({ limit: 4, offset: 0, total: 5, hasMore: true });
    const last = await withKey(svc, key, `/api/entities?ticker=${ticker}&limit=1&offset=4`).expect(200);
    expect(last.body.pagination.hasMore).toBe(false);
    expect(last.body.data).toHaveLength(1);
    const beyond = await withKey(svc, key, `/api/entities?ticker=${ticker}&offset=5`).expect(200);
    expect(beyond.body).toMatchObject({ data: [], pagination: { limit: 20, offset: 5, total: 5, hasMore: false } });
  });

  it('filters by type and by ticker (any case)', async () => {
    const res = await withKey(svc, key, `/api/entities?ticker=${ticker.toLowerCase()}&type=TICKER`).expect(200);
    expect(res.body.data).toEqual([expect.objectContaining({ entityType: 'TICKER', ticker, cnpj: null })]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=abc', 'limit'],
    ['type=CITY', 'type'],
  ])('rejects %s with 400 naming the parameter', async (qs, param) => {
    const res = await withKey(svc, key, `/api/entities?${qs}`).expect(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: `query.${param}` })]));
  });
});

describe('GET /api/entities/{id}', () => {
  it('returns the entity in the shape of spec §2.3', async () => {
    const res = await withKey(svc, key, `/api/entities/${ids[0]}`).expect(200);
    expect(res.body.data).toEqual({ id: ids[0], entityType: 'COMPANY', canonicalName: `Alfa ${ticker}`, aliases: ['Alfa S.A.'], ticker, cnpj: '11.222.333/0000-81', createdAt: '2026-11-01T00:00:00.000Z' });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    await withKey(svc, key, `/api/entities/${randomUUID()}`).expect(404);
    await withKey(svc, key, '/api/entities/42').expect(400);
  });
});

describe('scopes', () => {
  it('answers 403 to a key without read:entities, naming the scope; * holds every scope', async () => {
    const articlesOnly = await accountWithKey(svc, 'business', { scopes: ['read:articles'] });
    const res = await withKey(svc, articlesOnly.key, '/api/entities').expect(403);
    expect(res.body).toMatchObject({ success: false, statusCode: 403, error: expect.stringContaining('read:entities') });
    const star = await accountWithKey(svc, 'starter', { scopes: ['*'] });
    await withKey(svc, star.key, `/api/entities/${ids[1]}`).expect(200);
  });
});
