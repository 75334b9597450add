/**
 * The news event log's publish points with fakes (issue 40): enrichment appends an article's event
 * when it publishes it and again (idempotently) when a retry finds it inserted but its item not
 * yet marked published; re-enrichment appends nothing; an import appends its fresh articles only.
 */
import { writeFileSync } from 'node:fs';
import type { LlmClient } from '../../models/infra/llm';
import type { Storage } from '../../models/infra/storage';
import type { ArticleDoc } from '../../models/news/article.rules';
import type { ModelEnrichment } from '../../models/news/enrichment.rules';
import type { ImportDoc } from '../../models/news/import.repo';
import type { FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { enrichArticle, type EnrichDeps } from '../../operations/news/enrich-article';
import { runImport, type IngestDeps } from '../../operations/news/ingest';
import { eventArticle } from '../helpers/events';

const NOW = new Date();
const answer: ModelEnrichment = {
  classification: { primarySector: 'FIN', secondarySectors: [], primaryTopic: 'EARN', topics: [], contentType: 'BREAKING', urgencyLevel: 'HIGH', isBreaking: true },
  sentiment: { score: 0.2, label: 'POSITIVO', confidence: 0.9 },
  marketImpact: { level: 'LOW', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.5, affectedTickers: [] },
  entities: [],
  translations: { pt: { title: 't', subtitle: null, summary: null }, en: { title: 't', subtitle: null, summary: null } },
  scores: { relevance: 50, credibility: 50, depth: 50, timeliness: 50, originality: 50 },
  keywords: [],
};

const llm: LlmClient = {
  configured: true,
  complete: async () => ({ content: JSON.stringify(answer), toolCalls: [], usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, finishReason: 'stop', model: 'gpt-4o-mini' }),
  // eslint-disable-next-line require-yield
  async *stream() {
    throw new Error('not used');
  },
};

const ARTICLE_ID = '00000000-0000-4000-8000-000000000001';

function itemOf(state: FeedItemDoc['state']): FeedItemDoc {
  return {
    _id: 'item-1',
    sourceId: 'source-1',
    guid: 'g',
    url: 'https://events.example/item-1',
    title: 'Banco anuncia resultado',
    summary: 'Resumo.',
    feedPublishedAt: NOW,
    seenAt: NOW,
    articleId: ARTICLE_ID,
    state,
    page: null,
    urlKey: null,
    simBands: [],
    signature: null,
    sameAs: null,
    alsoReportedBy: [],
    error: null,
    updatedAt: NOW,
  };
}

/** Enrichment over an item (and maybe its article, already inserted); records what reached the log and the item. */
function enrichment(item: FeedItemDoc | null, article: ArticleDoc | null) {
  const appended: ArticleDoc[][] = [];
  const itemStates: string[] = [];
  let stored = article;
  const deps: EnrichDeps = {
    articles: {
      findById: async () => stored,
      markEnrichment: async () => undefined,
      applyEnrichment: async () => true,
      insertNew: async (docs) => {
        stored = docs[0]!;
        return { inserted: 1, duplicates: 0, insertedIds: [docs[0]!._id] };
      },
      bySourceKey: async () => null,
      addReport: async () => undefined,
    },
    feedItems: {
      byArticle: async () => item,
      set: async (_id, fields) => {
        if (fields.state) itemStates.push(`${fields.state} after ${appended.length} append(s)`);
      },
      get: async () => item,
    },
    sources: { get: async () => null, countArticle: async () => undefined },
    enrichmentUsage: { reserve: async () => true, settle: async () => undefined },
    entityCandidates: { mention: async () => undefined },
    llm,
    leases: { acquire: async () => ({ release: async () => undefined, renew: async () => true }) },
    config: { news: { enrichment: { model: 'gpt-4o-mini', dailyTokens: 1_000_000, concurrency: 1, maxInputTokens: 4_000, maxOutputTokens: 1_000 } } } as EnrichDeps['config'],
    catalogue: async () => ({ dictionary: { byName: new Map(), byTicker: new Map() } as never, byCnpj: new Map() }),
    events: {
      appendArticles: async (docs) => {
        appended.push([...docs]);
        return docs.map((d, i) => ({ articleId: d._id, seq: i + 1, appended: true }));
      },
    },
    now: () => NOW,
  };
  return { deps, appended, itemStates };
}

describe('enrichment', () => {
  it('appends the event of the article it publishes, before the item is marked published', async () => {
    const { deps, appended, itemStates } = enrichment(itemOf('extracted'), null);
    expect(await enrichArticle(deps, ARTICLE_ID)).toMatchObject({ state: 'enriched', published: true, isBreaking: true });
    expect(appended).toHaveLength(1);
    expect(appended[0]!.map((a) => [a._id, a.isBreaking, a.primarySector])).toEqual([[ARTICLE_ID, true, 'FIN']]);
    expect(itemStates).toEqual(['published after 1 append(s)']);
  });

  it('appends it on a retry that finds the article inserted and the item not yet published', async () => {
    const inserted = eventArticle({ _id: ARTICLE_ID, isBreaking: true });
    const { deps, appended } = enrichment(itemOf('extracted'), inserted);
    expect(await enrichArticle(deps, ARTICLE_ID)).toMatchObject({ state: 'enriched', published: false });
    expect(appended.map((docs) => docs.map((a) => a._id))).toEqual([[ARTICLE_ID]]);
  });

  it('appends nothing when it enriches again an article already published, or an imported one', async () => {
    const inserted = eventArticle({ _id: ARTICLE_ID });
    for (const item of [itemOf('published'), null]) {
      const { deps, appended } = enrichment(item, inserted);
      expect(await enrichArticle(deps, ARTICLE_ID)).toMatchObject({ state: 'enriched', published: false });
      expect(appended).toEqual([]);
    }
  });
});

describe('imports', () => {
  it('appends the articles published within the last 24 hours that it inserted, and no archive', async () => {
    const line = (n: number, hoursAgo: number, isBreaking = false) =>
      JSON.stringify({
        title: `Notícia ${n}`,
        sourceName: 'Fixture',
        sourceUrl: `https://import.example/${n}`,
        publishedAt: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
        primarySector: 'FIN',
        primaryTopic: 'EARN',
        isBreaking,
      });
    const text = [line(1, 1), line(2, 30), line(3, 23, true), line(4, 2)].join('\n');
    const record = { _id: 'import-1', state: 'queued', objectKey: 'k', errors: [], linesDone: 0, startedAt: null } as unknown as ImportDoc;
    const appended: string[] = [];
    const deps: IngestDeps = {
      imports: { get: async () => record, start: async () => undefined, progress: async () => undefined, finish: async () => undefined } as unknown as IngestDeps['imports'],
      // Line 4's URL is stored already (another article's): a duplicate, not an event.
      articles: { insertNew: async (docs) => ({ inserted: 3, duplicates: 1, insertedIds: docs.filter((d) => d.title !== 'Notícia 4').map((d) => d._id) }) },
      events: {
        appendArticles: async (docs) => {
          appended.push(...docs.map((d) => d.title));
          return [];
        },
      },
      dictionary: async () => ({ byName: new Map(), byTicker: new Map() }) as never,
      storage: { bucket: 'b', client: { fGetObject: async (_b: string, _k: string, file: string) => writeFileSync(file, text) } } as unknown as Storage,
    };
    await runImport(deps, 'import-1');
    expect(appended).toEqual(['Notícia 1', 'Notícia 3']);
  });
});
