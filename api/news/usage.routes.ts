/** GET /api/usage: the calling key's requests this minute and its account's this month. */
import { z } from 'zod';
import { KEY_MODES } from '../../models/news/api-key.rules';
import { keyUsage } from '../../models/news/operations/usage';
import { routeFactory } from '../shared/route';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';
import { apiKey } from './auth';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();

const Window = z.object({ limit: Count.nullable(), used: Count, remaining: Count.nullable(), resetsAt: IsoDateTime });

export const usageRoutes = [
  route({
    method: 'get',
    path: '/api/usage',
    summary: 'Requests this minute (this key) and this month (the account) against the plan',
    description: 'This request is counted too. Test keys are limited per minute but never counted against the monthly quota.',
    tags: ['usage'],
    auth: apiKey(null),
    response: z.object({
      plan: Text(32).describe('the plan name (Starter, Pro, Business)'),
      key: z.object({ id: Uuid, mode: z.enum(KEY_MODES), countedMonthly: z.boolean() }),
      minute: Window,
      month: Window,
    }),
    handler: async ({ auth, deps }) => await keyUsage(deps, { userId: auth.sub, keyId: auth.keyId, plan: auth.plan, mode: auth.mode }),
  }),
];
