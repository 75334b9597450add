/** The News Intelligence API (spec: news-intelligence-api.md). */
import type { ServiceDefinition } from '../shared/app';
import { newsEnvelope } from '../shared/envelope';
import { opsRoutes } from '../shared/ops.routes';
import type { NewsDeps } from './deps';
import { articleRoutes } from './articles.routes';
import { billingRoutes } from './billing.routes';
import { entityRoutes } from './entities.routes';
import { importRoutes } from './imports.routes';
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
  routes: [...keyRoutes, ...usageRoutes, ...preferenceRoutes, ...articleRoutes, ...entityRoutes, ...importRoutes, ...billingRoutes, ...whatsappRoutes, ...opsRoutes<NewsDeps>('news')],
  extraSecuritySchemes: { apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
};
