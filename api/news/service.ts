/** The News Intelligence API (spec: news-intelligence-api.md). */
import type { ServiceDefinition } from '../shared/app';
import { newsEnvelope } from '../shared/envelope';
import { newsDescription, newsTags } from './reference';
import { opsRoutes } from '../shared/ops.routes';
import type { NewsDeps } from './deps';
import { articleRoutes } from './articles.routes';
import { billingRoutes } from './billing.routes';
import { entityRoutes } from './entities.routes';
import { importRoutes } from './imports.routes';
import { sourceRoutes } from './sources.routes';
import { editorialRoutes } from './editorial.routes';
import { reenrichRoutes } from './reenrich.routes';
import { keyRoutes } from './keys.routes';
import { preferenceRoutes } from './preferences.routes';
import { usageRoutes } from './usage.routes';
import { whatsappRoutes } from './whatsapp.routes';
import { streamRoutes } from './stream.routes';
import { webhookRoutes } from './webhooks.routes';

export { makeNewsDeps, type NewsDeps } from './deps';

export const newsService: ServiceDefinition<NewsDeps> = {
  name: 'news',
  title: 'News Intelligence API',
  version: '0.1.0',
  description: newsDescription,
  tagDescriptions: newsTags,
  envelope: newsEnvelope,
  routes: [...keyRoutes, ...usageRoutes, ...preferenceRoutes, ...articleRoutes, ...streamRoutes, ...entityRoutes, ...importRoutes, ...sourceRoutes, ...editorialRoutes, ...reenrichRoutes, ...billingRoutes, ...whatsappRoutes, ...webhookRoutes, ...opsRoutes<NewsDeps>('news')],
  extraSecuritySchemes: {
    apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key, created in the dashboard (API keys) or with POST /api/keys, and shown once. Its account\'s plan sets the include modules and limits; its scopes, the operations it may call. nws_live_… keys count against the plan; nws_test_… keys against the sandbox\'s daily cap.' },
  },
};
