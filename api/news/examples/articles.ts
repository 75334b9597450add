/**
 * Worked examples of the News API's article, entity and administration routes (articles, entities,
 * imports, sources, re-enrichment): the day's news of a Brazilian financial newsletter, with the
 * include modules a Pro key gets. Ids are those the code makes: a source `randomUUID()`; an import
 * or a re-enrichment sent with an Idempotency-Key (as the code samples send them)
 * `uuidFromRequestKey`; an article from a feed item `articleIdForItem(feedItemIdFor(source, guid))`;
 * a catalogue entity `entityIdFor('company:PETR4')` (ops/news-corpus.ts); an accepted candidate's
 * entity `entityIdForCandidate(key)`. Each fixture is typed against the view it illustrates.
 */
import type { z } from 'zod';
import type { ImportLine } from '../../../models/news/ingest.rules';
import type { ArticleView, CandidateView, EntityView, FeedArticleView, ImportView, ReenrichmentView, SourceView } from '../contracts';

type Article = z.input<typeof ArticleView>;

// ---- Ids ----------------------------------------------------------------------------------------

/** Sources (randomUUID). */
export const INFOMONEY_SOURCE_ID = 'b52e3d00-91fa-45e4-82f1-0e86a4648643';
export const AGENCIA_BRASIL_SOURCE_ID = '283fc3fa-7343-458d-b31b-fab3d4da412a';
export const MONEY_TIMES_SOURCE_ID = 'bfd3d9dd-77eb-45ad-a2c5-eb1a8c5a41d4';

/** Articles InfoMoney's feed brought (the id derives from the source and the item's guid). */
export const PETROBRAS_PLAN_ARTICLE_ID = 'f36a470c-424f-5ac0-a9f7-64678a7eb00f';
export const ITAU_JCP_ARTICLE_ID = '8c715b24-a532-5cc8-99b7-4d2ef49a8900';
export const PETROBRAS_EARNINGS_ARTICLE_ID = '9698b91f-56a0-52fd-bdb8-8fd9ea268cc3';
export const BC_AUCTION_ARTICLE_ID = '87b0ff5b-31cc-5090-82c4-c41f1da1d6b0';

/** Catalogue entities (ops/news-corpus.ts entityIdFor). */
export const PETROBRAS_ENTITY_ID = '98734bad-09cd-560f-96b7-3699843fa2fe';
export const ITAU_ENTITY_ID = 'e2a907a3-2d1a-5547-b962-b2976615ca95';
export const TESOURO_ENTITY_ID = '86f45806-10d4-578d-92e0-badb025a0eb1';

export const IMPORT_ID = 'dfa966c7-b719-8054-8161-380e58b179fe';
export const REENRICHMENT_ID = '495aa5df-e5ca-86da-ac79-b9c3d77ad177';
/** The administrator who started the re-enrichment (a user id as sign-in makes it). */
const EDITOR_USER_ID = 'usr_em_6be3261629e5f8348373762b';

// ---- Articles -----------------------------------------------------------------------------------

/** Petrobras' 2027-2031 business plan (24 Nov 2026, evening): the article of the examples. */
const petrobrasPlan = {
  id: PETROBRAS_PLAN_ARTICLE_ID,
  sourceName: 'InfoMoney',
  title: 'Petrobras prevê investimentos de US$ 109 bilhões no plano de negócios 2027-2031',
  subtitle: 'Estatal mantém a política de dividendos e amplia aportes em exploração na Margem Equatorial',
  summary:
    'A Petrobras aprovou nesta terça-feira (24) o plano de negócios 2027-2031, com investimentos de US$ 109 bilhões, 2% acima do plano anterior. ' +
    'A estatal manteve o pagamento de 45% do fluxo de caixa livre em dividendos, receita com que o Tesouro Nacional conta para a meta fiscal de 2027.',
  publishedAt: '2026-11-24T21:47:12.000Z',
  primarySector: 'ENE',
  primaryTopic: 'GUIDANCE',
  contentType: 'NEWS',
  urgencyLevel: 'HIGH',
  isBreaking: false,
  language: 'pt',
  alsoReportedBy: [{ sourceName: 'Agência Brasil', url: 'https://agenciabrasil.ebc.com.br/economia/noticia/2026-11/petrobras-preve-investir-us-109-bilhoes-ate-2031' }],
} satisfies Article;

