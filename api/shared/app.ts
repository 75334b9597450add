/**
 * The app factory every service uses: request ids, access logs, compression, the error envelope,
 * body limits, health, OpenAPI and docs, the routes, 404/405 in the service's envelope.
 */
import { randomUUID } from 'node:crypto';
import { constants as zlib } from 'node:zlib';
import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import compose from 'koa-compose';
import compress from 'koa-compress';
import { createTokenVerifier, type TokenVerifier } from '../../models/auth/token.rules';
import { AppError } from '../../models/errors';
import type { Config } from '../../models/config';
import type { AuthServices } from './auth';
import { type Envelope, type EnvelopeRule, envelopeSelector } from './envelope';
import { toFailure } from './errors';
import { healthHandler } from './health';
import { healthChecks, type HealthCheck, type Infra } from './infra';
import { DOCS_ASSETS, DOCS_INIT_JS, docsPage, referenceAsset, referencePage } from './docs-pages';
import { buildOpenApi } from './openapi';
import { createFailureLimiter, createMongoLimiter } from './rate-limit';
import { type AnyRoute, routeMiddleware } from './route';
import type { Principal } from '../../models/auth/token.rules';

export type ServiceName = 'news' | 'support' | 'quiz' | 'web';

export interface ServiceDefinition<D> {
  name: ServiceName;
  title: string;
  version: string;
  description: string;
  envelope: Envelope;
  envelopeRules?: EnvelopeRule[];
  routes: AnyRoute<D>[];
  /**
   * Another service's operations served here under this service's credential (the staff console:
   * api/web/console.ts). Served and rate-limited like the routes, and documented in their own
   * service's document, not in this one.
   */
  mountedRoutes?: AnyRoute<D>[];
  /** Extra middleware run before routing (rate limiting…), in order. */
  middleware?: ((deps: D) => Koa.Middleware)[];
  extraSecuritySchemes?: Record<string, Record<string, unknown>>;
  /** What each of its routes' tags groups (the reference's sections): every tag has one. */
  tagDescriptions: Record<string, string>;
  /** A middleware limits every route (documented as 429 on each). */
  everyRouteRateLimited?: boolean;
}

export interface AppOptions {
  /** Defaults to the configured JWT secret / JWKS. */
  verifyToken?: TokenVerifier;
  /** Defaults to MongoDB, Temporal and MinIO of the infra. */
  healthChecks?: HealthCheck[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createApp<D extends Infra>(service: ServiceDefinition<D>, deps: D, options: AppOptions = {}): Koa {
  const { config, logger } = deps;
  // Behind N proxies the client IP is the Nth X-Forwarded-For entry from the right: the leftmost
  // ones are whatever the client sent, and would let it choose its own rate-limit key.
  const hops = config.http.proxyHops;
  const app = new Koa(withCompression({ proxy: hops > 0, maxIpsCount: hops }));
  app.silent = true; // errors are logged by our middleware, with the request id
  const envelopeFor = envelopeSelector(service.envelope, service.envelopeRules);
  const auth: AuthServices = {
    failures: createFailureLimiter(
      createMongoLimiter(deps.mongo.ready, config.mongo.db, {
        name: `${service.name}-auth-failures`,
        points: config.rateLimit.authFailuresPerMinute,
        durationSec: 60,
        syncMs: config.rateLimit.syncMs,
        message: `Too many failed authentications: ${config.rateLimit.authFailuresPerMinute} a minute per client IP. Check the credentials you send, then retry after the time in Retry-After`,
      }),
    ),
    verifyToken:
      options.verifyToken ??
      createTokenVerifier({
        secret: config.auth.jwtSecret,
        jwksUrl: config.auth.jwksUrl,
        issuer: config.auth.issuer,
        audience: config.auth.audience,
        maxLifetimeSeconds: config.auth.maxLifetimeSeconds,
      }),
  };
  const startedAt = Date.now();

  // 1. Request id and access log.
  app.use(async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const principal = ctx.state.principal as { sub?: string; userId?: string } | undefined;
      // Only the path: query strings may carry tokens (webhook verification) and are never logged.
      logger.info(
        {
          reqId: requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          ...(principal?.sub ? { sub: principal.sub } : {}),
        },
        'request',
      );
    }
  });

  // (Outside all of these: compression, see withCompression.)

