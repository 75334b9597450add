/**
 * The dashboard's API-key endpoints (spec §3.1, §5): authenticated by the account's bearer JWT,
 * never by an API key. A new key is returned once; only its hash is stored.
 */
import { z } from 'zod';
import { createApiKey, revokeApiKey } from '../../operations/news/api-keys';
import { KEYS_LISTED } from '../../models/news/api-key.repo';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { CreateKey, keyCreationOnce, KeyIdParams, KeyView, NewKeyView, presentKey } from './contracts';
import type { NewsDeps } from './deps';
import { keyListExample, liveKeyExample, newKeyExample, revokedKeyExample, testKeyExample } from './examples/account';

const route = routeFactory<NewsDeps>();
const account = bearer();
const tags = ['api keys'];

export const keyRoutes = [
  route({
    method: 'post',
    path: '/api/keys',
    summary: 'Create an API key (shown once)',
    description:
      'The response holds the key itself; it is never shown again (only its hash is stored). Prefixes: nws_live_ and nws_test_. ' +
      'With an Idempotency-Key a retry creates no second key; as the secret is not kept, the retry gets 409 naming the key made (revoke it if the first answer was lost).',
    tags,
    auth: account,
    body: CreateKey,
    response: NewKeyView,
    status: 201,
    idempotent: keyCreationOnce,
    example: {
      body: { name: liveKeyExample.name, expiry: '90d', scopes: liveKeyExample.scopes, mode: 'live' },
      response: newKeyExample,
      message: 'Store this key now: it will not be shown again.',
    },
    handler: async ({ body, auth, deps, requestKey }) => {
      const { key, record } = await createApiKey(deps, { userId: auth.sub, email: auth.email, ...body, requestKey });
      return reply({ status: 201, message: 'Store this key now: it will not be shown again.', data: { ...presentKey(record), key } });
    },
  }),

  route({
    method: 'get',
    path: '/api/keys',
    summary: "The account's API keys",
    description: 'Newest first, revoked and expired ones included (with their status). Never the keys themselves.',
    tags,
    auth: account,
    response: z.array(KeyView).max(KEYS_LISTED).describe(`The newest ${KEYS_LISTED} keys at most`),
    example: { response: keyListExample },
    handler: async ({ auth, deps }) => (await deps.apiKeys.listForUser(auth.sub)).map(presentKey),
  }),

  route({
    method: 'delete',
    path: '/api/keys/:id',
    summary: 'Revoke an API key',
    description: 'Requests with a revoked key get 401: at once on the server that revoked it, within API_KEY_CACHE_SECONDS (5 s) on every other API process. Revoking twice is harmless.',
    tags,
    auth: account,
    params: KeyIdParams,
    response: KeyView,
    errors: [404],
    example: { params: { id: testKeyExample.id }, response: revokedKeyExample },
    handler: async ({ params, auth, deps }) => presentKey(await revokeApiKey(deps, auth.sub, params.id)),
  }),
];