const petrobrasPlanSentiment = { sentimentScore: 0.46, sentimentLabel: 'POSITIVO', sentimentConfidence: 0.83 } satisfies Partial<Article>;
const petrobrasPlanEntities = {
  entities: [
    { entityId: PETROBRAS_ENTITY_ID, entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 2, prominenceScore: 0.96, isInTitle: true, sentiment: 0.48 },
    { entityId: TESOURO_ENTITY_ID, entityType: 'INSTITUTION', canonicalName: 'Tesouro Nacional', mentionCount: 1, prominenceScore: 0.22, isInTitle: false, sentiment: 0.3 },
  ],
} satisfies Partial<Article>;

/** Petrobras' third-quarter results (6 Nov 2026): the older Petrobras article of the lists. */
const petrobrasEarnings = {
  id: PETROBRAS_EARNINGS_ARTICLE_ID,
  sourceName: 'InfoMoney',
  title: 'Petrobras lucra R$ 32,5 bilhões no terceiro trimestre e aprova R$ 9,1 bilhões em dividendos',
  subtitle: 'Remuneração equivale a R$ 0,70 por ação; produção de petróleo cresce 11% na comparação anual',
  summary: 'A Petrobras registrou lucro líquido de R$ 32,5 bilhões entre julho e setembro, alta de 14% sobre o mesmo período de 2025, e aprovou R$ 9,1 bilhões em dividendos e juros sobre capital próprio.',
  publishedAt: '2026-11-06T22:05:33.000Z',
  primarySector: 'ENE',
  primaryTopic: 'EARN',
  contentType: 'NEWS',
  urgencyLevel: 'HIGH',
  isBreaking: false,
  language: 'pt',
  alsoReportedBy: [],
} satisfies Article;

const petrobrasEarningsSentiment = { sentimentScore: 0.52, sentimentLabel: 'POSITIVO', sentimentConfidence: 0.86 } satisfies Partial<Article>;
const petrobrasEarningsEntities = {
  entities: [{ entityId: PETROBRAS_ENTITY_ID, entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 2, prominenceScore: 0.97, isInTitle: true, sentiment: 0.55 }],
} satisfies Partial<Article>;

/**
 * The article as listed with include=sentiment,market_impact,entities (a Pro key): GET /api/articles
 * and GET /api/articles/{id} answer the same article.
 */
export const articleExample = {
  ...petrobrasPlan,
  ...petrobrasPlanSentiment,
  marketImpact: { level: 'MEDIUM', horizon: 'MEDIUM_TERM', scope: 'COMPANY', confidence: 0.74, affectedTickers: ['PETR4', 'PETR3'] },
  ...petrobrasPlanEntities,
} satisfies Article;

/** The same article read alone with include=sentiment,entities,translations,scoring. */
export const articleDetailExample = {
  ...petrobrasPlan,
  ...petrobrasPlanSentiment,
  ...petrobrasPlanEntities,
  translations: {
    pt: { title: petrobrasPlan.title, subtitle: petrobrasPlan.subtitle, summary: petrobrasPlan.summary },
    en: {
      title: 'Petrobras plans US$ 109 billion in investments in its 2027-2031 business plan',
      subtitle: 'The state-controlled company keeps its dividend policy and raises exploration spending in the Equatorial Margin',
      summary:
        'Petrobras approved on Tuesday (24) its 2027-2031 business plan, with US$ 109 billion in investments, 2% more than the previous plan. ' +
        'It keeps paying out 45% of free cash flow as dividends, income the National Treasury counts on for the 2027 fiscal target.',
    },
  },
  scoring: { relevance: 88, credibility: 90, depth: 72, timeliness: 94, originality: 61, overall: 82 },
} satisfies Article;