  // 2. Errors → the service's envelope.
  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        throw new AppError('ROUTE_NOT_FOUND', `Route not found: ${ctx.method} ${ctx.path}`);
      }
      // The router set Allow and 405 (or 501 for a method it does not know) without a body.
      if (ctx.body === undefined && (ctx.status === 405 || ctx.status === 501)) {
        throw new AppError('METHOD_NOT_ALLOWED', `Method ${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (err) {
      const { failure, headers, unexpected } = toFailure(err);
      if (unexpected) logger.error({ reqId: ctx.state.requestId, err }, 'unhandled error');
      else if (failure.status >= 500) logger.warn({ reqId: ctx.state.requestId, code: failure.code, err: (err as Error).message }, 'dependency failure');
      ctx.status = failure.status;
      for (const [k, v] of Object.entries(headers ?? {})) ctx.set(k, v);
      ctx.body = envelopeFor(ctx.path).failure(failure);
    }
  });

  for (const make of service.middleware ?? []) app.use(make(deps));

  // 3. Bodies: JSON, form and text up to the configured limit. Multipart routes parse their own.
  // Routes that verify a signature over the body (webhooks) also get its exact text.
  const limit = config.http.bodyLimitBytes;
  const parser = (signed: boolean) =>
    koaBody({
      // A signed body is read as text only: it is parsed after its signature is checked (route.ts).
      json: !signed,
      text: true,
      urlencoded: !signed,
      multipart: false,
      ...(signed ? { textTypes: ['application/json', 'application/*+json', 'text/*'] } : {}),
      jsonLimit: limit,
      formLimit: limit,
      textLimit: limit,
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      // Parser errors with a 4xx (malformed JSON 400, too large 413, unknown encoding 415) keep it;
      // anything else from reading a body (a zlib error from broken gzip…) is the client's too: 400.
      onError: (err: Error) => {
        const status = (err as { status?: unknown }).status;
        if (typeof status === 'number' && status >= 400 && status < 500) throw err;
        throw new AppError('VALIDATION_FAILED', 'The request body could not be read: it is malformed or its Content-Encoding is wrong');
      },
    });
  const parseBody = parser(false);
  const readSignedBody = parser(true);
  const rawBodyPaths = new Set(service.routes.filter((r) => r.rawBody).map((r) => r.path));
  // A multipart route reads its own stream; one at a fixed path (Mailgun's webhook) may be posted a
  // urlencoded form too, which the parser must then leave unread.
  const ownFormPaths = new Set(service.routes.filter((r) => r.bodyType === 'multipart/form-data' && !r.path.includes(':')).map((r) => r.path));
  app.use(async (ctx, next) => {
    if (ownFormPaths.has(ctx.path)) return await next();
    if (!rawBodyPaths.has(ctx.path)) return await parseBody(ctx, next);
    return await readSignedBody(ctx, async () => {
      const request = ctx.request as { body?: unknown; rawBody?: string };
      if (typeof request.body === 'string') request.rawBody = request.body;
      request.body = undefined;
      await next();
    });
  });

  const routes = withDefaultLimits(service, deps);
  const router = new Router();
  const checks = options.healthChecks ?? healthChecks(deps);
  router.get('/health', healthHandler(service.name, checks, service.envelope, startedAt));

  const documentJson = JSON.stringify(serviceDocument(service, config));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  });
  const page = docsPage(service.title);
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = DOCS_INIT_JS;
  });
  const reference = referencePage(service.title, `${service.title}: the reference, with examples and code samples.`);
  router.get('/reference', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = reference;
  });
  router.get('/reference/:asset', (ctx) => {
    const asset = referenceAsset(ctx.params.asset ?? '');
    if (!asset) throw new AppError('ROUTE_NOT_FOUND', `Route not found: GET ${ctx.path}`);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  router.get('/docs/:asset', (ctx) => {
    const asset = DOCS_ASSETS[ctx.params.asset ?? ''];
    if (!asset) throw new AppError('ROUTE_NOT_FOUND', `Route not found: GET ${ctx.path}`);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  for (const route of routes) {
    router[route.method](route.path, routeMiddleware(route, deps, auth));
  }
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Smaller answers are sent as they are: a few bytes saved would not pay for the compressor. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

const TEXT_LIKE = /^(?:text\/[\w.+-]+|application\/(?:json|javascript|xml|x-ndjson|[\w.-]+\+(?:json|xml))|image\/svg\+xml)$/;

/**
 * The answers compressed: JSON, text (HTML, CSV, CSS, plain), JavaScript, XML, SVG. Never a stream
 * of Server-Sent Events (text/event-stream, the AI chat's): a compressor holds the events back
 * until its buffer fills, so the client would get them late and in bursts. Binary answers
 * (attachments, images, PDFs, octet-stream) are sent as they are: mostly compressed already.
 */
export function compressibleType(type: string): boolean {
  const mime = (type.split(';')[0] ?? '').trim().toLowerCase();
  return mime !== 'text/event-stream' && TEXT_LIKE.test(mime);
}

/**
 * Brotli or gzip, as the client's Accept-Encoding prefers (brotli on a tie), for answers of a
 * compressible type from COMPRESS_THRESHOLD_BYTES up; Vary: Accept-Encoding on every answer. An
 * answer that is already encoded (the dashboard's precompressed assets) is left alone. Brotli at
 * quality 4 costs about what gzip does for smaller output; zstd (experimental in Node) and
 * deflate are not offered.
 */
export function compression(): Koa.Middleware {
  return compress({
    filter: compressibleType,
    threshold: COMPRESS_THRESHOLD_BYTES,
    br: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    gzip: {},
    deflate: false,
    zstd: false,
  });
}

/**
 * Koa's options with compression composed outside every middleware of the app, those added later
 * included (Koa 3's `compose` option; @types/koa does not list it yet): the last thing done to an
 * answer, so whatever reads a body on its way out (the integration tests' OpenAPI check, which
 * puts itself first) reads it as the route made it.
 */
export function withCompression<O extends object>(options: O): O & { compose: (middleware: Koa.Middleware[]) => Koa.Middleware } {
  const compressAnswers = compression();
  return { ...options, compose: (middleware) => compose([compressAnswers, ...middleware]) };
}

/**
 * The service's OpenAPI document, from its definition alone (no database, no server: ops/openapi-docs.ts
 * writes it for Spectral). Every route answers 429: under the service's own middleware (support), or
 * under the limit withDefaultLimits gives each route (below).
 */
export function serviceDocument<D>(service: ServiceDefinition<D>, config: Pick<Config, 'http' | 'isProduction'>): Record<string, unknown> {
  return buildOpenApi({
    service: service.name,
    serverUrl: config.http.publicUrls[service.name],
    serverDescription: config.isProduction ? 'Production' : 'Local development (npm start)',
    tagDescriptions: service.tagDescriptions,
    title: service.title,
    version: service.version,
    description: service.description,
    routes: service.routes,
    envelopeFor: envelopeSelector(service.envelope, service.envelopeRules),
    everyRouteRateLimited: true,
    ...(service.extraSecuritySchemes ? { extraSecuritySchemes: service.extraSecuritySchemes } : {}),
  });
}

/**
 * Every route is limited. One that declares its own limit (the AI routes), or whose authentication
 * counts one (API keys), keeps it; a service limiting every request in a middleware (support, per IP,
 * spec §8) keeps that. Any other route is limited per user behind a bearer token, per client IP
 * when public, and per sender IP at a webhook's rate when a provider signs it
 * (RATE_LIMIT_PER_USER_PER_MINUTE, RATE_LIMIT_PER_IP_PER_MINUTE, RATE_LIMIT_WEBHOOK_PER_MINUTE).
 */
function withDefaultLimits<D extends Infra>(service: ServiceDefinition<D>, deps: D): AnyRoute<D>[] {
  const served = [...service.routes, ...(service.mountedRoutes ?? [])];
  if (service.everyRouteRateLimited) return served;
  const { config } = deps;
  const limiter = (who: 'user' | 'ip' | 'webhook', points: number) =>
    createMongoLimiter(deps.mongo.ready, config.mongo.db, {
      name: `${service.name}-${who}`,
      points,
      durationSec: 60,
      syncMs: config.rateLimit.syncMs,
      message: `Rate limit exceeded: ${points} ${who === 'webhook' ? 'deliveries' : 'requests'} per minute per ${who === 'user' ? 'user' : 'client IP'}`,
    });
  const perUser = limiter('user', config.rateLimit.perUserPerMinute);
  const perIp = limiter('ip', config.rateLimit.perIpPerMinute);
  const perSender = limiter('webhook', config.rateLimit.webhookPerMinute);
  return served.map((route) => {
    if (route.rateLimit || route.auth.rateLimited) return route;
    const rateLimit: AnyRoute<D>['rateLimit'] =
      route.auth.scheme === 'bearerAuth' || route.auth.scheme === 'adminBearer' || route.auth.scheme === 'sessionCookie'
        ? ({ ctx, auth }) => perUser.consume(ctx, `user:${(auth as Principal).sub}`)
        : route.auth.signed
          ? ({ ctx }) => perSender.consume(ctx, `ip:${ctx.ip}`)
          : ({ ctx }) => perIp.consume(ctx, `ip:${ctx.ip}`);
    return { ...route, rateLimit };
  });
}
