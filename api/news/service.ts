/** The News Intelligence API (spec: news-intelligence-api.md). */
import type { ServiceDefinition } from '../shared/app';
import { newsEnvelope } from '../shared/envelope';
import { opsRoutes } from '../shared/ops.routes';
import type { NewsDeps } from './deps';
import { articleRoutes } from './articles.routes';
import { billingRoutes } from './billing.routes';
import { entityRoutes } from './entities.routes';
import { importRoutes } from './imports.routes';
import { sourceRoutes } from './sources.routes';
import { reenrichRoutes } from './reenrich.routes';
import { keyRoutes } from './keys.routes';
import { preferenceRoutes } from './preferences.routes';
import { usageRoutes } from './usage.routes';
import { whatsappRoutes } from './whatsapp.routes';

export { makeNewsDeps, type NewsDeps } from './deps';

export const newsService: ServiceDefinition<NewsDeps> = {
  name: 'news',
  title: 'News Intelligence API',
  version: '0.1.0',
  description: 'Articles, search, entities, preferences and a personalised feed behind tiered API keys.',
  envelope: newsEnvelope,
  routes: [...keyRoutes, ...usageRoutes, ...preferenceRoutes, ...articleRoutes, ...entityRoutes, ...importRoutes, ...sourceRoutes, ...reenrichRoutes, ...billingRoutes, ...whatsappRoutes, ...opsRoutes<NewsDeps>('news')],
  extraSecuritySchemes: {
    apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A Business API key (POST /api/keys); its plan sets the scopes, include modules and limits.' },
    stripeSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'Stripe-Signature',
      description: "Stripe's signature over the exact body with the endpoint's signing secret (STRIPE_WEBHOOK_SECRET), timestamped; a missing or wrong one is a 400.",
    },
    metaSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Hub-Signature-256',
      description: "Meta's HMAC-SHA256 of the exact body with the app secret (WHATSAPP_APP_SECRET); a missing or wrong one is a 401.",
    },
    metaVerifyToken: {
      type: 'apiKey',
      in: 'query',
      name: 'hub.verify_token',
      description: "The verify token of Meta's webhook set-up call (WHATSAPP_VERIFY_TOKEN), in the query as Meta's protocol sends it; a wrong one is a 403.",
    },
  },
};
