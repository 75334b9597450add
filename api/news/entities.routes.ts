/** Entities (spec §2.3, §4.4) and a single entity (named by the spec, not shown): scope read:entities. */
import { z } from 'zod';
import { notFound } from '../../models/errors';
import { ENTITY_TYPES } from '../../models/news/article.rules';
import type { EntityDoc } from '../../models/news/entity.model';
import { PageQuery, paginate } from '../../models/news/pagination.rules';
import { TICKER } from '../../models/news/preferences.rules';
import { reply, routeFactory } from '../shared/route';
import { apiKey } from './auth';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const reader = apiKey('read:entities');
const tags = ['entities'];

const EntityView = z.object({
  id: z.string(),
  entityType: z.enum(ENTITY_TYPES),
  canonicalName: z.string(),
  aliases: z.array(z.string()),
  ticker: z.string().nullable(),
  cnpj: z.string().nullable(),
  createdAt: z.string(),
});

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
    query: PageQuery.extend({ type: z.enum(ENTITY_TYPES).optional(), ticker: TICKER.optional() }),
    response: z.array(EntityView),
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
    params: z.object({ id: z.uuid() }),
    response: EntityView,
    errors: [404],
    handler: async ({ params, deps }) => {
      const entity = await deps.entities.findById(params.id);
      if (!entity) notFound('Entity');
      return present(entity);
    },
  }),
];