/** Itaú's interest on equity and buyback (24 Nov 2026), listed after the Petrobras article. */
export const itauArticleExample = {
  id: ITAU_JCP_ARTICLE_ID,
  sourceName: 'InfoMoney',
  title: 'Itaú aprova R$ 3,2 bilhões em juros sobre capital próprio e amplia recompra de ações',
  subtitle: 'Pagamento de R$ 0,30 por ação ITUB4 sai em 30 de dezembro; banco poderá recomprar até 75 milhões de papéis',
  summary: 'O conselho do Itaú Unibanco aprovou juros sobre capital próprio de R$ 3,2 bilhões e um novo programa de recompra de até 75 milhões de ações preferenciais. Analistas veem retorno total ao acionista acima de 9% em 2026.',
  publishedAt: '2026-11-24T20:31:40.000Z',
  primarySector: 'FIN',
  primaryTopic: 'DIV',
  contentType: 'NEWS',
  urgencyLevel: 'MEDIUM',
  isBreaking: false,
  language: 'pt',
  alsoReportedBy: [],
  sentimentScore: 0.64,
  sentimentLabel: 'MUITO_POSITIVO',
  sentimentConfidence: 0.88,
  marketImpact: { level: 'LOW', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.69, affectedTickers: ['ITUB4', 'ITUB3'] },
  entities: [{ entityId: ITAU_ENTITY_ID, entityType: 'COMPANY', canonicalName: 'Itaú Unibanco', ticker: 'ITUB4', mentionCount: 2, prominenceScore: 0.93, isInTitle: true, sentiment: 0.62 }],
} satisfies Article;

/** The energy sector's newest articles with include=sentiment. */
export const energyArticlesExample = [
  { ...petrobrasPlan, ...petrobrasPlanSentiment },
  { ...petrobrasEarnings, ...petrobrasEarningsSentiment },
] satisfies Article[];

/** Search for "petrobras dividendos", no module: the results (dividends in its title ranks the earnings first). */
export const searchArticlesExample = [petrobrasEarnings, petrobrasPlan] satisfies Article[];

/** Petrobras' articles with include=entities. */
export const entityArticlesExample = [
  { ...petrobrasPlan, ...petrobrasPlanEntities },
  { ...petrobrasEarnings, ...petrobrasEarningsEntities },
] satisfies Article[];

/** The Central Bank's extraordinary dollar auction: breaking news, with include=sentiment,market_impact. */
export const breakingArticleExample = {
  id: BC_AUCTION_ARTICLE_ID,
  sourceName: 'InfoMoney',
  title: 'Banco Central anuncia leilão extraordinário de até US$ 3 bilhões após dólar passar de R$ 5,90',
  subtitle: 'Venda no mercado à vista começa às 14h30; Ibovespa recua 1,8%',
  summary: 'O Banco Central vai vender até US$ 3 bilhões no mercado à vista depois que o dólar subiu 2,1% pela manhã, com dúvidas sobre o cumprimento da meta fiscal de 2027. É a primeira intervenção extraordinária desde março.',
  publishedAt: '2026-11-24T17:12:48.000Z',
  primarySector: 'FIN',
  primaryTopic: 'MACRO',
  contentType: 'BREAKING',
  urgencyLevel: 'CRITICAL',
  isBreaking: true,
  language: 'pt',
  alsoReportedBy: [{ sourceName: 'Agência Brasil', url: 'https://agenciabrasil.ebc.com.br/economia/noticia/2026-11/banco-central-anuncia-leilao-de-ate-us-3-bilhoes' }],
  sentimentScore: -0.58,
  sentimentLabel: 'NEGATIVO',
  sentimentConfidence: 0.79,
  marketImpact: { level: 'HIGH', horizon: 'INTRADAY', scope: 'MARKET', confidence: 0.81, affectedTickers: ['VALE3', 'SUZB3', 'EMBR3'] },
} satisfies Article;

