/** GET /api/usage: the calling key's requests this minute and its account's this month. */
import { z } from 'zod';
import { PLAN_LIMITS } from '../../models/news/plan.rules';
import { nextMonthStart } from '../../models/news/usage.repo';
import { routeFactory } from '../shared/route';
import { apiKey, planName } from './auth';
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
    handler: async ({ auth, deps }) => {
      const limits = PLAN_LIMITS[auth.plan];
      const perMinute = deps.config.news.perMinute[auth.plan];
      const now = new Date();
      const [minute, month] = await Promise.all([deps.keyLimiters[auth.plan].used(`key:${auth.keyId}`), deps.usage.count(auth.sub, now)]);
      return {
        plan: planName(auth.plan),
        key: { id: auth.keyId, mode: auth.mode, countedMonthly: auth.mode === 'live' },
        minute: { limit: perMinute, used: minute.count, remaining: Math.max(0, perMinute - minute.count), resetsAt: minute.resetAt.toISOString() },
        month: {
          limit: limits.perMonth,
          used: month,
          remaining: limits.perMonth === null ? null : Math.max(0, limits.perMonth - month),
          resetsAt: nextMonthStart(now).toISOString(),
        },
      };
    },
  }),
];
