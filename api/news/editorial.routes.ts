/**
 * The news editors' part of the staff console (issue 38), for administrators (permission
 * news.admin): articles by pipeline state (pending, waiting for the budget, failed and why,
 * enriched, imported, hidden), one of them, hiding and unhiding one, correcting its enrichment;
 * the entity catalogue (a list to pick from, changing an entity's aliases, ticker or CNPJ) and
 * adding a curation candidate as an alias of an entity. The sources, imports, re-enrichment and
 * the rest of the curation queue are in sources.routes.ts, imports.routes.ts and reenrich.routes.ts.
 */
import { actorOf } from '../../models/auth/token.rules';
import { z } from 'zod';
import { presentArticle, type ArticleDoc, type EnrichmentRecord } from '../../models/news/article.rules';
import { articleState, itemState, WAITING_NOTE } from '../../models/news/editorial.rules';
import type { EntityDoc } from '../../models/news/entity.model';
import { paginate, PaginationView } from '../../models/news/pagination.rules';
import { INCLUDE_MODULES } from '../../models/shared/plan.rules';
import { changeEntity, listCatalogue } from '../../operations/news/catalogue';
import { correctArticle } from '../../operations/news/correction';
import { editorialArticle, hideArticle, listEditorial, unhideArticle, type EditorialEntry } from '../../operations/news/editorial';
import { aliasCandidate } from '../../operations/news/entity-candidates';
import { workflowIds } from '../../workflows/ids';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import {
  ArticleIdParams,
  CandidateAliasBody,
  CandidateIdParams,
  CandidateView,
  CatalogueQuery,
  CorrectionBody,
  type CorrectionView,
  EditorialArticleDetailView,
  EditorialArticleView,
  EditorialListQuery,
  type EnrichmentRecordView,
  EntityIdParams,
  EntityPatchBody,
  EntityView,
  HideArticleBody,
} from './contracts';
import type { NewsDeps } from './deps';
import { presentCandidate } from './sources.routes';
import {
  aliasedCandidateExample,
  catalogueExample,
  correctionBodyExample,
  correctedArticleExample,
  editorialListExample,
  failedItemExample,
  FAILED_ITEM_ARTICLE_ID,
  hiddenArticleExample,
  ITAU_ENTITY_ID,
  PETROBRAS_ENTITY_ID,
  PETROBRAS_PLAN_ARTICLE_ID,
  petrobrasPatchedExample,
  visibleArticleExample,
} from './examples/editorial';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

function presentEnrichment(e: EnrichmentRecord | undefined): z.input<typeof EnrichmentRecordView> | null {
  if (!e) return null;
  // A mark of waiting or failure on an article never enriched holds its state, time and error alone.
  return {
    state: e.state,
    promptVersion: e.promptVersion ?? null,
    model: e.model ?? null,
    attempts: e.attempts ?? 0,
    promptTokens: e.promptTokens ?? 0,
    completionTokens: e.completionTokens ?? 0,
    costUsd: e.costUsd ?? 0,
    at: e.at.toISOString(),
    error: e.error ?? null,
  };
}

/** Why an article is where it is, when something went wrong or waits. */
function reasonOf(doc: ArticleDoc): string | null {
  if (doc.enrichment?.state === 'waiting-budget') return WAITING_NOTE;
  if (doc.enrichment?.state === 'failed') return doc.enrichment.error ?? null;
  return null;
}

function presentDoc(doc: ArticleDoc): Omit<z.input<typeof EditorialArticleView>, 'state' | 'visible' | 'hidden'> {
  return {
    id: doc._id,
    title: doc.title,
    sourceName: doc.sourceName,
    sourceId: doc.sourceId ?? null,
    url: clip(doc.sourceUrl, 2_048),
    publishedAt: doc.publishedAt.toISOString(),
    reason: reasonOf(doc),
    primarySector: doc.primarySector,
    primaryTopic: doc.primaryTopic,
    isBreaking: doc.isBreaking,
    enrichment: presentEnrichment(doc.enrichment),
    corrected: doc.correction ? { at: doc.correction.at.toISOString(), by: doc.correction.by } : null,
    workflowId: workflowIds.newsEnrich(doc._id),
  };
}

