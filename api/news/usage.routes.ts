/** GET /api/usage: the account's requests this minute, this month and today in the sandbox. */
import { keyUsage } from '../../operations/news/usage';
import { routeFactory } from '../shared/route';
import { apiKey } from './auth';
import { KeyUsageView } from './contracts';
import type { NewsDeps } from './deps';
import { usageExample } from './examples/account';

const route = routeFactory<NewsDeps>();

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
    response: KeyUsageView,
    example: { response: usageExample },
    handler: async ({ auth, deps }) => await keyUsage(deps, { userId: auth.sub, keyId: auth.keyId, plan: auth.plan, mode: auth.mode }),
  }),
];
