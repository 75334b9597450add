/**
 * The customer dashboard (issue 26): the web page and the session-signed-in API behind it, on
 * WEB_PORT (3000), and the staff's accounts and roles (issue 38). API customers keep using the news
 * API with bearer JWTs and API keys.
 */
import type { Config } from '../../models/config';
import type { ServiceDefinition } from '../shared/app';
import { newsEnvelope } from '../shared/envelope';
import { accountRoutes } from './account.routes';
import { authRoutes } from './auth.routes';
import { staffRoutes } from './staff.routes';
import { opsRoutes } from './ops.routes';
import { unsubscribeRoutes } from './unsubscribe.routes';
import { webhookRoutes } from './webhooks.routes';
import { consoleRoutes } from './console';
import type { WebDeps } from './deps';
import { assertSameOrigin, SESSION_COOKIE } from './session';
import { defaultDistDir, securityHeaders, staticSite } from './site';
import { webDescription, webTags } from './reference';

export { makeWebDeps, type WebDeps } from './deps';

export const createWebService = (config: Config): ServiceDefinition<WebDeps> => ({
  ...webService,
  mountedRoutes: consoleRoutes<WebDeps>(config),
});

/** The dashboard's own routes (documented); the process serves createWebService's, with the console's. */
export const webService: ServiceDefinition<WebDeps> = {
  name: 'web',
  title: 'Customer dashboard',
  version: '0.1.0',
  description: webDescription,
  tagDescriptions: webTags,
  envelope: newsEnvelope,
  routes: [...authRoutes, ...accountRoutes, ...webhookRoutes, ...staffRoutes, ...opsRoutes, ...unsubscribeRoutes],
  middleware: [
    (deps) => securityHeaders(deps.config.env === 'production'),
    (deps) => async (ctx, next) => {
      if (ctx.path.startsWith('/api/')) assertSameOrigin(ctx, deps.webOrigin);
      await next();
    },
    (deps) => staticSite(deps.config.web.distDir ?? defaultDistDir()),
  ],
  extraSecuritySchemes: {
    sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The dashboard session, set by POST /api/auth/verify (HttpOnly, SameSite=Lax, Secure when the dashboard is served over HTTPS).' },
  },
};