export function presentEntry(entry: EditorialEntry): z.input<typeof EditorialArticleView> {
  switch (entry.kind) {
    case 'article':
      return { ...presentDoc(entry.doc), state: articleState(entry.doc), visible: true, hidden: null };
    case 'hidden': {
      const h = entry.doc.hidden;
      return { ...presentDoc(entry.doc), state: 'hidden', visible: false, reason: h.reason, hidden: { at: h.at.toISOString(), by: h.by, reason: h.reason } };
    }
    case 'item': {
      const { item } = entry;
      return {
        id: item.articleId,
        title: clip(item.title, 500),
        sourceName: entry.sourceName === null ? null : clip(entry.sourceName, 200),
        sourceId: item.sourceId,
        url: clip(item.page?.canonicalUrl ?? item.url, 2_048),
        publishedAt: (item.publishedAt ?? item.page?.publishedAt ?? item.feedPublishedAt ?? item.seenAt).toISOString(),
        state: itemState(item),
        visible: false,
        reason: item.error === null ? null : clip(item.error, 500),
        primarySector: null,
        primaryTopic: null,
        isBreaking: null,
        enrichment: null,
        hidden: null,
        corrected: null,
        workflowId: workflowIds.newsEnrich(item.articleId),
      };
    }
  }
}

function presentCorrection(c: NonNullable<ArticleDoc['correction']>): z.input<typeof CorrectionView> {
  const { labels, model } = c;
  return {
    by: c.by,
    at: c.at.toISOString(),
    note: c.note,
    labels: {
      primarySector: labels.primarySector,
      primaryTopic: labels.primaryTopic,
      secondarySectors: labels.secondarySectors,
      secondaryTopics: labels.secondaryTopics,
      sentimentLabel: labels.sentimentLabel,
      sentimentScore: labels.sentimentScore,
      entities: labels.entities.map((e) => ({ entityId: e.entityId, entityType: e.entityType, canonicalName: e.canonicalName, ticker: e.ticker, sentiment: e.sentiment })),
    },
    model: { ...model, sentiment: model.sentiment ?? null },
  };
}

export function presentDetail(entry: EditorialEntry): z.input<typeof EditorialArticleDetailView> {
  const doc = entry.kind === 'item' ? null : entry.doc;
  return {
    ...presentEntry(entry),
    article: doc ? presentArticle(doc, INCLUDE_MODULES) : null,
    correction: doc?.correction ? presentCorrection(doc.correction) : null,
  };
}

const presentEntity = (e: EntityDoc): z.input<typeof EntityView> => ({
  id: e._id,
  entityType: e.entityType,
  canonicalName: e.canonicalName,
  aliases: e.aliases,
  ticker: e.ticker,
  cnpj: e.cnpj,
  createdAt: e.createdAt.toISOString(),
});

