/**
 * Re-enriching the articles a filter matches, after a prompt or model change (issue 25), for
 * administrators (permission news.admin): POST starts the operation (202, its workflow
 * `news-reenrich-<id>` does the work), GET follows its progress, POST …/cancel stops it between
 * articles. The one-article form is POST /api/admin/articles/{id}/enrich (sources.routes.ts).
 */
import { actorOf } from '../../models/auth/token.rules';
import type { z } from 'zod';
import type { SECTORS } from '../../models/news/article.rules';
import { cancelReenrichment, reenrichmentProgress, startReenrichment, type ReenrichDeps, type Reenrichment } from '../../operations/news/reenrich';
import { REENRICH_MAX_ARTICLES } from '../../models/news/reenrich.rules';
import { workflowIds } from '../../workflows/ids';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { ReenrichmentCancelling, ReenrichmentFilter, ReenrichmentIdParams, ReenrichmentView } from './contracts';
import type { NewsDeps } from './deps';
import { REENRICHMENT_ID, reenrichmentFilterExample, reenrichmentProgressExample, reenrichmentStartedExample } from './examples/articles';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

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
    body: ReenrichmentFilter,
    status: 202,
    response: ReenrichmentView,
    links,
    errors: [503],
    idempotent: true,
    example: { body: reenrichmentFilterExample, response: reenrichmentStartedExample, message: 'Reenriquecimento iniciado' },
    handler: async ({ body, auth, deps, requestKey }) => {
      const op = await startReenrichment(reenrichDeps(deps), { by: actorOf(auth), filter: body, requestKey });
      return reply({ status: 202, message: 'Reenriquecimento iniciado', data: present(op), headers: { Location: statusUrl(op._id) } });
    },
  }),
  route({
    method: 'get',
    path: '/api/admin/enrichments/:id',
    summary: 'Progress and state of a re-enrichment',
    tags,
    auth: admin,
    params: ReenrichmentIdParams,
    response: ReenrichmentView,
    errors: [404],
    example: { params: { id: REENRICHMENT_ID }, response: reenrichmentProgressExample },
    handler: async ({ params, deps }) => present(await reenrichmentProgress(reenrichDeps(deps), params.id)),
  }),
  route({
    method: 'post',
    path: '/api/admin/enrichments/:id/cancel',
    summary: 'Cancel a running re-enrichment',
    description: 'It stops between articles; the articles enriched again stay so. 409 when it has ended already.',
    tags,
    auth: admin,
    params: ReenrichmentIdParams,
    status: 202,
    response: ReenrichmentCancelling,
    errors: [404, 409, 503],
    example: { params: { id: REENRICHMENT_ID }, response: { id: REENRICHMENT_ID, state: 'cancelling' }, message: 'Cancelamento solicitado' },
    handler: async ({ params, deps }) => reply({ status: 202, message: 'Cancelamento solicitado', data: await cancelReenrichment(reenrichDeps(deps), params.id) }),
  }),
];
