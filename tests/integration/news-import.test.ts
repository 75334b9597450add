/**
 * Article inserts as imports make them, side by side, on a database of their own: the unique
 * index on the normalised source URL decides duplicates, a repeated batch counts the same and
 * stores nothing twice (models/news/article.repo.ts insertNew).
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { loadConfig } from '../../models/config';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';
import { createArticleRepo, type ArticleRepo } from '../../models/news/article.repo';
import { articleIdFor, buildArticle, buildDictionary, ImportLine } from '../../models/news/ingest.rules';

let mongo: MongoHandle;
let conn: Connection;
let repo: ArticleRepo;
const dict = buildDictionary([]);

/** Articles of one import: line n holds https://example.test/n (or the URL given for it). */
const importOf = (importId: string, urls: string[]) =>
  urls.map(
    (url, i) =>
      buildArticle(
        articleIdFor(importId, i + 1),
        ImportLine.parse({ title: `Nota ${i}`, sourceName: 'Teste', sourceUrl: url, publishedAt: '2026-11-20T10:00:00Z', primarySector: 'FIN', primaryTopic: 'DIV' }),
        dict,
        new Date(),
      ).doc,
  );
const urls = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `https://example.test/${from + i}`);

beforeAll(async () => {
  mongo = connectMongo(loadConfig());
  conn = (await mongo.ready).useDb(`news_import_${randomUUID().slice(0, 8)}`, { useCache: true });
  repo = createArticleRepo(conn);
});
afterAll(async () => {
  await conn?.db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

it('stores each URL once when two imports overlap, and counts the rest as duplicates', async () => {
  const a = importOf('import-a', urls(0, 300));
  const b = importOf('import-b', urls(200, 500));
  const [ra, rb] = await Promise.all([repo.insertNew(a), repo.insertNew(b)]);
  expect(ra.inserted + rb.inserted).toBe(500);
  expect(ra.duplicates + rb.duplicates).toBe(100);
  expect(ra.inserted + ra.duplicates).toBe(300);
  expect(new Set([...ra.insertedIds, ...rb.insertedIds]).size).toBe(500);
  expect(await repo.count()).toBe(500);
});

it('counts a repeated batch as it did the first time, storing nothing twice', async () => {
  const c = importOf('import-c', [...urls(600, 650), 'https://example.test/0']);
  // The last URL is import-a's: a duplicate. A second attempt counts its own inserts as inserted.
  const ours = c.slice(0, 50).map((x) => x._id);
  expect(await repo.insertNew(c)).toEqual({ inserted: 50, duplicates: 1, insertedIds: ours });
  expect(await repo.insertNew(c)).toEqual({ inserted: 50, duplicates: 1, insertedIds: ours });
  expect(await repo.count()).toBe(550);
});

it('takes a URL spelled differently in the same batch as the same page', async () => {
  const d = importOf('import-d', ['https://example.test/700', 'HTTPS://EXAMPLE.test/700/?utm_source=x#top']);
  expect(await repo.insertNew(d)).toEqual({ inserted: 1, duplicates: 1, insertedIds: [d[0]!._id] });
  expect((await repo.findByIds([d[1]!._id, d[0]!._id])).map((x) => x._id)).toEqual([d[0]!._id]);
});
