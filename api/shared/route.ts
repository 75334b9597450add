/**
 * defineRoute: one declaration is the validator, the handler's types and the OpenAPI operation
 * (GUIDE §3). Handlers return data; the app wraps it in `{success:true, data}` and sets the status.
 */
import type { Context } from 'koa';
import { type z } from 'zod';
import { AppError } from '../../models/errors';
import { idempotencyStore, type IdempotencyStore, type StoredAnswer } from '../../models/infra/idempotency';
import { callerOf, idempotencyRecordId, parseIdempotencyKey, REPLAYED_HEADER, requestFingerprint, requestKeyOf } from '../../models/infra/idempotency.rules';
import type { MongoHandle } from '../../models/infra/mongo';
import { toFailure, validationError } from './errors';
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
  /**
   * On an idempotent route called with an Idempotency-Key: the request's identity (the caller, the
   * operation, the key and the fingerprint, hashed). The operation stores it with what it creates,
   * so that running the request again (after a 5xx) finds the first write instead of making a
   * second. Undefined without the header.
   */
  requestKey: string | undefined;
}

/**
 * A creating route's Idempotency-Key (docs/decisions.md "Idempotency-Key"). `secretAnswer`: its
 * success answer holds a secret shown once (an API key), which is never stored; a repeat gets the
 * error this builds from the answer's data instead of the answer.
 */
export type Idempotency<T> = true | { secretAnswer: (data: T) => AppError };

type Awaitable<T> = T | Promise<T>;

/**
 * One worked example of an operation, for the reference and its code samples: the request a
 * customer would send (path and query parameters, body) and the `data` (and `pagination`) of the
 * answer, in the Portuguese financial news, tickets and quizzes the service holds. The documents
 * carry them as OpenAPI `example`s; tests/unit/openapi-examples.test.ts checks each against the
 * document's own schema, and requires one on every operation.
 */
export interface RouteExample<P = unknown, Q = unknown, B = unknown, R = unknown> {
  /** Every path parameter, as sent. */
  params?: P;
  /** Query parameters worth showing (required ones always), as the document types them. */
  query?: { [K in keyof Q]?: unknown };
  /** The request body: JSON as sent, or the text of a non-JSON body (JSON lines). */
  body?: B | string;
  /** The answer's `data` (JSON), or its text (a CSV, a webhook's challenge). */
  response?: R | string;
  /** The answer's `pagination`, on lists that send one. */
  pagination?: unknown;
  /** The answer's `message`, when the route sends one. */
  message?: string;
}

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
  /** The largest body a streamed route reads (its own limit, above the parser's): documented as the text's maxLength. */
  bodyMaxBytes?: number;
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
  /**
   * A creating route that accepts `Idempotency-Key`: a repeat with the same key gets the first
   * answer and writes nothing; the handler passes `requestKey` to its operation.
   */
  idempotent?: Idempotency<z.input<R>>;
  /** A worked example of the request and its answer (docs, code samples). */
  example?: RouteExample<z.input<P>, z.input<Q>, z.input<B>, z.input<R>>;
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
  bodyMaxBytes?: number;
  rawBody?: boolean;
  response?: z.ZodType;
  pagination?: z.ZodType;
  status?: number;
  alsoStatus?: number[];
  errors?: number[];
  produces?: string | readonly string[];
  alsoProduces?: { mediaType: string; description: string; schema?: Record<string, unknown> };
  links?: RouteLink[];
  idempotent?: Idempotency<unknown>;
  example?: RouteExample;
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

/** The Koa middleware that runs one route: auth, validation, Idempotency-Key, handler, envelope. */
export function routeMiddleware<D>(route: AnyRoute<D>, deps: D, auth: AuthServices) {
  const store = route.idempotent ? storeOf(route, deps) : undefined;
  // Credentials a client sends (not a provider's signature, which its own limit covers) are limited
  // by their failures per client IP: past the limit, 429 before they are looked at (issue 35).
  const guarded = route.auth.scheme !== undefined && !route.auth.signed ? auth.failures : undefined;
  const authenticate = async (ctx: Context) => {
    if (!guarded) return await route.auth.authenticate(ctx, auth, deps);
    const client = `ip:${ctx.ip}`;
    guarded.refuseWhileBlocked(client);
    try {
      return await route.auth.authenticate(ctx, auth, deps);
    } catch (err) {
      if (err instanceof AppError && err.code === 'UNAUTHENTICATED') await guarded.fail(ctx, client);
      throw err;
    }
  };
  return async (ctx: Context): Promise<void> => {
    const principal = await authenticate(ctx);
    ctx.state.principal = principal;
    if (route.rateLimit) await route.rateLimit({ ctx, auth: principal, deps });
    const params = parseOrThrow(route.params, ctx.params ?? {}, 'params');
    const query = parseOrThrow(route.query, ctx.query, 'query');
    // A signed body (webhooks) is parsed only now, after its signature was checked.
    if (route.rawBody) (ctx.request as { body?: unknown }).body = parseSignedBody((ctx.request as { rawBody?: string }).rawBody);
    const rawBody = (ctx.request as { body?: unknown }).body;
    // Multipart and JSON-lines routes read their own streamed body; their schema only documents it.
    const body = route.body && (route.bodyType ?? 'application/json') === 'application/json' ? parseOrThrow(route.body, rawBody ?? {}, 'body') : undefined;
    const run = async (requestKey: string | undefined) => {
      const result = await route.handler({ params, query, body, auth: principal, ctx, deps, requestKey });
      if (result === RAW) return undefined;
      const init: ReplyInit<unknown> = result instanceof Reply ? result.init : { data: result };
      ctx.status = init.status ?? route.status ?? 200;
      for (const [k, v] of Object.entries(init.headers ?? {})) ctx.set(k, v);
      ctx.body = {
        success: true,
        ...(init.message !== undefined ? { message: init.message } : {}),
        data: init.data ?? null,
        ...(init.pagination !== undefined ? { pagination: init.pagination } : {}),
      };
      return { status: ctx.status, data: init.data, body: ctx.body, headers: init.headers ?? {} };
    };
    const key = store ? parseIdempotencyKey(ctx.req.headers['idempotency-key']) : undefined;
    if (!store || key === undefined) {
      await run(undefined);
      return;
    }
    // A streamed body is not read before the claim: its media type stands in for it in the fingerprint.
    const streamed = route.body && (route.bodyType ?? 'application/json') !== 'application/json' ? { mediaType: ctx.request.type } : {};
    await runOnce(store, route, ctx, { key, principal, params, query, body, ...streamed }, run);
  };
}

