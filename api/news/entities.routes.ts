/** Entities (spec §2.3, §4.4) and a single entity (named by the spec, not shown): scope read:entities. */
import { z } from 'zod';
import { notFound } from '../../models/errors';
import type { EntityDoc } from '../../models/news/entity.model';
import { paginate, PaginationView } from '../../models/news/pagination.rules';
import { reply, routeFactory } from '../shared/route';
import { apiKey } from './auth';
import { EntityIdParams, EntityListQuery, EntityView } from './contracts';
import type { NewsDeps } from './deps';
import { PETROBRAS_ENTITY_ID, petrobrasEntityExample } from './examples/articles';

const route = routeFactory<NewsDeps>();
const reader = apiKey('read:entities');
const tags = ['entities'];

const present = (e: EntityDoc): z.input<typeof EntityView> => ({
  id: e._id,
  entityType: e.entityType,
  canonicalName: e.canonicalName,
  aliases: e.aliases,
  ticker: e.ticker,
  cnpj: e.cnpj,
  createdAt: e.createdAt.toISOString(),
});

export const entityRoutes = [
  route({
    method: 'get',
    path: '/api/entities',
    summary: 'List entities',
    description: 'By canonical name. Filters: type (entity type), ticker. Pagination: limit 1–100 (default 20), offset ≥ 0.',
    tags,
    auth: reader,
    query: EntityListQuery,
    response: z.array(EntityView).max(100),
    pagination: PaginationView,
    example: {
      query: { ticker: 'PETR4' },
      response: [petrobrasEntityExample],
      pagination: { limit: 20, offset: 0, total: 1, hasMore: false },
    },
    handler: async ({ query, deps }) => {
      const { items, total } = await deps.entities.list({ type: query.type, ticker: query.ticker }, query);
      return reply({ data: items.map(present), pagination: paginate(query, total) });
    },
  }),

  route({
    method: 'get',
    path: '/api/entities/:id',
    summary: 'One entity',
    tags,
    auth: reader,
    params: EntityIdParams,
    response: EntityView,
    errors: [404],
    example: { params: { id: PETROBRAS_ENTITY_ID }, response: petrobrasEntityExample },
    handler: async ({ params, deps }) => {
      const entity = await deps.entities.findById(params.id);
      if (!entity) notFound('Entity');
      return present(entity);
    },
  }),
];

