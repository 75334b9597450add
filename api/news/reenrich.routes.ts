/**
 * Re-enriching the articles a filter matches, after a prompt or model change (issue 25), for
 * administrators (permission news.admin): POST starts the operation (202, its workflow
 * `news-reenrich-<id>` does the work), GET follows its progress, POST …/cancel stops it between
 * articles. The one-article form is POST /api/admin/articles/{id}/enrich (sources.routes.ts).
 */
import { z } from 'zod';
import { SECTORS } from '../../models/news/article.rules';
import { cancelReenrichment, reenrichmentProgress, startReenrichment, type ReenrichDeps, type Reenrichment } from '../../operations/news/reenrich';
import { isEmptyFilter, REENRICH_IDS_MAX, REENRICH_MAX_ARTICLES, REENRICH_STATES } from '../../models/news/reenrich.rules';
import { REENRICH_ERROR_MAX, REENRICH_ERRORS_KEPT } from '../../models/news/reenrichment.repo';
import { workflowIds } from '../../workflows/ids';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

/** Prompt versions are short names (`enrich-2026-11-25.1`). */
const PROMPT_VERSION_MAX = 100;

const dateTime = (name: string) =>
  z.iso
    .datetime({ offset: true, message: `${name} must be an ISO 8601 date-time such as 2026-11-21T09:00:00Z` })
    .max(64)
    .transform((s) => new Date(s));

const FilterInput = z
  .strictObject({
    sourceId: z.uuid().optional().describe('Articles of this news source'),
    sector: z.enum(SECTORS).optional().describe('Articles whose primary sector is this'),
    from: dateTime('from').optional().describe('Published at or after this time'),
    to: dateTime('to').optional().describe('Published at or before this time'),
    promptVersionNot: z.string().trim().min(1).max(PROMPT_VERSION_MAX).optional().describe('Articles whose last enrichment used another prompt version, or that were never enriched'),
    articleIds: z
      .array(z.uuid())
      .min(1)
      .max(REENRICH_IDS_MAX, `at most ${REENRICH_IDS_MAX} article ids`)
      .transform((ids) => [...new Set(ids)])
      .optional()
      .describe('These articles (ids no article has are left out)'),
  })
  .refine((f) => !isEmptyFilter(f), 'give at least one filter field')
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: 'from must not be after to', path: ['to'] })
  .meta({ id: 'ReenrichmentFilter', description: 'Which articles to enrich again: every field given narrows the match; at least one.' });

const FilterView = z.object({
  sourceId: Uuid.optional(),
  sector: z.enum(SECTORS).optional(),
  from: IsoDateTime.optional(),
  to: IsoDateTime.optional(),
  promptVersionNot: Text(PROMPT_VERSION_MAX).optional(),
  articleIds: z.array(Uuid).max(REENRICH_IDS_MAX).optional(),
});

const ReenrichmentView = z
  .object({
    id: Uuid,
    state: z.enum(REENRICH_STATES),
    filter: FilterView,
    promptVersion: Text(PROMPT_VERSION_MAX).describe('The prompt version current when the operation was created'),
    total: Count.describe('Articles the filter matched when the operation was created'),
    done: Count.describe('Enriched again'),
    failed: Count.describe("The model's answers never validated, or the provider refused the article"),
    gone: Count.describe('Deleted before their turn'),
    waiting: Count.describe('Articles left that wait for the daily token budget to renew (0 unless the operation waits)'),
    resumeAt: IsoDateTime.nullable().describe('When a waiting operation goes on'),
    errors: z
      .array(z.object({ articleId: Uuid, error: Text(REENRICH_ERROR_MAX) }))
      .max(REENRICH_ERRORS_KEPT)
      .describe(`The first ${REENRICH_ERRORS_KEPT} failed articles and why`),
    error: Text(REENRICH_ERROR_MAX).nullable().describe('Why a failed operation failed as a whole'),
    workflowId: Text(64).describe('Its workflow in the Temporal UI'),
    createdBy: Text(200),
    createdAt: IsoDateTime,
    finishedAt: IsoDateTime.nullable(),
    statusUrl: Text(64),
  })
  .meta({ id: 'Reenrichment' });

