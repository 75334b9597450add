/** GET /api/usage: the calling key's requests this minute and its account's this month. */
import { z } from 'zod';
import { KEY_MODES } from '../../models/news/api-key.rules';
import { PLAN_LIMITS } from '../../models/news/plan.rules';
import { nextMonthStart } from '../../models/news/usage.repo';
import { routeFactory } from '../shared/route';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';
import { apiKey, planName } from './auth';
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
