/** GET /api/usage: the calling key's requests this minute and its account's this month. */
import { z } from 'zod';
import { keyUsage } from '../../models/news/operations/usage';
import { routeFactory } from '../shared/route';
import { apiKey } from './auth';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();

const Window = z.object({ limit: z.number().nullable(), used: z.number(), remaining: z.number().nullable(), resetsAt: z.string() });

export const usageRoutes = [
  route({
    method: 'get',
    path: '/api/usage',
    summary: 'Requests this minute (this key) and this month (the account) against the plan',
    description: 'This request is counted too. Test keys are limited per minute but never counted against the monthly quota.',
    tags: ['usage'],
    auth: apiKey(null),
    response: z.object({
      plan: z.string(),
      key: z.object({ id: z.string(), mode: z.string(), countedMonthly: z.boolean() }),
      minute: Window,
      month: Window,
    }),
    handler: async ({ auth, deps }) => await keyUsage(deps, { userId: auth.sub, keyId: auth.keyId, plan: auth.plan, mode: auth.mode }),
  }),
];
