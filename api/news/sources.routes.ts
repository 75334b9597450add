/**
 * News sources and what the pipeline makes of them (issue 25), for administrators (permission
 * news.admin): sources (list, add, read, change, remove, poll now) with their health; the entity
 * curation queue (names the model found that the catalogue lacks: accept or dismiss); and the
 * enrichment of one article again (after a prompt or model change).
 */
import { z } from 'zod';
import { notFound } from '../../models/errors';
import { ENTITY_TYPES } from '../../models/news/article.rules';
import { CANDIDATE_STATES, type EntityCandidateDoc } from '../../models/news/entity-candidate.repo';
import { acceptCandidate, dismissCandidate } from '../../operations/news/entity-candidates';
import { addSource, changeSource, pollSourceNow, removeSource } from '../../operations/news/sources';
import { SOURCE_LIST_MAX } from '../../models/news/sources/source.repo';
import { POLL_MINUTES, SourceInput, SourcePatch, sourceState, type SourceDoc } from '../../models/news/sources/source.rules';
import { LANGUAGES, SECTORS } from '../../models/news/article.rules';
import { workflowIds } from '../../workflows/ids';
import { enrichAgain } from '../../operations/news/reenrich';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

const SourceView = z
  .object({
    id: Uuid,
    name: Text(200),
    feedUrl: Text(2_048),
    tier: z.number().int().min(1).max(3),
    language: z.enum(LANGUAGES),
    defaultSector: z.enum(SECTORS).nullable(),
    pollIntervalMinutes: z.number().int().min(POLL_MINUTES.min).max(POLL_MINUTES.max),
    enabled: z.boolean(),
    state: z.enum(['disabled', 'new', 'ok', 'backing-off', 'failing']).describe('failing: 5 or more failed polls in a row (still polled, backed off)'),
    health: z.object({
      lastPollAt: IsoDateTime.nullable(),
      lastSuccessAt: IsoDateTime.nullable(),
      lastError: Text(500).nullable(),
      lastErrorAt: IsoDateTime.nullable(),
      consecutiveFailures: Count,
      itemsSeen: Count,
      articlesCreated: Count,
      nextPollAt: IsoDateTime.nullable(),
    }),
    workflowId: Text(64).describe('Its poller in the Temporal UI'),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'NewsSource' });

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

const CandidateView = z
  .object({
    id: Text(300).describe('The folded name'),
    name: Text(200),
    entityType: z.enum(ENTITY_TYPES),
    ticker: Text(12).nullable(),
    cnpj: Text(20).nullable(),
    mentions: Count,
    articleIds: z.array(Uuid).max(20),
    state: z.enum(CANDIDATE_STATES),
    entityId: Uuid.nullable(),
    firstSeenAt: IsoDateTime,
    lastSeenAt: IsoDateTime,
  })
  .meta({ id: 'EntityCandidate' });
const presentCandidate = (c: EntityCandidateDoc): z.input<typeof CandidateView> => ({
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
const SourceId = z.object({ id: z.uuid() });
const CandidateId = z.object({ id: z.string().min(1).max(300) });

export const sourceRoutes = [
  route({
    method: 'get',
    path: '/api/admin/sources',
    summary: 'News sources, with their health',
    description: `Every source by name (at most ${SOURCE_LIST_MAX}).`,
    tags,
    auth: admin,
    query: z.object({ enabled: z.enum(['true', 'false']).optional() }),
    response: z.array(SourceView).max(SOURCE_LIST_MAX),
    handler: async ({ query, deps }) => (await deps.sources.list({ enabled: query.enabled === undefined ? undefined : query.enabled === 'true' })).map(present),
  }),
  route({
    method: 'post',
    path: '/api/admin/sources',
    summary: 'Add a news source',
    description: 'A feed (RSS 2.0, Atom 1.0 or JSON Feed 1.1) polled every pollIntervalMinutes by its own workflow (`news-source-<id>`). A feed already read by a source is a 409.',
    tags,
    auth: admin,
    body: SourceInput,
    status: 201,
    response: SourceView,
    errors: [409, 503],
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
    params: SourceId,
    response: SourceView,
    errors: [404],
    handler: async ({ params, deps }) => present((await deps.sources.get(params.id)) ?? notFound('Source')),
  }),
  route({
    method: 'patch',
    path: '/api/admin/sources/:id',
    summary: 'Change a news source',
    description: 'Any of its settings. The poller takes the change at once; disabling stops it, enabling starts it.',
    tags,
    auth: admin,
    params: SourceId,
    body: SourcePatch,
    response: SourceView,
    errors: [404, 409, 503],
    handler: async ({ params, body, deps }) => present(await changeSource(sourceDeps(deps), params.id, body)),
  }),
  route({
    method: 'delete',
    path: '/api/admin/sources/:id',
    summary: 'Remove a news source',
    description: 'Its poller ends; the articles it brought stay.',
    tags,
    auth: admin,
    params: SourceId,
    response: z.object({ id: Uuid, deleted: z.literal(true) }).meta({ id: 'SourceDeleted' }),
    errors: [404, 503],
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
    params: SourceId,
    status: 202,
    response: SourceView,
    errors: [404, 409, 503],
    handler: async ({ params, deps }) => reply({ status: 202, data: present(await pollSourceNow(sourceDeps(deps), params.id)) }),
  }),

  route({
    method: 'get',
    path: '/api/admin/entity-candidates',
    summary: 'The entity curation queue',
    description: 'Names the enrichment model found in articles that the catalogue lacks, most mentioned first. They are never added to the catalogue without an administrator.',
    tags,
    auth: admin,
    query: z.object({ state: z.enum(CANDIDATE_STATES).default('open'), limit: z.coerce.number().int().min(1).max(200).default(50) }),
    response: z.array(CandidateView).max(200),
    handler: async ({ query, deps }) => (await deps.entityCandidates.list(query.state, query.limit)).map(presentCandidate),
  }),
  route({
    method: 'post',
    path: '/api/admin/entity-candidates/:id/accept',
    summary: 'Accept a candidate into the entity catalogue',
    description: 'Creates the entity (the candidate’s name, type, ticker and CNPJ; its name as an alias), so later enrichments link it. 409 when it was decided already.',
    tags,
    auth: admin,
    params: CandidateId,
    status: 201,
    response: CandidateView,
    errors: [404, 409],
    handler: async ({ params, auth, deps }) => {
      const accepted = await acceptCandidate(deps, params.id, auth.sub);
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
    params: CandidateId,
    response: CandidateView,
    errors: [404, 409],
    handler: async ({ params, auth, deps }) => presentCandidate(await dismissCandidate(deps, params.id, auth.sub)),
  }),

  route({
    method: 'post',
    path: '/api/admin/articles/:id/enrich',
    summary: 'Enrich an article again',
    description: 'After a prompt or model change: the article’s enrichment workflow (`news-enrich-<id>`) runs again; follow or cancel it in the Temporal UI. 409 while one runs.',
    tags,
    auth: admin,
    params: z.object({ id: z.uuid() }),
    status: 202,
    response: z.object({ articleId: Uuid, workflowId: Text(64) }).meta({ id: 'EnrichmentStarted' }),
    errors: [404, 409, 503],
    handler: async ({ params, deps }) => {
      const { workflowId } = await enrichAgain(sourceDeps(deps), params.id);
      return reply({ status: 202, data: { articleId: params.id, workflowId } });
    },
  }),
];
