/** The Support Ticket API (spec: support-ticket-api.md). */
import type { Context, Next } from 'koa';
import type { ServiceDefinition } from '../shared/app';
import { supportEnvelope } from '../shared/envelope';
import { opsRoutes } from '../shared/ops.routes';
import type { SupportDeps } from './deps';
import { bulkRoutes } from './bulk/routes';
import { fastResponseRoutes } from './fast-response.routes';
import { mailgunRoutes } from './inbound-mailgun.routes';
import { liveRoutes } from './live.routes';
import { attachmentRoutes } from './tickets/attachments';
import { ticketRoutes } from './tickets/routes';
import { reportRoutes } from './reports.routes';
import { supportDescription, supportTags } from './reference';

export { makeSupportDeps, type SupportDeps } from './deps';

/** Operational endpoints are not counted: load balancers and docs readers are not clients. */
const UNLIMITED = /^\/(health|openapi\.json|docs|reference)(\/|$)/;

/** 100 requests per minute per client IP, headers on every response (spec §8). */
const perIpLimit = (deps: SupportDeps) => async (ctx: Context, next: Next) => {
  if (!UNLIMITED.test(ctx.path)) await deps.ipLimiter.consume(ctx, `ip:${ctx.ip}`);
  await next();
};

export const supportService: ServiceDefinition<SupportDeps> = {
  name: 'support',
  title: 'Support Ticket API',
  version: '0.1.0',
  description: supportDescription,
  tagDescriptions: supportTags,
  envelope: supportEnvelope,
  middleware: [perIpLimit],
  everyRouteRateLimited: true,
  // The live routes' static path (/support/eventos) before /support/:id.
  routes: [...reportRoutes, ...bulkRoutes, ...fastResponseRoutes, ...attachmentRoutes, ...liveRoutes, ...mailgunRoutes, ...ticketRoutes, ...opsRoutes<SupportDeps>('support')],
};
