/** GET /api/usage: the account's requests this minute, this month and today in the sandbox. */
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
    summary: "The account's requests this minute, this month and today in the sandbox, against the plan",
    description:
      'This request is counted too. The minute limit holds for the account, all its keys (live and test) together. ' +
      "Live keys count against the plan's monthly quota; test keys never do, and share the sandbox's daily cap instead.",
    tags: ['usage'],
    auth: apiKey(null),
    response: z.object({
      plan: Text(32).describe('the plan name (Starter, Pro, Business)'),
      key: z.object({ id: Uuid, mode: z.enum(KEY_MODES), countedMonthly: z.boolean() }),
      minute: Window.describe('the account, all keys together'),
      month: Window.describe('live keys'),
      sandbox: Window.describe('test keys, today (UTC)'),
    }),
    handler: async ({ auth, deps }) => await keyUsage(deps, { userId: auth.sub, keyId: auth.keyId, plan: auth.plan, mode: auth.mode }),
  }),
];