export const editorialRoutes = [
  route({
    method: 'get',
    path: '/api/admin/articles',
    summary: 'Articles by pipeline state, for editors',
    description:
      'Every article in the pipeline, newest first (publication time): items waiting for their enrichment or failed at it (not published yet), published articles with the state of their last enrichment, and hidden ones. ' +
      'Filters: state, sourceId. Pagination: limit 1–100 (default 20), offset 0–10,000.',
    tags,
    auth: admin,
    query: EditorialListQuery,
    response: z.array(EditorialArticleView).max(100),
    pagination: PaginationView,
    example: { query: { limit: 3 }, response: editorialListExample, pagination: { limit: 3, offset: 0, total: 4_212, hasMore: true } },
    handler: async ({ query, deps }) => {
      const { entries, total, hasMore } = await listEditorial(deps, { state: query.state, sourceId: query.sourceId }, query);
      return reply({ data: entries.map(presentEntry), pagination: paginate(query, total, hasMore) });
    },
  }),
  route({
    method: 'get',
    path: '/api/admin/articles/:id',
    summary: 'One article, for editors',
    description: 'Whatever its state (pending, failed and hidden ones too): its place in the pipeline, the article with every include module once published, and its correction.',
    tags,
    auth: admin,
    params: ArticleIdParams,
    response: EditorialArticleDetailView,
    errors: [404],
    example: { params: { id: FAILED_ITEM_ARTICLE_ID }, response: { ...failedItemExample, article: null, correction: null } },
    handler: async ({ params, deps }) => presentDetail(await editorialArticle(deps, params.id)),
  }),
  route({
    method: 'post',
    path: '/api/admin/articles/:id/hide',
    summary: 'Hide an article from readers',
    description:
      'It leaves every list, search, feed and alert, and GET /api/articles/{id} answers 404, until it is unhidden; a copy of its page from another source is not published in its place. ' +
      'Hiding a hidden article changes nothing. 409 for an article not published yet.',
    tags,
    auth: admin,
    params: ArticleIdParams,
    body: HideArticleBody,
    response: EditorialArticleView,
    errors: [404, 409],
    example: { params: { id: PETROBRAS_PLAN_ARTICLE_ID }, body: { reason: 'Plano ainda não divulgado oficialmente: a matéria cita um rascunho' }, response: hiddenArticleExample },
    handler: async ({ params, body, auth, deps }) => presentEntry(await hideArticle(deps, params.id, { by: actorOf(auth), reason: body.reason })),
  }),
  route({
    method: 'post',
    path: '/api/admin/articles/:id/unhide',
    summary: 'Show a hidden article to readers again',
    description: 'Unhiding a visible article changes nothing. 409 when another article holds its URL now, or for an article not published yet.',
    tags,
    auth: admin,
    params: ArticleIdParams,
    response: EditorialArticleView,
    errors: [404, 409],
    example: { params: { id: PETROBRAS_PLAN_ARTICLE_ID }, response: visibleArticleExample },
    handler: async ({ params, deps }) => presentEntry(await unhideArticle(deps, params.id)),
  }),
  route({
    method: 'put',
    path: '/api/admin/articles/:id/correction',
    summary: "Correct an article's enrichment",
    description:
      "The editor's labels for its classification, sentiment and entities replace the model's at once, for every reader. They stay when the article is enriched again (the model's new output is kept beside them, in correction.model), " +
      'and are kept as a labelled example for the evaluation (npm run eval:enrichment -- --corrections). A second correction replaces the first. ' +
      '400 for an entity the catalogue lacks (nothing changed); 409 for a hidden article or one not published yet.',
    tags,
    auth: admin,
    params: ArticleIdParams,
    body: CorrectionBody,
    response: EditorialArticleDetailView,
    errors: [404, 409],
    example: { params: { id: PETROBRAS_PLAN_ARTICLE_ID }, body: correctionBodyExample, response: correctedArticleExample },
    handler: async ({ params, body, auth, deps }) => {
      const doc = await correctArticle(deps, params.id, body, actorOf(auth));
      return presentDetail({ kind: 'article', doc });
    },
  }),

  route({
    method: 'get',
    path: '/api/admin/entities',
    summary: 'The entity catalogue, for editors',
    description: 'By canonical name. q: the start of a name, an alias or a ticker (case and accents aside); filters type and ticker. Pagination: limit 1–100 (default 20), offset ≥ 0.',
    tags,
    auth: admin,
    query: CatalogueQuery,
    response: z.array(EntityView).max(100),
    pagination: PaginationView,
    example: { query: { q: 'petro' }, response: catalogueExample, pagination: { limit: 20, offset: 0, total: 1, hasMore: false } },
    handler: async ({ query, deps }) => {
      const { items, total } = await listCatalogue(deps, { q: query.q, type: query.type, ticker: query.ticker }, query);
      return reply({ data: items.map(presentEntity), pagination: paginate(query, total) });
    },
  }),
  route({
    method: 'patch',
    path: '/api/admin/entities/:id',
    summary: "Change an entity's aliases, ticker or CNPJ",
    description:
      'Enrichments and imports link mentions by them from then on (within a minute); stored articles keep their links. 409 when another entity has the ticker, the CNPJ or one of the aliases (nothing changed).',
    tags,
    auth: admin,
    params: EntityIdParams,
    body: EntityPatchBody,
    response: EntityView,
    errors: [404, 409],
    example: { params: { id: PETROBRAS_ENTITY_ID }, body: { aliases: ['Petróleo Brasileiro', 'Petrobrás', 'Petróleo Brasileiro S.A.'], cnpj: '33000167000101' }, response: petrobrasPatchedExample },
    handler: async ({ params, body, deps }) => presentEntity(await changeEntity(deps, params.id, body)),
  }),
  route({
    method: 'post',
    path: '/api/admin/entity-candidates/:id/alias',
    summary: 'Add a candidate as an alias of an entity',
    description: 'The name the model found is another name of an entity the catalogue has: it joins its aliases, so later enrichments link it there. 409 when the candidate was decided already, or another entity has the name.',
    tags,
    auth: admin,
    params: CandidateIdParams,
    body: CandidateAliasBody,
    response: CandidateView,
    errors: [404, 409],
    example: { params: { id: aliasedCandidateExample.id }, body: { entityId: ITAU_ENTITY_ID }, response: aliasedCandidateExample },
    handler: async ({ params, body, auth, deps }) => presentCandidate(await aliasCandidate(deps, params.id, body.entityId, actorOf(auth))),
  }),
];
