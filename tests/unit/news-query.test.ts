import { articleFilter, feedScore, matchQuality, type Scored } from '../../models/news/article-query.rules';
import { relevanceOf } from '../../models/news/article.rules';
import { feedPerList, presented } from '../../models/news/article-query';
import { defaultPreferences, Preferences } from '../../models/news/preferences.rules';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-21T12:00:00Z');
const article = (over: Partial<Scored> = {}): Scored => ({
  _id: '00000000-0000-4000-8000-000000000001',
  publishedAt: NOW,
  baseScore: 50,
  primarySector: 'FIN',
  primaryTopic: 'DIV',
  isBreaking: false,
  isExclusive: false,
  ...over,
});

describe('list filters', () => {
  it('asks for every filter given, on the stored field names, and nothing else', () => {
    expect(articleFilter({})).toEqual({});
    const from = new Date('2026-11-01T00:00:00Z');
    const to = new Date('2026-11-20T00:00:00Z');
    expect(
      articleFilter({ sector: 'FIN', topic: 'DIV', entity: 'e1', ticker: 'PETR4', isBreaking: false, language: 'pt', urgencyLevel: 'HIGH', contentType: 'NEWS', from, to }),
    ).toEqual({
      primarySector: 'FIN',
      primaryTopic: 'DIV',
      entityIds: 'e1',
      tickers: 'PETR4',
      isBreaking: false,
      language: 'pt',
      urgencyLevel: 'HIGH',
      contentType: 'NEWS',
      publishedAt: { $gte: from, $lte: to },
    });
  });

  it('reads `since` as strictly after, alongside `from`', () => {
    const since = new Date('2026-11-10T00:00:00Z');
    const from = new Date('2026-11-01T00:00:00Z');
    expect(articleFilter({ isBreaking: true, since, from })).toEqual({ isBreaking: true, publishedAt: { $gte: from, $gt: since } });
  });
});

describe('relevance', () => {
  it('lets a recent good article beat a better one from two days ago, and never reorders two articles as time passes', () => {
    const recent80 = relevanceOf(new Date(NOW.getTime() - 2 * HOUR), 80);
    const old95 = relevanceOf(new Date(NOW.getTime() - 48 * HOUR), 95);
    expect(recent80).toBeGreaterThan(old95);
    // 100 points are worth 24 hours: equal relevance a day apart.
    expect(relevanceOf(new Date(NOW.getTime() - 24 * HOUR), 100)).toBeCloseTo(relevanceOf(NOW, 0), 9);
  });
});

describe('feed score', () => {
  it('adds weights × multipliers and quality, times breaking, with every reason', () => {
    const prefs = Preferences.parse({
      sectors: ['FIN'],
      sectorWeights: { FIN: 3 },
      keywords: ['dividendos'],
      relevanceSettings: { sectorMultiplier: 2, keywordMultiplier: 1, watchlistMultiplier: 1.5, breakingNewsMultiplier: 2, recencyDecayEnabled: false },
    });
    const { score, reasons } = feedScore(article({ baseScore: 80, isBreaking: true }), { keywords: ['dividendos'], companies: [], tickers: ['PETR4'] }, prefs, NOW);
    // (3×2 + 1×1 + 2×1.5 + 0.8) × 2
    expect(score).toBeCloseTo((6 + 1 + 3 + 0.8) * 2, 6);
    expect(reasons.map((r) => r.type)).toEqual(['sector', 'keyword', 'watchlist_ticker', 'quality', 'breaking']);
    expect(reasons).toContainEqual({ type: 'quality', value: 80, points: 0.8 });
  });

  it('halves the score every recencyDecayHours when decay is on', () => {
    const prefs = { ...defaultPreferences(), relevanceSettings: { ...defaultPreferences().relevanceSettings, recencyDecayEnabled: true, recencyDecayHours: 10 } };
    const match = { keywords: [], companies: [], tickers: [] };
    const fresh = feedScore(article(), match, prefs, NOW);
    const older = feedScore(article({ publishedAt: new Date(NOW.getTime() - 10 * HOUR) }), match, prefs, NOW);
    expect(older.score).toBeCloseTo(fresh.score / 2, 3);
    expect(older.reasons.at(-1)).toEqual({ type: 'recency', ageHours: 10, halfLifeHours: 10, factor: 0.5 });
  });
});

describe('search match quality', () => {
  const search = { title: 'acao petrobras sobe', subtitle: 'dividendo recorde', summary: 'petrobras anuncia dividendo acao' };
  it('counts each query term 3 in the title, 2 in the subtitle, 1 in the summary', () => {
    expect(matchQuality(search, ['petrobras'])).toBe(3 + 1);
    expect(matchQuality(search, ['dividendo'])).toBe(2 + 1);
    expect(matchQuality(search, ['petrobras', 'dividendo'])).toBe(4 + 3);
    expect(matchQuality(search, ['ausente'])).toBe(0);
  });
  it('matches whole stems, not parts of words', () => {
    expect(matchQuality(search, ['petro'])).toBe(0);
    expect(matchQuality({ title: '', subtitle: '', summary: '' }, ['acao'])).toBe(0);
  });
});

describe('feed candidates', () => {
  it('reads 40 of each list, fewer when much is followed (about 500 in all), never under 10', () => {
    expect(feedPerList(1)).toBe(40);
    expect(feedPerList(12)).toBe(40);
    expect(feedPerList(20)).toBe(25);
    expect(feedPerList(250)).toBe(10);
    expect(feedPerList(0)).toBe(40);
  });
});

describe('what a page read leaves out', () => {
  it('drops the search copies, the terms and every module not presented; reads all when the modules are not known', () => {
    expect(presented(undefined)).toBeUndefined();
    const none = presented([])!;
    expect(Object.keys(none).sort()).toEqual(['modules.classification', 'modules.entities', 'modules.market_impact', 'modules.meta', 'modules.scoring', 'modules.sentiment', 'modules.translations', 'search', 'terms']);
    const some = presented(['sentiment', 'entities'])!;
    expect(some).not.toHaveProperty(['modules.sentiment']);
    expect(some).not.toHaveProperty(['modules.entities']);
    expect(some).toMatchObject({ 'modules.translations': 0, search: 0, terms: 0 });
  });
});