function storeOf<D>(route: AnyRoute<D>, deps: D): IdempotencyStore {
  const mongo = (deps as { mongo?: MongoHandle } | null)?.mongo;
  if (!mongo) throw new Error(`${route.method.toUpperCase()} ${route.path} is idempotent: its service's deps need the MongoDB handle (deps.mongo)`);
  return idempotencyStore(mongo.conn);
}

/**
 * Refusals that are not kept, as Stripe keeps none for a request that failed validation: the request
 * as sent (400, 413, 415) or as things stand now (409, 429). The key is free again, for the request
 * corrected or repeated.
 */
const NOT_KEPT = new Set([400, 409, 413, 415, 429]);

type Answered = { status: number; data: unknown; body: unknown; headers: Record<string, string> } | undefined;

/**
 * Runs a request that carries an Idempotency-Key once per caller, operation and key: the first
 * claims the key and its answer is kept (a success, or a 404: the same request gets the same
 * answer); a repeat gets that answer with `Idempotent-Replayed: true`; the key sent with another
 * request is 422; a repeat while the first still runs is 409. A refusal (400, 409, 413, 415, 429)
 * frees the key. A 5xx is not kept: the claim is released (the key stays bound to this request),
 * and the repeat runs the operation again, which finds under `requestKey` what the first attempt
 * wrote. A failure to keep the answer loses nothing: the claim then lapses after its lease and the
 * repeat runs again in the same way.
 */
async function runOnce<D>(
  store: IdempotencyStore,
  route: AnyRoute<D>,
  ctx: Context,
  request: { key: string; principal: unknown; params: unknown; query: unknown; body: unknown; mediaType?: string },
  run: (requestKey: string) => Promise<Answered>,
): Promise<void> {
  const id = idempotencyRecordId({ caller: callerOf(request.principal), method: route.method, path: route.path }, request.key);
  const fingerprint = requestFingerprint(request);
  const claim = await store.claim(id, fingerprint);
  if (claim.kind === 'mismatch') {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request to this operation: send a new key for a new request');
  }
  if (claim.kind === 'busy') {
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed: retry in a few seconds');
  }
  if (claim.kind === 'replay') return replay(ctx, claim.answer);
  let answered: Answered;
  try {
    answered = await run(requestKeyOf(id, fingerprint));
  } catch (err) {
    const { failure, headers } = toFailure(err);
    if (failure.status >= 500) {
      await store.release(id, claim.owner).catch(() => undefined);
    } else if (NOT_KEPT.has(failure.status)) {
      await store.forget(id, claim.owner).catch(() => undefined);
    } else {
      const details = failure.details === undefined ? {} : { details: JSON.stringify(failure.details) };
      await store.complete(id, claim.owner, { kind: 'failure', code: failure.code, message: failure.message, ...details, headers: headers ?? {} }).catch(() => undefined);
    }
    throw err;
  }
  if (!answered) {
    await store.release(id, claim.owner).catch(() => undefined);
    return;
  }
  const secret = typeof route.idempotent === 'object' ? route.idempotent.secretAnswer : undefined;
  const answer: StoredAnswer = secret
    ? failureAnswer(secret(answered.data))
    : { kind: 'success', status: answered.status, body: JSON.stringify(answered.body), headers: answered.headers };
  await store.complete(id, claim.owner, answer).catch(() => undefined);
}

function failureAnswer(err: AppError): StoredAnswer {
  return { kind: 'failure', code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: JSON.stringify(err.details) }), headers: err.headers ?? {} };
}

/** Sends a kept answer again, marked as such. */
function replay(ctx: Context, answer: StoredAnswer): void {
  const headers = { ...answer.headers, [REPLAYED_HEADER]: 'true' };
  if (answer.kind === 'failure') {
    throw new AppError(answer.code, answer.message, { headers, ...(answer.details === undefined ? {} : { details: JSON.parse(answer.details) as Record<string, unknown> }) });
  }
  ctx.status = answer.status;
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.type = 'application/json';
  ctx.body = JSON.parse(answer.body) as unknown;
}

/** The fields of a PATCH body that were given (undefined ones dropped), for a $set. */
export function definedFields<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}