const statusUrl = (id: string) => `/api/admin/enrichments/${id}`;
const present = (op: Reenrichment): z.input<typeof ReenrichmentView> => ({
  id: op._id,
  state: op.state,
  filter: {
    ...(op.filter.sourceId !== undefined ? { sourceId: op.filter.sourceId } : {}),
    ...(op.filter.sector !== undefined ? { sector: op.filter.sector as (typeof SECTORS)[number] } : {}),
    ...(op.filter.from ? { from: op.filter.from.toISOString() } : {}),
    ...(op.filter.to ? { to: op.filter.to.toISOString() } : {}),
    ...(op.filter.promptVersionNot !== undefined ? { promptVersionNot: op.filter.promptVersionNot } : {}),
    ...(op.filter.articleIds !== undefined ? { articleIds: op.filter.articleIds } : {}),
  },
  promptVersion: op.promptVersion,
  total: op.total,
  done: op.done,
  failed: op.failed,
  gone: op.gone,
  waiting: op.waiting,
  resumeAt: op.resumeAt?.toISOString() ?? null,
  errors: op.errors,
  error: op.error,
  workflowId: workflowIds.newsReenrich(op._id),
  createdBy: op.createdBy,
  createdAt: op.createdAt.toISOString(),
  finishedAt: op.finishedAt?.toISOString() ?? null,
  statusUrl: statusUrl(op._id),
});

const reenrichDeps = (deps: NewsDeps): ReenrichDeps => ({
  reenrichments: deps.reenrichments,
  articles: deps.articles,
  temporal: deps.temporal,
  taskQueuePrefix: deps.config.temporal.taskQueuePrefix,
  now: deps.now,
});
const OperationId = z.object({ id: z.uuid() });
const links = [
  { name: 'progress', method: 'get' as const, path: '/api/admin/enrichments/:id', parameters: { id: '$response.body#/data/id' } },
  { name: 'cancel', method: 'post' as const, path: '/api/admin/enrichments/:id/cancel', parameters: { id: '$response.body#/data/id' } },
];

export const reenrichRoutes = [
  route({
    method: 'post',
    path: '/api/admin/enrichments',
    summary: 'Enrich again the articles a filter matches',
    description:
      `After a prompt or model change. The matching articles (at most ${REENRICH_MAX_ARTICLES}: more is a 400, narrow the filter) are fixed now, newest first, ` +
      'and enriched one after the other by the workflow `news-reenrich-<id>`; follow it with GET statusUrl, stop it with POST …/cancel. ' +
      'A spent daily token budget pauses it until the budget renews. Breaking articles alert nobody again.',
    tags,
    auth: admin,
    body: FilterInput,
    status: 202,
    response: ReenrichmentView,
    links,
    errors: [503],
    idempotent: true,
    handler: async ({ body, auth, deps, requestKey }) => {
      const op = await startReenrichment(reenrichDeps(deps), { by: auth.sub, filter: body, requestKey });
      return reply({ status: 202, message: 'Reenriquecimento iniciado', data: present(op), headers: { Location: statusUrl(op._id) } });
    },
  }),
  route({
    method: 'get',
    path: '/api/admin/enrichments/:id',
    summary: 'Progress and state of a re-enrichment',
    tags,
    auth: admin,
    params: OperationId,
    response: ReenrichmentView,
    errors: [404],
    handler: async ({ params, deps }) => present(await reenrichmentProgress(reenrichDeps(deps), params.id)),
  }),
  route({
    method: 'post',
    path: '/api/admin/enrichments/:id/cancel',
    summary: 'Cancel a running re-enrichment',
    description: 'It stops between articles; the articles enriched again stay so. 409 when it has ended already.',
    tags,
    auth: admin,
    params: OperationId,
    status: 202,
    response: z.object({ id: Uuid, state: z.literal('cancelling') }).meta({ id: 'ReenrichmentCancelling' }),
    errors: [404, 409, 503],
    handler: async ({ params, deps }) => reply({ status: 202, message: 'Cancelamento solicitado', data: await cancelReenrichment(reenrichDeps(deps), params.id) }),
  }),
];
