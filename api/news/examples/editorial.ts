/**
 * Worked examples of the news editors' routes (editorial.routes.ts): InfoMoney's articles of 24
 * November 2026 in the pipeline (one waiting for the day's token budget, one whose enrichment
 * failed, the Petrobras plan of the other examples enriched, then hidden, then corrected), the
 * catalogue's Petrobras, and a candidate added as an alias of Itaú Unibanco. Ids are those the code
 * makes (examples/articles.ts says how). Each fixture is typed against the view it illustrates.
 */
import type { z } from 'zod';
import type { CandidateView, CorrectionBody, EditorialArticleDetailView, EditorialArticleView, EntityView } from '../contracts';
import { articleDetailExample, articleExample, INFOMONEY_SOURCE_ID, ITAU_ENTITY_ID, PETROBRAS_ENTITY_ID, PETROBRAS_PLAN_ARTICLE_ID, petrobrasEntityExample, TESOURO_ENTITY_ID } from './articles';

export { ITAU_ENTITY_ID, PETROBRAS_ENTITY_ID, PETROBRAS_PLAN_ARTICLE_ID };

type Row = z.input<typeof EditorialArticleView>;

/** Items of InfoMoney's feed (articleIdForItem(feedItemIdFor(source, guid))). */
export const WAITING_ITEM_ARTICLE_ID = 'a5e5c92b-1cc0-540c-b49a-b43cbe79ef22';
export const FAILED_ITEM_ARTICLE_ID = 'd151c236-4371-5aa1-a90e-8ee8c2f22632';

/** The editor who hid and corrected the article (a user id as sign-in makes it). */
const EDITOR = 'usr_em_6be3261629e5f8348373762b';

/** Seen at 23:05, not enriched yet: the day's token budget ran out at 22:58 UTC. */
export const waitingItemExample = {
  id: WAITING_ITEM_ARTICLE_ID,
  title: 'Vale conclui venda de fatia em unidade de metais básicos para fundo saudita',
  sourceName: 'InfoMoney',
  sourceId: INFOMONEY_SOURCE_ID,
  url: 'https://www.infomoney.com.br/mercados/vale-conclui-venda-de-fatia-em-metais-basicos/',
  publishedAt: '2026-11-24T23:04:51.000Z',
  state: 'waiting-budget',
  visible: false,
  reason: 'waiting for the daily enrichment budget',
  primarySector: null,
  primaryTopic: null,
  isBreaking: null,
  enrichment: null,
  hidden: null,
  corrected: null,
  workflowId: `news-enrich-${WAITING_ITEM_ARTICLE_ID}`,
} satisfies Row;

/** The model's three answers broke the format: the item stays unpublished until it is enriched again. */
export const failedItemExample = {
  ...waitingItemExample,
  id: FAILED_ITEM_ARTICLE_ID,
  title: 'Copom: ata reforça cautela e mercado vê Selic estável até março',
  url: 'https://www.infomoney.com.br/economia/ata-do-copom-novembro-2026/',
  publishedAt: '2026-11-24T22:10:05.000Z',
  state: 'failed',
  reason: "the model's enrichment was refused 3 times: classification.primaryTopic: Invalid option: expected one of \"M&A\"|\"IPO\"|\"REG\"|\"DIV\"|\"EARN\"|\"MACRO\"|\"RATES\"|\"DEBT\"|\"BUYBACK\"|\"GUIDANCE\"|\"LEGAL\"|\"ESG\"|\"LABOR\"|\"CONTRACT\"|\"PRODUCT\"|\"MGMT\"",
  workflowId: `news-enrich-${FAILED_ITEM_ARTICLE_ID}`,
} satisfies Row;

const enrichment = {
  state: 'enriched',
  promptVersion: 'enrich-2026-11-25.1',
  model: 'gpt-4o-mini',
  attempts: 1,
  promptTokens: 2_841,
  completionTokens: 1_163,
  costUsd: 0.00112395,
  at: '2026-11-24T21:48:40.512Z',
  error: null,
} as const;

/** The Petrobras plan of the other examples: published, enriched by the model. */
export const visibleArticleExample = {
  id: PETROBRAS_PLAN_ARTICLE_ID,
  title: articleExample.title,
  sourceName: 'InfoMoney',
  sourceId: INFOMONEY_SOURCE_ID,
  url: 'https://www.infomoney.com.br/negocios/petrobras-plano-de-negocios-2027-2031/',
  publishedAt: articleExample.publishedAt,
  state: 'enriched',
  visible: true,
  reason: null,
  primarySector: 'ENE',
  primaryTopic: 'GUIDANCE',
  isBreaking: false,
  enrichment,
  hidden: null,
  corrected: null,
  workflowId: `news-enrich-${PETROBRAS_PLAN_ARTICLE_ID}`,
} satisfies Row;

