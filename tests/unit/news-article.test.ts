import { MODULE_SCHEMAS, parseInclude, presentArticle, sentimentLabel, urgencyRank, type ArticleDoc } from '../../models/news/article.rules';

const article: ArticleDoc = {
  _id: '7f9c2a4e-3b1d-4c5e-8f6a-1b2c3d4e5f60',
  sourceName: 'Valor Econômico',
  sourceUrl: 'https://valor.example/petrobras-dividendos',
  title: 'Petrobras aprova R$ 20 bilhões em dividendos',
  subtitle: 'Pagamento sai em dezembro',
  summary: 'Conselho aprovou a distribuição.',
  publishedAt: new Date('2026-11-20T13:00:00Z'),
  primarySector: 'ENE',
  primaryTopic: 'DIV',
  contentType: 'NEWS',
  urgencyLevel: 'HIGH',
  isBreaking: false,
  isExclusive: false,
  language: 'pt',
  baseScore: 81,
  entityIds: ['e1'],
  tickers: ['PETR4'],
  createdAt: new Date('2026-11-20T13:01:00Z'),
  sourceKey: 'https://valor.example/petrobras-dividendos',
  urgencyRank: 3,
  relevance: 490_000,
  search: { title: 'petrobra aprova 20 bilhoe dividendo', subtitle: 'pagamento sai dezembro', summary: 'conselho aprovou distribuicao' },
  terms: ['petrobra', 'aprova', '20', 'bilhoe', 'dividendo', 'pagamento', 'sai', 'dezembro', 'conselho', 'aprovou', 'distribuicao'],
  modules: {
    sentiment: { score: 0.7, label: 'MUITO_POSITIVO', confidence: 0.9 },
    market_impact: { level: 'HIGH', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.8, affectedTickers: ['PETR4'] },
    entities: [{ entityId: 'e1', entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 3, prominenceScore: 0.95, isInTitle: true, sentiment: 0.6 }],
    translations: { pt: { title: 'Petrobras aprova…', subtitle: null, summary: null }, en: { title: 'Petrobras approves…', subtitle: null, summary: null } },
    scoring: { relevance: 90, credibility: 85, depth: 70, timeliness: 88, originality: 72, overall: 81 },
    classification: { secondarySectors: ['FIN'], secondaryTopics: ['EARN'], keywords: ['dividendos'] },
    meta: { sourceTier: 1, paywall: true, wordCount: 640, readingTimeMinutes: 3 },
  },
};

describe('include modules', () => {
  it('accepts the modules of the plan, deduplicated', () => {
    expect(parseInclude('translations, meta,meta', 'starter')).toEqual({ modules: ['translations', 'meta'] });
    expect(parseInclude(undefined, 'starter')).toEqual({ modules: [] });
    expect(parseInclude('sentiment,scoring', 'pro')).toEqual({ modules: ['sentiment', 'scoring'] });
  });

  it('names unknown modules', () => {
    expect(parseInclude('sentiment,emotions,x', 'business')).toEqual({ problem: { kind: 'unknown', modules: ['emotions', 'x'] } });
  });

  it('names the first module above the plan and the plan that has it', () => {
    expect(parseInclude('meta,sentiment', 'starter')).toEqual({ problem: { kind: 'plan', module: 'sentiment', plan: 'starter', requiredPlan: 'pro' } });
  });
});

describe('presenting an article', () => {
  it('returns base fields only, unless modules are asked for', () => {
    const base = presentArticle(article, []);
    expect(base).toEqual({
      id: article._id,
      sourceName: 'Valor Econômico',
      title: article.title,
      subtitle: article.subtitle,
      summary: article.summary,
      publishedAt: '2026-11-20T13:00:00.000Z',
      primarySector: 'ENE',
      primaryTopic: 'DIV',
      contentType: 'NEWS',
      urgencyLevel: 'HIGH',
      isBreaking: false,
      language: 'pt',
      alsoReportedBy: [],
    });
  });

  it('adds exactly the fields of the requested modules', () => {
    const out = presentArticle(article, ['sentiment', 'entities', 'market_impact']);
    expect(out).toMatchObject({ sentimentScore: 0.7, sentimentLabel: 'MUITO_POSITIVO', sentimentConfidence: 0.9, marketImpact: article.modules.market_impact });
    expect(out.entities).toEqual([expect.objectContaining({ entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 3, prominenceScore: 0.95, isInTitle: true })]);
    expect(out).not.toHaveProperty('scoring');
    expect(presentArticle(article, ['scoring']).scoring).toEqual(article.modules.scoring);
  });

  it('every stored module matches its documented field set', () => {
    for (const [name, schema] of Object.entries(MODULE_SCHEMAS)) {
      expect(schema.safeParse(article.modules[name as keyof typeof article.modules]).success).toBe(true);
    }
    expect(MODULE_SCHEMAS.sentiment.safeParse({ score: 1.5, label: 'NEUTRO', confidence: 1 }).success).toBe(false);
  });
});

describe('labels and ranks', () => {
  it.each([
    [-1, 'MUITO_NEGATIVO'],
    [-0.3, 'NEGATIVO'],
    [0, 'NEUTRO'],
    [0.3, 'POSITIVO'],
    [0.95, 'MUITO_POSITIVO'],
  ] as const)('sentiment %s is %s', (score, label) => {
    expect(sentimentLabel(score)).toBe(label);
  });

  it('ranks urgency CRITICAL > HIGH > MEDIUM > LOW', () => {
    expect(urgencyRank('CRITICAL')).toBeGreaterThan(urgencyRank('HIGH'));
    expect(urgencyRank('HIGH')).toBeGreaterThan(urgencyRank('MEDIUM'));
    expect(urgencyRank('MEDIUM')).toBeGreaterThan(urgencyRank('LOW'));
  });
});
