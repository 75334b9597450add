/**
 * News sources and what the pipeline makes of them (issue 25), for administrators (permission
 * news.admin): sources (list, add, read, change, remove, poll now) with their health; the entity
 * curation queue (names the model found that the catalogue lacks: accept or dismiss); and the
 * enrichment of one article again (after a prompt or model change).
 */
import { actorOf } from '../../models/auth/token.rules';
import { z } from 'zod';
import { notFound } from '../../models/errors';
import type { EntityCandidateDoc } from '../../models/news/entity-candidate.repo';
import { acceptCandidate, dismissCandidate } from '../../operations/news/entity-candidates';
import { addSource, changeSource, pollSourceNow, removeSource } from '../../operations/news/sources';
import { SOURCE_LIST_MAX } from '../../models/news/sources/source.repo';
import { sourceState, type SourceDoc } from '../../models/news/sources/source.rules';
import { workflowIds } from '../../workflows/ids';
import { enrichAgain } from '../../operations/news/reenrich';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import {
  ArticleIdParams,
  CandidateIdParams,
  CandidateListQuery,
  CandidateView,
  EnrichmentStarted,
  NewSourceBody,
  SourceDeleted,
  SourceIdParams,
  SourceListQuery,
  SourcePatchBody,
  SourceView,
} from './contracts';
import type { NewsDeps } from './deps';
import {
  agenciaBrasilNewSourceExample,
  agenciaBrasilSourceExample,
  bravaCandidateExample,
  dismissedCandidateExample,
  INFOMONEY_SOURCE_ID,
  infoMoneySourceExample,
  margemEquatorialCandidateExample,
  MONEY_TIMES_SOURCE_ID,
  moneyTimesSourceExample,
  PETROBRAS_PLAN_ARTICLE_ID,
} from './examples/articles';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

