/**
 * `npm run cli -- migrate` on articles stored by an earlier release (before the indexed queries),
 * in a database of its own: derived fields filled, indexes brought to the schema's, the old index
 * and URL register collections dropped; a second run changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { loadConfig } from '../../models/config';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';
import { createArticleQueries } from '../../models/news/article-query';
import { createArticleRepo } from '../../models/news/article.repo';
import { articleIdFor, buildArticle, buildDictionary, derivedKeys, ImportLine } from '../../models/news/ingest.rules';
import { runTs } from '../helpers/processes';

const DB = `news_migrate_${randomUUID().slice(0, 8)}`;
let mongo: MongoHandle;
let conn: Connection;

/** An article as earlier releases stored it: without the derived fields. */
function oldArticle(i: number, title: string) {
  const { doc } = buildArticle(
    articleIdFor('old-import', i),
    ImportLine.parse({ title, sourceName: 'Antigo', sourceUrl: `https://antigo.example/${i}/?utm_source=x`, publishedAt: `2026-11-${String(10 + i).padStart(2, '0')}T10:00:00Z`, primarySector: 'FIN', primaryTopic: 'DIV' }),
    buildDictionary([]),
    new Date(),
  );
  const { sourceKey: _k, urgencyRank: _u, relevance: _r, search: _s, terms: _t, ...old } = doc;
  return { doc, old };
}

beforeAll(async () => {
  mongo = connectMongo(loadConfig());
  conn = (await mongo.ready).useDb(DB, { useCache: true });
});
afterAll(async () => {
  await conn?.db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

it('upgrades articles of an earlier release, and a second run changes nothing', async () => {
  const db = conn.db!;
  const articles = [oldArticle(1, 'Ações da Petrobrás sobem'), oldArticle(2, 'Vale anuncia dividendos'), oldArticle(3, 'Petrobras paga dividendos')];
  await db.collection('articles').insertMany(articles.map((a) => a.old) as never[]);
  await db.collection('articles').createIndex({ sourceUrl: 1 }, { unique: true });
  // The text index search used until it ranked a window of ordered matches (issue 23).
  await db.collection('articles').createIndex({ 'search.title': 'text', 'search.subtitle': 'text', 'search.summary': 'text' }, { name: 'search', default_language: 'none' });
  await db.collection('article_urls').insertOne({ _id: 'x' as never, url: 'https://antigo.example/1', articleId: articles[0]!.doc._id });
  await db.collection('article_index').insertOne({ _id: 'h|all|publishedAt' as never, count: 3 });

  // Before the migration an import cannot store articles, and says what to do.
  const repo = createArticleRepo(conn);
  const fresh = oldArticle(4, 'Nota nova').doc;
  await expect(repo.insertNew([fresh])).rejects.toThrow('npm run cli -- migrate');

  const first = await runTs('ops/cli.ts', ['migrate'], { ...process.env, MONGODB_DB: DB });
  // Its output too: a failure seen twice in full runs (exit 1) did not say why.
  expect({ code: first.code, stderr: first.code === 0 ? '' : first.stderr }).toEqual({ code: 0, stderr: '' });
  const summary = JSON.parse(first.lastLine).articles;
  // No support data in this database: nothing to upgrade there (support-reports.test checks the upgrade).
  expect(JSON.parse(first.lastLine).support).toEqual({ messages: 0, events: 0, orphans: 0, firstReplies: 0 });
  expect(summary.filled).toBe(3);
  expect(summary.droppedIndexes).toEqual(expect.arrayContaining(['sourceUrl_1', 'search']));
  expect(summary.droppedCollections.sort()).toEqual(['article_index', 'article_urls']);

  for (const { doc } of articles) expect(await db.collection('articles').findOne({ _id: doc._id as never })).toMatchObject(derivedKeys(doc));
  const names = (await db.collection('articles').indexes()).map((i) => i.name);
  expect(names).toEqual(expect.arrayContaining(['sourceKey_1', 'terms_1_publishedAt_-1__id_-1', 'primarySector_1_publishedAt_-1__id_-1']));
  expect(names).not.toContain('sourceUrl_1');
  expect(names).not.toContain('search');

  // Lists and search work on the upgraded articles.
  const queries = createArticleQueries(conn);
  expect((await queries.search('petrobras dividendos', {}, { limit: 10, offset: 0 })).docs.map((d) => d._id)).toEqual([articles[2]!.doc._id]);
  expect((await queries.list({ sector: 'FIN' }, 'publishedAt', { limit: 10, offset: 0 })).docs.map((d) => d._id)).toEqual(articles.map((a) => a.doc._id).reverse());

  // The same process imports once the migration has run (a retried activity needs no restart).
  expect(await repo.insertNew([fresh])).toEqual({ inserted: 1, duplicates: 0, insertedIds: [fresh._id] });
  expect(await repo.insertNew([{ ...oldArticle(5, 'Outra').doc, sourceKey: articles[0]!.doc.sourceKey }])).toEqual({ inserted: 0, duplicates: 1, insertedIds: [] });

  const second = await runTs('ops/cli.ts', ['migrate'], { ...process.env, MONGODB_DB: DB });
  expect(second.code).toBe(0);
  expect(JSON.parse(second.lastLine).articles).toEqual({ filled: 0, droppedIndexes: [], droppedCollections: [] });
});