/**
 * The feed of a reader who follows energy (weight 2), the keyword "dividendos" (1.5) and PETR4,
 * read at 2026-11-25T09:15:00Z with include=sentiment: the default multipliers (watchlist 1.5) and
 * a 24-hour half-life, (2 + 1.5 + 3 + 0.82) × 2^(−11.46 / 24) ≈ 5.2569.
 */
export const feedItemExample = {
  ...petrobrasPlan,
  ...petrobrasPlanSentiment,
  feedScore: 5.2569,
  feedReasons: [
    { type: 'sector', value: 'ENE', weight: 2, multiplier: 1, points: 2 },
    { type: 'keyword', value: 'dividendos', weight: 1.5, multiplier: 1, points: 1.5 },
    { type: 'watchlist_ticker', value: 'PETR4', multiplier: 1.5, points: 3 },
    { type: 'quality', value: 82, points: 0.82 },
    { type: 'recency', ageHours: 11.5, halfLifeHours: 24, factor: 0.7182 },
  ],
} satisfies z.input<typeof FeedArticleView>;

// ---- Entities -----------------------------------------------------------------------------------

export const petrobrasEntityExample = {
  id: PETROBRAS_ENTITY_ID,
  entityType: 'COMPANY',
  canonicalName: 'Petrobras',
  aliases: ['Petróleo Brasileiro', 'Petrobrás'],
  ticker: 'PETR4',
  cnpj: '33.000.167/0001-01',
  createdAt: '2026-11-03T12:00:00.000Z',
} satisfies z.input<typeof EntityView>;

// ---- News sources -------------------------------------------------------------------------------

/** InfoMoney's feed, healthy. */
export const infoMoneySourceExample = {
  id: INFOMONEY_SOURCE_ID,
  name: 'InfoMoney',
  feedUrl: 'https://www.infomoney.com.br/feed/',
  tier: 1,
  language: 'pt',
  defaultSector: null,
  pollIntervalMinutes: 5,
  enabled: true,
  state: 'ok',
  health: {
    lastPollAt: '2026-11-24T15:05:02.000Z',
    lastSuccessAt: '2026-11-24T15:05:02.000Z',
    lastError: null,
    lastErrorAt: null,
    consecutiveFailures: 0,
    itemsSeen: 4_912,
    articlesCreated: 3_115,
    nextPollAt: '2026-11-24T15:10:02.000Z',
  },
  workflowId: `news-source-${INFOMONEY_SOURCE_ID}`,
  createdAt: '2026-11-03T14:20:00.000Z',
  updatedAt: '2026-11-03T14:20:00.000Z',
} satisfies z.input<typeof SourceView>;

/** Agência Brasil's economy feed as POST /api/admin/sources creates it: never polled yet. */
export const agenciaBrasilNewSourceExample = {
  id: AGENCIA_BRASIL_SOURCE_ID,
  name: 'Agência Brasil',
  feedUrl: 'https://agenciabrasil.ebc.com.br/rss/economia/feed.xml',
  tier: 1,
  language: 'pt',
  defaultSector: null,
  pollIntervalMinutes: 10,
  enabled: true,
  state: 'new',
  health: { lastPollAt: null, lastSuccessAt: null, lastError: null, lastErrorAt: null, consecutiveFailures: 0, itemsSeen: 0, articlesCreated: 0, nextPollAt: null },
  workflowId: `news-source-${AGENCIA_BRASIL_SOURCE_ID}`,
  createdAt: '2026-11-24T10:02:11.000Z',
  updatedAt: '2026-11-24T10:02:11.000Z',
} satisfies z.input<typeof SourceView>;