const iso = (d: Date | null) => d?.toISOString() ?? null;
const present = (s: SourceDoc): z.input<typeof SourceView> => ({
  id: s._id,
  name: s.name,
  feedUrl: s.feedUrl,
  tier: s.tier,
  language: s.language,
  defaultSector: s.defaultSector,
  pollIntervalMinutes: s.pollIntervalMinutes,
  enabled: s.enabled,
  state: sourceState(s),
  health: {
    lastPollAt: iso(s.health.lastPollAt),
    lastSuccessAt: iso(s.health.lastSuccessAt),
    lastError: s.health.lastError,
    lastErrorAt: iso(s.health.lastErrorAt),
    consecutiveFailures: s.health.consecutiveFailures,
    itemsSeen: s.health.itemsSeen,
    articlesCreated: s.health.articlesCreated,
    nextPollAt: iso(s.health.nextPollAt),
  },
  workflowId: workflowIds.newsSource(s._id),
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

export const presentCandidate = (c: EntityCandidateDoc): z.input<typeof CandidateView> => ({
  id: c._id,
  name: c.name.slice(0, 200),
  entityType: c.entityType,
  ticker: c.ticker,
  cnpj: c.cnpj,
  mentions: c.mentions,
  articleIds: c.articleIds,
  state: c.state,
  entityId: c.entityId,
  firstSeenAt: c.firstSeenAt.toISOString(),
  lastSeenAt: c.lastSeenAt.toISOString(),
});

/** What the source use cases (and enriching an article again) take from the service. */
const sourceDeps = (deps: NewsDeps) => ({ sources: deps.sources, articles: deps.articles, temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, now: deps.now });

export const sourceRoutes = [
  route({
    method: 'get',
    path: '/api/admin/sources',
    summary: 'News sources, with their health',
    description: `Every source by name (at most ${SOURCE_LIST_MAX}).`,
    tags,
    auth: admin,
    query: SourceListQuery,
    response: z.array(SourceView).max(SOURCE_LIST_MAX),
    example: { query: { enabled: 'true' }, response: [agenciaBrasilSourceExample, infoMoneySourceExample] },
    handler: async ({ query, deps }) => (await deps.sources.list({ enabled: query.enabled === undefined ? undefined : query.enabled === 'true' })).map(present),
  }),
  route({
    method: 'post',
    path: '/api/admin/sources',
    summary: 'Add a news source',
    description: 'A feed (RSS 2.0, Atom 1.0 or JSON Feed 1.1) polled every pollIntervalMinutes by its own workflow (`news-source-<id>`). A feed already read by a source is a 409.',
    tags,
    auth: admin,
    body: NewSourceBody,
    status: 201,
    response: SourceView,
    errors: [409, 503],
    example: {
      body: { name: 'Agência Brasil', feedUrl: 'https://agenciabrasil.ebc.com.br/rss/economia/feed.xml', tier: 1, language: 'pt', pollIntervalMinutes: 10 },
      response: agenciaBrasilNewSourceExample,
    },
    handler: async ({ body, deps }) => {
      const doc = await addSource(sourceDeps(deps), body);
      return reply({ status: 201, data: present(doc), headers: { Location: `/api/admin/sources/${doc._id}` } });
    },
  }),
  route({
    method: 'get',
    path: '/api/admin/sources/:id',
    summary: 'One news source, with its health',
    tags,
    auth: admin,
    params: SourceIdParams,
    response: SourceView,
    errors: [404],
    example: { params: { id: MONEY_TIMES_SOURCE_ID }, response: moneyTimesSourceExample },
    handler: async ({ params, deps }) => present((await deps.sources.get(params.id)) ?? notFound('Source')),
  }),
  route({
    method: 'patch',
    path: '/api/admin/sources/:id',
    summary: 'Change a news source',
    description: 'Any of its settings. The poller takes the change at once; disabling stops it, enabling starts it.',
    tags,
    auth: admin,
    params: SourceIdParams,
    body: SourcePatchBody,
    response: SourceView,
    errors: [404, 409, 503],
    example: {
      params: { id: INFOMONEY_SOURCE_ID },
      body: { pollIntervalMinutes: 3 },
      response: { ...infoMoneySourceExample, pollIntervalMinutes: 3, updatedAt: '2026-11-24T15:08:30.000Z' },
    },
    handler: async ({ params, body, deps }) => present(await changeSource(sourceDeps(deps), params.id, body)),
  }),
  route({
    method: 'delete',
    path: '/api/admin/sources/:id',
    summary: 'Remove a news source',
    description: 'Its poller ends; the articles it brought stay.',
    tags,
    auth: admin,
    params: SourceIdParams,
    response: SourceDeleted,
    errors: [404, 503],
    example: { params: { id: MONEY_TIMES_SOURCE_ID }, response: { id: MONEY_TIMES_SOURCE_ID, deleted: true } },
    handler: async ({ params, deps }) => {
      await removeSource(sourceDeps(deps), params.id);
      return { id: params.id, deleted: true as const };
    },
  }),
  route({
    method: 'post',
    path: '/api/admin/sources/:id/poll',
    summary: 'Poll a news source now',
    description: 'Wakes its poller (a backed-off source too). 202: the poll runs in its workflow.',
    tags,
    auth: admin,
    params: SourceIdParams,
    status: 202,
    response: SourceView,
    errors: [404, 409, 503],
    example: { params: { id: MONEY_TIMES_SOURCE_ID }, response: moneyTimesSourceExample },
    handler: async ({ params, deps }) => reply({ status: 202, data: present(await pollSourceNow(sourceDeps(deps), params.id)) }),
  }),

  route({
    method: 'get',
    path: '/api/admin/entity-candidates',
    summary: 'The entity curation queue',
    description: 'Names the enrichment model found in articles that the catalogue lacks, most mentioned first. They are never added to the catalogue without an administrator.',
    tags,
    auth: admin,
    query: CandidateListQuery,
    response: z.array(CandidateView).max(200),
    example: { query: { state: 'open', limit: 50 }, response: [bravaCandidateExample, margemEquatorialCandidateExample] },
    handler: async ({ query, deps }) => (await deps.entityCandidates.list(query.state, query.limit)).map(presentCandidate),
  }),
  route({
    method: 'post',
    path: '/api/admin/entity-candidates/:id/accept',
    summary: 'Accept a candidate into the entity catalogue',
    description: 'Creates the entity (the candidate’s name, type, ticker and CNPJ; its name as an alias), so later enrichments link it. 409 when it was decided already.',
    tags,
    auth: admin,
    params: CandidateIdParams,
    status: 201,
    response: CandidateView,
    errors: [404, 409],
    example: {
      params: { id: bravaCandidateExample.id },
      // The entity's id derives from the candidate's (operations/news/entity-candidates.ts entityIdForCandidate).
      response: { ...bravaCandidateExample, state: 'accepted', entityId: 'd71a6dd0-1286-51a8-b00d-2490de9f9cff' },
    },
    handler: async ({ params, auth, deps }) => {
      const accepted = await acceptCandidate(deps, params.id, actorOf(auth));
      return reply({ status: 201, data: presentCandidate(accepted), headers: { Location: `/api/entities/${accepted.entityId}` } });
    },
  }),
  route({
    method: 'post',
    path: '/api/admin/entity-candidates/:id/dismiss',
    summary: 'Dismiss a candidate',
    description: 'It stays dismissed (still counted), so the same name does not come back to the queue.',
    tags,
    auth: admin,
    params: CandidateIdParams,
    response: CandidateView,
    errors: [404, 409],
    example: { params: { id: dismissedCandidateExample.id }, response: dismissedCandidateExample },
    handler: async ({ params, auth, deps }) => presentCandidate(await dismissCandidate(deps, params.id, actorOf(auth))),
  }),

  route({
    method: 'post',
    path: '/api/admin/articles/:id/enrich',
    summary: 'Enrich an article again',
    description: 'After a prompt or model change: the article’s enrichment workflow (`news-enrich-<id>`) runs again; follow or cancel it in the Temporal UI. 409 while one runs.',
    tags,
    auth: admin,
    params: ArticleIdParams,
    status: 202,
    response: EnrichmentStarted,
    errors: [404, 409, 503],
    example: {
      params: { id: PETROBRAS_PLAN_ARTICLE_ID },
      response: { articleId: PETROBRAS_PLAN_ARTICLE_ID, workflowId: `news-enrich-${PETROBRAS_PLAN_ARTICLE_ID}` },
    },
    handler: async ({ params, deps }) => {
      const { workflowId } = await enrichAgain(sourceDeps(deps), params.id);
      return reply({ status: 202, data: { articleId: params.id, workflowId } });
    },
  }),
];
