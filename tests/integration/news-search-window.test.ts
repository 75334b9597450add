/**
 * Search ranks a window of its newest matches by match quality and lists the older ones after them,
 * newest first (article-query.ts). With a window of 10 over 25 matching articles: every page, the
 * one across the window's edge included, is that order; totals and hasMore are exact; articles
 * missing a word never appear.
 */
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { loadConfig } from '../../models/config';
import { buildIndexesRacing } from '../../models/infra/mongo';
import { articleModel } from '../../models/news/article.model';
import { createArticleQueries } from '../../models/news/article-query';
import { searchCopy, terms } from '../../models/news/text.rules';

const WINDOW = 10;
const now = Date.UTC(2026, 10, 20, 12);
let conn: Connection;

/** Article i, published i hours ago; where "cobre" appears decides its quality. */
function article(i: number, title: string, summary: string) {
  const publishedAt = new Date(now - i * 3_600_000);
  return {
    _id: `a-${String(i).padStart(2, '0')}`, sourceName: 'Fonte', sourceUrl: `https://fonte.example/${i}`, sourceKey: `fonte.example/${i}`,
    title, subtitle: null, summary, publishedAt, primarySector: i % 2 ? 'MIN' : 'FIN', primaryTopic: 'MARKETS', contentType: 'NEWS',
    urgencyLevel: 'LOW', urgencyRank: 1, isBreaking: false, isExclusive: false, language: 'pt', baseScore: 50, relevance: 0, modules: {},
    entityIds: [], tickers: [], search: { title: searchCopy(title), subtitle: '', summary: searchCopy(summary) },
    terms: terms(`${title} ${summary}`), createdAt: publishedAt,
  };
}

// 0–29: "preço" everywhere; "cobre" in the title of every third article, in the summary of the
// others, and missing from 5 of them (25 match "cobre preço").
const docs = Array.from({ length: 30 }, (_, i) =>
  i % 6 === 5 ? article(i, `Preço do níquel ${i}`, 'Mercado') : i % 3 === 0 ? article(i, `Cobre: preço ${i}`, 'Mercado') : article(i, `Preço em alta ${i}`, 'O cobre sobe'),
);
const matching = docs.filter((_, i) => i % 6 !== 5);
const inTitle = (d: (typeof docs)[number]) => d.search.title.split(' ').includes('cobre');
// The expected order: the 10 newest matches by quality (title first), each group newest first; then the rest newest first.
const expected = [...matching.slice(0, WINDOW).filter(inTitle), ...matching.slice(0, WINDOW).filter((d) => !inTitle(d)), ...matching.slice(WINDOW)].map((d) => d._id);

beforeAll(async () => {
  conn = await mongoose.createConnection(loadConfig().mongo.uri!, { dbName: `search_${randomUUID().slice(0, 8)}` }).asPromise();
  const Articles = articleModel(conn);
  // As the product builds them: other test files' builds can deadlock with this one on the development database.
  await buildIndexesRacing(() => Articles.createIndexes());
  await Articles.collection.insertMany(docs as never[]);
});
afterAll(async () => {
  await conn?.dropDatabase().catch(() => undefined);
  await conn?.close();
});

it('ranks the newest matches by quality, then lists older ones newest first, on every page', async () => {
  const q = createArticleQueries(conn, undefined, { searchWindow: WINDOW });
  const seen: string[] = [];
  for (let offset = 0; offset < 30; offset += 4) {
    const page = await q.search('cobre preço', {}, { offset, limit: 4 });
    expect(page.total).toBe(25);
    expect(page.hasMore).toBe(offset + 4 < 25);
    seen.push(...page.docs.map((d) => d._id));
  }
  expect(seen).toEqual(expected);
  // A page across the window's edge, and one wholly beyond it.
  expect((await q.search('preço cobre', {}, { offset: 8, limit: 5 })).docs.map((d) => d._id)).toEqual(expected.slice(8, 13));
  expect((await q.search('cobre', {}, { offset: 20, limit: 10 })).docs.map((d) => d._id)).toEqual(expected.slice(20, 25));
});

it('ranks within the filters, and finds nothing for a word no article holds', async () => {
  const q = createArticleQueries(conn, undefined, { searchWindow: WINDOW });
  const fin = matching.filter((d) => d.primarySector === 'FIN');
  const page = await q.search('cobre', { sector: 'FIN' }, { offset: 0, limit: 20 });
  expect(page.total).toBe(fin.length);
  const window = fin.slice(0, WINDOW);
  expect(page.docs.map((d) => d._id)).toEqual([...window.filter(inTitle), ...window.filter((d) => !inTitle(d)), ...fin.slice(WINDOW)].map((d) => d._id));
  expect(await q.search('cobre ouro', {}, { offset: 0, limit: 20 })).toMatchObject({ docs: [], total: 0, hasMore: false });
});