/** The same source five hours later, in the list. */
export const agenciaBrasilSourceExample = {
  ...agenciaBrasilNewSourceExample,
  state: 'ok',
  health: {
    lastPollAt: '2026-11-24T15:02:40.000Z',
    lastSuccessAt: '2026-11-24T15:02:40.000Z',
    lastError: null,
    lastErrorAt: null,
    consecutiveFailures: 0,
    itemsSeen: 37,
    articlesCreated: 5,
    nextPollAt: '2026-11-24T15:12:40.000Z',
  },
} satisfies z.input<typeof SourceView>;

/** Money Times' feed, backed off after two answers of 503 with Retry-After. */
export const moneyTimesSourceExample = {
  id: MONEY_TIMES_SOURCE_ID,
  name: 'Money Times',
  feedUrl: 'https://www.moneytimes.com.br/feed/',
  tier: 2,
  language: 'pt',
  defaultSector: null,
  pollIntervalMinutes: 5,
  enabled: true,
  state: 'backing-off',
  health: {
    lastPollAt: '2026-11-24T14:51:19.000Z',
    lastSuccessAt: '2026-11-24T14:38:55.000Z',
    lastError: 'HTTP 503, retry after 600 s: https://www.moneytimes.com.br/feed/',
    lastErrorAt: '2026-11-24T14:51:19.000Z',
    consecutiveFailures: 2,
    itemsSeen: 3_960,
    articlesCreated: 1_208,
    nextPollAt: '2026-11-24T15:01:19.000Z',
  },
  workflowId: `news-source-${MONEY_TIMES_SOURCE_ID}`,
  createdAt: '2026-11-05T09:30:00.000Z',
  updatedAt: '2026-11-05T09:30:00.000Z',
} satisfies z.input<typeof SourceView>;

// ---- Entity curation queue ----------------------------------------------------------------------

/** Brava Energia, found by the model in 14 articles: its id is its folded name. */
export const bravaCandidateExample = {
  id: 'brava energia',
  name: 'Brava Energia',
  entityType: 'COMPANY',
  ticker: 'BRAV3',
  cnpj: null,
  mentions: 14,
  articleIds: ['8c904dd1-7bb7-5f6c-9ed0-a96c411fe2b2', 'cdcab16e-a786-50dd-8a70-7fdf5b1314e9'],
  state: 'open',
  entityId: null,
  firstSeenAt: '2026-11-12T13:40:09.000Z',
  lastSeenAt: '2026-11-24T15:22:31.000Z',
} satisfies z.input<typeof CandidateView>;

export const margemEquatorialCandidateExample = {
  id: 'margem equatorial',
  name: 'Margem Equatorial',
  entityType: 'LOCATION',
  ticker: null,
  cnpj: null,
  mentions: 9,
  articleIds: [PETROBRAS_PLAN_ARTICLE_ID, '635f48d8-2690-55b7-b29a-d35fd4daf4c9'],
  state: 'open',
  entityId: null,
  firstSeenAt: '2026-11-09T18:02:44.000Z',
  lastSeenAt: '2026-11-24T21:49:03.000Z',
} satisfies z.input<typeof CandidateView>;

/** "Petrobras Distribuidora", the old name of Vibra Energia: dismissed, so it does not come back. */
export const dismissedCandidateExample = {
  id: 'petrobras distribuidora',
  name: 'Petrobras Distribuidora',
  entityType: 'COMPANY',
  ticker: null,
  cnpj: null,
  mentions: 3,
  articleIds: ['cdcab16e-a786-50dd-8a70-7fdf5b1314e9'],
  state: 'dismissed',
  entityId: null,
  firstSeenAt: '2026-11-18T11:07:52.000Z',
  lastSeenAt: '2026-11-21T16:45:10.000Z',
} satisfies z.input<typeof CandidateView>;

// ---- Imports ------------------------------------------------------------------------------------