/** GET /api/admin/articles?limit=3: the newest three, whatever their state. */
export const editorialListExample = [waitingItemExample, failedItemExample, visibleArticleExample] satisfies Row[];

const hiddenReason = 'Plano ainda não divulgado oficialmente: a matéria cita um rascunho';

/** The same article hidden by an editor. */
export const hiddenArticleExample = {
  ...visibleArticleExample,
  state: 'hidden',
  visible: false,
  reason: hiddenReason,
  hidden: { at: '2026-11-24T22:31:07.000Z', by: EDITOR, reason: hiddenReason },
} satisfies Row;

/** The editor's labels: the plan came in line with expectations (neutral), and it is about public finances too. */
export const correctionBodyExample = {
  primarySector: 'ENE',
  primaryTopic: 'GUIDANCE',
  secondarySectors: ['GOV'],
  sentimentLabel: 'NEUTRO',
  sentimentScore: 0.12,
  entities: [{ entityId: PETROBRAS_ENTITY_ID, sentiment: 0.1 }, { entityId: TESOURO_ENTITY_ID }],
  note: 'O plano veio em linha com o esperado; o mercado reagiu de forma neutra',
} satisfies z.input<typeof CorrectionBody>;

const CORRECTED_AT = '2026-11-25T09:41:22.000Z';
/** The entities the model linked (the article's entities module). */
const petrobras = { entityId: PETROBRAS_ENTITY_ID, entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 2, prominenceScore: 0.96, isInTitle: true, sentiment: 0.48 } as const;
const tesouro = { entityId: TESOURO_ENTITY_ID, entityType: 'INSTITUTION', canonicalName: 'Tesouro Nacional', mentionCount: 1, prominenceScore: 0.22, isInTitle: false, sentiment: 0.3 } as const;

/** The article after the correction: the labels over the model's output, which is kept beside them. */
export const correctedArticleExample = {
  ...visibleArticleExample,
  corrected: { at: CORRECTED_AT, by: EDITOR },
  article: {
    ...articleExample,
    ...articleDetailExample,
    sentimentScore: 0.12,
    sentimentLabel: 'NEUTRO',
    sentimentConfidence: 1,
    entities: [{ ...petrobras, sentiment: 0.1 }, tesouro],
    classification: { secondarySectors: ['GOV'], secondaryTopics: ['DIV'], keywords: ['Petrobras', 'plano de negócios', 'investimentos', 'dividendos', 'Margem Equatorial'] },
    meta: { sourceTier: 1, paywall: false, wordCount: 812, readingTimeMinutes: 5 },
  },
  correction: {
    by: EDITOR,
    at: CORRECTED_AT,
    note: correctionBodyExample.note,
    labels: {
      primarySector: 'ENE',
      primaryTopic: 'GUIDANCE',
      secondarySectors: ['GOV'],
      secondaryTopics: null,
      sentimentLabel: 'NEUTRO',
      sentimentScore: 0.12,
      entities: [
        { entityId: PETROBRAS_ENTITY_ID, entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', sentiment: 0.1 },
        { entityId: TESOURO_ENTITY_ID, entityType: 'INSTITUTION', canonicalName: 'Tesouro Nacional', ticker: null, sentiment: null },
      ],
    },
    model: {
      primarySector: 'ENE',
      primaryTopic: 'GUIDANCE',
      secondarySectors: [],
      secondaryTopics: ['DIV'],
      sentiment: { score: 0.46, label: 'POSITIVO', confidence: 0.83 },
      entities: [petrobras, tesouro],
    },
  },
} satisfies z.input<typeof EditorialArticleDetailView>;

// ---- The catalogue ------------------------------------------------------------------------------

/** GET /api/admin/entities?q=petro */
export const catalogueExample = [petrobrasEntityExample] satisfies z.input<typeof EntityView>[];

/** Petrobras with its registered name as an alias (the CNPJ sent as digits is stored formatted). */
export const petrobrasPatchedExample = {
  ...petrobrasEntityExample,
  aliases: ['Petróleo Brasileiro', 'Petrobrás', 'Petróleo Brasileiro S.A.'],
  cnpj: '33.000.167/0001-01',
} satisfies z.input<typeof EntityView>;

/** "Banco Itaú", found by the model in 6 articles: another name of Itaú Unibanco. */
export const aliasedCandidateExample = {
  id: 'banco itau',
  name: 'Banco Itaú',
  entityType: 'COMPANY',
  ticker: null,
  cnpj: null,
  mentions: 6,
  articleIds: ['8c715b24-a532-5cc8-99b7-4d2ef49a8900'],
  state: 'aliased',
  entityId: ITAU_ENTITY_ID,
  firstSeenAt: '2026-11-19T12:03:44.000Z',
  lastSeenAt: '2026-11-24T20:33:02.000Z',
} satisfies z.input<typeof CandidateView>;
