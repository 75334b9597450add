/**
 * defineRoute: one declaration is the validator, the handler's types and the OpenAPI operation
 * (GUIDE §3). Handlers return data; the app wraps it in `{success:true, data}` and sets the status.
 */
import type { Context } from 'koa';
import { type z } from 'zod';
import { AppError } from '../../models/errors';
import { validationError } from './errors';
import type { AuthPolicy, AuthServices } from './auth';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `{name, method, path}` of the target route; parameters are runtime expressions (`$response.body#/data/id`). */
export interface RouteLink {
  name: string;
  method: HttpMethod;
  path: string;
  parameters: Record<string, string>;
}

export interface ReplyInit<T> {
  data?: T;
  message?: string;
  pagination?: unknown;
  status?: number;
  headers?: Record<string, string>;
}

/** A handler result with more than data: a message, pagination, another status, headers. */
export class Reply<T = unknown> {
  constructor(readonly init: ReplyInit<T>) {}
}

export const reply = <T>(init: ReplyInit<T>): Reply<T> => new Reply(init);

/** The handler wrote the response itself (a stream, a file, Server-Sent Events). */
export const RAW = Symbol('raw-response');

export interface RouteInput<P, Q, B, A, D> {
  params: P;
  query: Q;
  body: B;
  auth: A;
  ctx: Context;
  deps: D;
}

type Awaitable<T> = T | Promise<T>;

export interface RouteDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType, A, D> {
  method: HttpMethod;
  /** Koa router syntax: `/support/:id`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthPolicy<A>;
  /** Runs after authentication, before validation: rate limits keyed by the caller. */
  rateLimit?: (input: { ctx: Context; auth: A; deps: D }) => Promise<void>;
  params?: P;
  query?: Q;
  body?: B;
  /** Media type of the request body (multipart routes parse their own body). */
  bodyType?: 'application/json' | 'multipart/form-data' | 'application/x-ndjson';
  /** Keep the body's exact text in `ctx.request.rawBody` too (signed webhooks verify it). */
  rawBody?: boolean;
  /** Schema of `data` in the success envelope (documentation). */
  response?: R;
  /** Schema of `pagination` beside `data` in the success envelope, on lists that send one. */
  pagination?: z.ZodType;
  /** Success status (200 unless said). */
  status?: number;
  /** Other success statuses the route may answer with the same body (a PUT: 201 created, 200 replaced). */
  alsoStatus?: number[];
  /** Statuses (besides 400/401/403/500) worth listing in the docs for this route. */
  errors?: number[];
  /** Non-JSON success responses (downloads, event streams): the media type(s) for the docs. */
  produces?: string | readonly string[];
  /** A second success media type the route may answer with instead of JSON (a stream on request). */
  alsoProduces?: { mediaType: string; description: string; schema?: Record<string, unknown> };
  /** OpenAPI links from the success response to the routes that use what it returns. */
  links?: RouteLink[];
  handler: (input: RouteInput<z.output<P>, z.output<Q>, z.output<B>, A, D>) => Awaitable<z.input<R> | Reply<z.input<R>> | typeof RAW>;
}

export interface AnyRoute<D = unknown> {
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthPolicy<unknown>;
  rateLimit?: (input: { ctx: Context; auth: unknown; deps: D }) => Promise<void>;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  bodyType?: 'application/json' | 'multipart/form-data' | 'application/x-ndjson';
  rawBody?: boolean;
  response?: z.ZodType;
  pagination?: z.ZodType;
  status?: number;
  alsoStatus?: number[];
  errors?: number[];
  produces?: string | readonly string[];
  alsoProduces?: { mediaType: string; description: string; schema?: Record<string, unknown> };
  links?: RouteLink[];
  handler: (input: RouteInput<unknown, unknown, unknown, unknown, D>) => Awaitable<unknown>;
}

type EmptyObject = z.ZodObject<Record<string, never>>;

export function defineRoute<
  D,
  P extends z.ZodType = EmptyObject,
  Q extends z.ZodType = EmptyObject,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodUnknown,
  A = unknown,
>(def: RouteDef<P, Q, B, R, A, D>): AnyRoute<D> {
  return def as unknown as AnyRoute<D>;
}

/** Binds routes to a dependency type once, so each route file gets typed deps. */
export function routeFactory<D>() {
  return <
    P extends z.ZodType = EmptyObject,
    Q extends z.ZodType = EmptyObject,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodUnknown,
    A = unknown,
  >(
    def: RouteDef<P, Q, B, R, A, D>,
  ): AnyRoute<D> => defineRoute<D, P, Q, B, R, A>(def);
}

function parseOrThrow(schema: z.ZodType | undefined, value: unknown, where: 'body' | 'query' | 'params'): unknown {
  if (!schema) return where === 'body' ? undefined : {};
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

function parseSignedBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('VALIDATION_FAILED', 'The request body is not valid JSON');
  }
}

/** The Koa middleware that runs one route: auth, validation, handler, envelope. */
export function routeMiddleware<D>(route: AnyRoute<D>, deps: D, auth: AuthServices) {
  return async (ctx: Context): Promise<void> => {
    const principal = await route.auth.authenticate(ctx, auth, deps);
    ctx.state.principal = principal;
    if (route.rateLimit) await route.rateLimit({ ctx, auth: principal, deps });
    const params = parseOrThrow(route.params, ctx.params ?? {}, 'params');
    const query = parseOrThrow(route.query, ctx.query, 'query');
    // A signed body (webhooks) is parsed only now, after its signature was checked.
    if (route.rawBody) (ctx.request as { body?: unknown }).body = parseSignedBody((ctx.request as { rawBody?: string }).rawBody);
    const rawBody = (ctx.request as { body?: unknown }).body;
    // Multipart and JSON-lines routes read their own streamed body; their schema only documents it.
    const body = route.body && (route.bodyType ?? 'application/json') === 'application/json' ? parseOrThrow(route.body, rawBody ?? {}, 'body') : undefined;
    const result = await route.handler({ params, query, body, auth: principal, ctx, deps });
    if (result === RAW) return;
    const init: ReplyInit<unknown> = result instanceof Reply ? result.init : { data: result };
    ctx.status = init.status ?? route.status ?? 200;
    for (const [k, v] of Object.entries(init.headers ?? {})) ctx.set(k, v);
    ctx.body = {
      success: true,
      ...(init.message !== undefined ? { message: init.message } : {}),
      data: init.data ?? null,
      ...(init.pagination !== undefined ? { pagination: init.pagination } : {}),
    };
  };
}

/** The fields of a PATCH body that were given (undefined ones dropped), for a $set. */
export function definedFields<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}