/** Two lines of an import: one with its modules and a ticker to link, one to be enriched by the model. */
const importLines = [
  {
    title: 'Vale anuncia investimento de R$ 70 bilhões em Minas Gerais até 2030',
    subtitle: 'Recursos vão para a expansão de minas de minério de ferro e para a descaracterização de barragens',
    summary: 'A Vale detalhou nesta quarta-feira (18) investimentos de R$ 70 bilhões em Minas Gerais até 2030. A mineradora prevê gerar 12 mil empregos diretos no período.',
    sourceName: 'Agência Brasil',
    sourceUrl: 'https://agenciabrasil.ebc.com.br/economia/noticia/2026-11/vale-anuncia-investimento-de-r-70-bilhoes-em-minas-gerais',
    publishedAt: '2026-11-18T14:05:00-03:00',
    primarySector: 'MAT',
    primaryTopic: 'GUIDANCE',
    urgencyLevel: 'MEDIUM',
    modules: { sentiment: { score: 0.41, label: 'POSITIVO', confidence: 0.8 } },
    entities: [{ ticker: 'VALE3', mentionCount: 3 }],
  },
  {
    title: 'IPCA-15 desacelera para 0,21% em novembro, abaixo do esperado',
    sourceName: 'InfoMoney',
    sourceUrl: 'https://www.infomoney.com.br/economia/ipca-15-desacelera-em-novembro-2026/',
    publishedAt: '2026-11-25T12:04:00Z',
    primarySector: 'GOV',
    primaryTopic: 'MACRO',
    enrich: true,
  },
] satisfies z.input<typeof ImportLine>[];

/** The body of POST /api/admin/articles/import: JSON lines. */
export const importBodyExample = `${importLines.map((line) => JSON.stringify(line)).join('\n')}\n`;

/** The import just queued (202). */
export const importQueuedExample = {
  id: IMPORT_ID,
  state: 'queued',
  source: 'api',
  bytes: Buffer.byteLength(importBodyExample, 'utf8'),
  linesDone: 0,
  inserted: 0,
  duplicates: 0,
  invalid: 0,
  unlinkedMentions: 0,
  errors: [],
  error: null,
  createdAt: '2026-11-26T10:14:03.000Z',
  startedAt: null,
  finishedAt: null,
  statusUrl: `/api/admin/imports/${IMPORT_ID}`,
} satisfies z.input<typeof ImportView>;

/** The same import done: the IPCA-15 article was in already (InfoMoney's feed brought it). */
export const importCompletedExample = {
  ...importQueuedExample,
  state: 'completed',
  linesDone: 2,
  inserted: 1,
  duplicates: 1,
  startedAt: '2026-11-26T10:14:04.210Z',
  finishedAt: '2026-11-26T10:14:06.874Z',
} satisfies z.input<typeof ImportView>;

// ---- Re-enrichment ------------------------------------------------------------------------------

/** Energy articles of November not enriched with the current prompt version. */
export const reenrichmentFilterExample = { sector: 'ENE', from: '2026-11-01T03:00:00.000Z', promptVersionNot: 'enrich-2026-11-25.1' } satisfies z.input<typeof ReenrichmentView>['filter'];

/** The operation just started (202). */
export const reenrichmentStartedExample = {
  id: REENRICHMENT_ID,
  state: 'running',
  filter: reenrichmentFilterExample,
  promptVersion: 'enrich-2026-11-25.1',
  total: 318,
  done: 0,
  failed: 0,
  gone: 0,
  waiting: 0,
  resumeAt: null,
  errors: [],
  error: null,
  workflowId: `news-reenrich-${REENRICHMENT_ID}`,
  createdBy: EDITOR_USER_ID,
  createdAt: '2026-11-26T13:05:41.000Z',
  finishedAt: null,
  statusUrl: `/api/admin/enrichments/${REENRICHMENT_ID}`,
} satisfies z.input<typeof ReenrichmentView>;

/** The same operation twenty minutes on. */
export const reenrichmentProgressExample = {
  ...reenrichmentStartedExample,
  done: 142,
  failed: 1,
  errors: [{ articleId: '635f48d8-2690-55b7-b29a-d35fd4daf4c9', error: "the model's enrichment was refused 3 times: urgencyLevel: required" }],
} satisfies z.input<typeof ReenrichmentView>;
