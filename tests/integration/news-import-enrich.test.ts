/**
 * An imported line may ask to be enriched (issue 25): on the shared stack, because imports run on
 * the shared worker (the MinIO client's download to a file does not work inside Jest's module
 * sandbox, so an in-process import worker is not an option). Its articles are removed afterwards:
 * other files count every article of the shared database.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { collectionOf } from '../../models/infra/mongo';
import { startNewsService, type NewsService } from '../helpers/news';
import { tokenFor } from '../helpers/service';
import { until } from '../helpers/time-skipping';

jest.setTimeout(120_000);

let svc: NewsService;
let admin: string;
const urls: string[] = [];
const api = () => request(svc.callback);
const articles = () => collectionOf<{ _id: string; sourceUrl: string; primarySector: string; enrichment?: { state: string } }>(svc.deps.mongo.conn, 'articles');

beforeAll(async () => {
  svc = await startNewsService();
  admin = `Bearer ${await tokenFor('news-import-enrich-admin', ['news.admin'])}`;
});
afterAll(async () => {
  await articles().deleteMany({ sourceUrl: { $in: urls } }).catch(() => undefined);
  await svc?.close();
});

describe('imports', () => {
  it('an imported line without modules may ask to be enriched: its article is stored at once, then enriched', async () => {
    const url = `https://imports.example.test/${randomUUID()}`;
    urls.push(url, `${url}-plain`);
    const line = {
      title: 'Petrobras anuncia dividendos extraordinários de R$ 20 bilhões',
      summary: 'A Petrobras aprovou o pagamento de dividendos extraordinários aos acionistas, acima do esperado pelo mercado.',
      sourceName: 'Importação',
      sourceUrl: url,
      publishedAt: new Date().toISOString(),
      primarySector: 'FIN',
      primaryTopic: 'MACRO',
      enrich: true,
    };
    const plain = { ...line, sourceUrl: `${url}-plain`, enrich: undefined };
    const res = await api()
      .post('/api/admin/articles/import')
      .set('Authorization', admin)
      .set('Content-Type', 'application/x-ndjson')
      .send(`${JSON.stringify(line)}\n${JSON.stringify(plain)}\n`)
      .expect(202);
    const importId = res.body.data.id as string;
    const done = await until(() => svc.deps.imports.get(importId), (d) => d?.state === 'completed');
    expect(done!.inserted).toBe(2);
    const enriched = await until(() => articles().findOne({ sourceUrl: url }), (a) => a?.enrichment?.state === 'enriched');
    // The model's sector replaces the one the line gave (the double files Petrobras under energy).
    expect(enriched).toMatchObject({ primarySector: 'ENE', enrichment: { state: 'enriched' } });
    expect((await articles().findOne({ sourceUrl: `${url}-plain` }))?.enrichment).toBeUndefined();
  });
});
