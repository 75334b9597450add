/**
 * OpenAPI 3.1 documents generated from the same zod schemas that validate requests (the pages that
 * show them to readers are api/shared/docs-pages.ts).
 */
import { z } from 'zod';
import { RATE_MAX } from '../../models/config';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_MAX, REPLAYED_HEADER } from '../../models/infra/idempotency.rules';
import type { Envelope } from './envelope';
import { codeSamples } from './code-samples';
import { failureExample, successExample } from './openapi-examples';
import type { AnyRoute } from './route';

type JsonSchema = Record<string, unknown>;

/** components.schemas of the document being built, by id. */
type Components = Record<string, JsonSchema>;

const INT32 = 2 ** 31;

/** OpenAPI's integer formats: int32 when the bounds fit in one, int64 otherwise. */
function integerFormat(json: JsonSchema): 'int32' | 'int64' {
  const low = (json.minimum ?? json.exclusiveMinimum) as number | undefined;
  const high = (json.maximum ?? json.exclusiveMaximum) as number | undefined;
  return low !== undefined && high !== undefined && low >= -INT32 && high < INT32 ? 'int32' : 'int64';
}

/** Formats whose every valid value has one length (zod checks them with a fixed-length pattern). */
const FIXED_LENGTH: Record<string, number> = { uuid: 36, date: 10 };

/** `#/$defs/X` (where zod puts a schema registered with `.meta({ id })`) → `#/components/schemas/X`. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : toComponentRefs(v)]),
  );
}

/**
 * The JSON Schema of a zod schema. A schema registered with `.meta({ id })` (zod's global registry)
 * is not inlined: zod extracts it into `$defs`, which become `components.schemas.<id>`, and every
 * use is a `$ref` to it. Two different schemas under one id are an error, as is a recursive schema
 * without an id (zod would name it `__schemaN`, which is not a name to show readers).
 */
export function toSchema(schema: z.ZodType, components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'integer' && jsonSchema.format === undefined) jsonSchema.format = integerFormat(jsonSchema);
      const fixed = FIXED_LENGTH[jsonSchema.format as string];
      if (jsonSchema.type === 'string' && fixed !== undefined && jsonSchema.maxLength === undefined) jsonSchema.maxLength = fixed;
    },
  }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  for (const [id, def] of Object.entries(defs)) {
    if (id.startsWith('__schema')) throw new Error(`A schema refers to itself without an id: register it with .meta({ id }) (${JSON.stringify(def).slice(0, 200)})`);
    const body = toComponentRefs(def) as JsonSchema;
    const known = components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(body)) throw new Error(`Two different schemas are registered as ${id}`);
    components[id] = body;
  }
  return toComponentRefs(json) as JsonSchema;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  // Unwrap refinements/pipes down to the object that carries the fields.
  let s: z.ZodType = schema;
  for (let i = 0; i < 5; i += 1) {
    if (s instanceof z.ZodObject) return s.shape as Record<string, z.ZodType>;
    const def = (s as unknown as { def?: { in?: z.ZodType; innerType?: z.ZodType; schema?: z.ZodType } }).def;
    const next = def?.in ?? def?.innerType ?? def?.schema;
    if (!next) break;
    s = next;
  }
  return {};
}

function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

/** The longest `message` of a success envelope: a short constant of the handler ("Ticket criado"). */
const MESSAGE_MAX = 200;

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Invalid request',
  401: 'Missing or invalid credentials',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Refused for good: not to be delivered again',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'The Idempotency-Key was used before with another request',
  429: 'Rate limit exceeded',
  500: 'Internal error',
  503: 'A dependency is unavailable',
  504: 'The work was cancelled or did not finish in time',
};

export interface OpenApiOptions<D> {
  /** The service's name (news, support, quiz, web): its typed client in the code samples. */
  service: string;
  title: string;
  version: string;
  /** The document's overview (Markdown): info.description. */
  description: string;
  /** Where the service is called (`servers`), and the address of the code samples. */
  serverUrl: string;
  /** Which environment that is (production, local development). */
  serverDescription?: string;
  /** What each tag groups, for the reference's sections. */
  tagDescriptions?: Record<string, string>;
  routes: AnyRoute<D>[];
  envelopeFor: (path: string) => Envelope;
  extraSecuritySchemes?: Record<string, JsonSchema>;
  /** A service-wide limit (support's per-IP limit) answers 429 on every route. */
  everyRouteRateLimited?: boolean;
}

/** `get` + `/support/bulk/:operationId` → `getSupportBulkOperationId`. */
function operationIdFor(method: string, koaPath: string): string {
  const oaPath = koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return `${method}${oaPath.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Every error status a route can answer, derived from what it declares, so the document cannot
 * forget one: 400 (validation, malformed body), 500 and 503 (a dependency down) everywhere; 401/403
 * with authentication; 404 with path parameters; 413/415 where a body is read (the body parser
 * reads one on every POST, PUT, PATCH and DELETE); 429 under a rate limit; the route's own extras
 * (409…).
 */
function documentedErrors<D>(route: AnyRoute<D>, everyRouteRateLimited: boolean): Set<number> {
  const statuses = new Set([400, 500, 503, ...(route.errors ?? [])]);
  if (route.auth.scheme) (route.auth.failures ?? [401, 403]).forEach((s) => statuses.add(s));
  if (route.auth.rateLimited || route.rateLimit || everyRouteRateLimited) statuses.add(429);
  if (route.path.includes(':')) statuses.add(404);
  if (BODY_METHODS.has(route.method)) [413, 415].forEach((s) => statuses.add(s));
  // Idempotency-Key: a repeat while the first request runs (409), the key used with another request (422).
  if (route.idempotent) [409, 422].forEach((s) => statuses.add(s));
  return statuses;
}

/** The Idempotency-Key parameter of a creating route (api/shared/route.ts `idempotent`). */
const IDEMPOTENCY_PARAMETER: JsonSchema = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry, as in Stripe\'s API. Send a new unique value (a UUID) for each new request, and the same value when you retry it. ' +
    'For 24 hours, a repeat with the same key and the same request gets the first answer again, with the header Idempotent-Replayed: true, and nothing is written twice; ' +
    'the key with another request (other path parameters or body) is 422; a repeat while the first is still being processed is 409 (retry shortly). ' +
    'A refusal (400, 409, 413, 415, 429) is not kept and frees the key. An answer of 5xx is not kept either: the repeat is processed again and finds what the first attempt stored, so it still stores nothing twice. ' +
    'Keys belong to the caller (the token\'s subject or the account; anyone, on a public route) and to the operation. ' +
    `1–${IDEMPOTENCY_KEY_MAX} visible ASCII characters; anything else is 400.`,
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[!-~]+$' },
};

const REPLAYED_HEADERS: Record<string, JsonSchema> = {
  [REPLAYED_HEADER]: {
    description: `Sent (true) when the answer is the kept answer of an earlier request with the same ${IDEMPOTENCY_HEADER}: nothing was done this time.`,
    schema: { type: 'string', enum: ['true'] },
  },
};
/**
 * Statuses an idempotent route may replay (route.ts): its success, the 4xx answers that are kept,
 * and the 409 that stands for a success whose answer held a secret.
 */
const replayable = (route: AnyRoute<unknown>, status: number) =>
  status < 400 || (status < 500 && ![400, 401, 403, 409, 413, 415, 422, 429].includes(status)) || (status === 409 && typeof route.idempotent === 'object');

/**
 * What a request counted against a limit gets back (api/shared/rate-limit.ts), whatever the answer:
 * on support every request is counted first (per client IP); on news and quiz a request is counted
 * once its caller is known, so one refused before (a 401, a body the parser refuses) has none.
 */
const COUNTED = 'Sent on every response to a request counted against a rate limit.';
const RATE_LIMIT_HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Limit': { description: `Requests allowed in the current window (one minute). ${COUNTED}`, schema: { type: 'integer', format: 'int32', minimum: 1, maximum: RATE_MAX } },
  'X-RateLimit-Remaining': { description: `Requests left in the current window. ${COUNTED}`, schema: { type: 'integer', format: 'int32', minimum: 0, maximum: RATE_MAX } },
  'X-RateLimit-Reset': { description: `When the window resets, in seconds since the epoch. ${COUNTED}`, schema: { type: 'integer', format: 'int64', minimum: 0, maximum: 253_402_300_799 } },
  // A month at most: the news API's monthly quota is spent until the next month begins.
  'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 31 * 86_400 } },
};

/**
 * How bearer tokens are verified (models/auth/token.rules.ts), for readers and for Spectral's
 * owasp:api2:2023-jwt-best-practices.
 */
const JWT_PRACTICES =
  'A JWT (RFC 7519) in `Authorization: Bearer <token>`, verified as RFC8725 (JSON Web Token Best Current Practices) asks: ' +
  'the algorithms are pinned (HS256 with the shared secret JWT_SECRET, or the keys of the identity provider at JWT_JWKS_URL; never `none`); ' +
  '`exp` is required; a token signed with the shared secret lives at most JWT_MAX_LIFETIME_HOURS (24 h unless configured: exp − iat, or exp − now without iat); ' +
  '`nbf` is honoured; `iss` and `aud` are checked when JWT_ISSUER and JWT_AUDIENCE are set. Claims: sub, email, permissions.';

const SECURITY_SCHEMES: Record<string, JsonSchema> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'The signed-in user\'s token, issued by the identity provider this deployment trusts: a reader\'s app, a staff tool or a customer\'s back office gets it when its user signs in there (its operator configures the issuer). ' +
      `Each operation names the permission it needs (x-auth). ${JWT_PRACTICES}`,
  },
  adminBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: `The same JWT as bearerAuth, holding an administrator's permission (<area>.admin: news.admin, quiz.admin), for the administrative operations. ${JWT_PRACTICES}`,
  },
};
const RATE_LIMIT_HEADER_REFS = Object.fromEntries(
  ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((h) => [h, { $ref: `#/components/headers/${h}` }]),
);

/** What an error status is called in a response's name. */
const REASON: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'IdempotencyKeyReused',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};
/** How a response's name tells the credential its example speaks of (a 401 of an API key, of a token). */
const SCHEME_NAME: Record<string, string> = {
  apiKeyAuth: 'ApiKey',
  bearerAuth: 'Bearer',
  adminBearer: 'Admin',
  sessionCookie: 'Session',
  stripeSignature: 'StripeSignature',
  metaSignature: 'MetaSignature',
  metaVerifyToken: 'MetaVerifyToken',
};

/**
 * Names the error responses of one document: the same response (envelope, status, headers,
 * example) gets the same name; `NewsNotFound`, `NewsUnauthorizedApiKey`, and `…Replayable` for the
 * one an Idempotency-Key may replay.
 */
function responseNamer(responses: Record<string, JsonSchema>) {
  const byBody = new Map<string, string>();
  return (response: JsonSchema, status: number, scheme: string | undefined, envelopeName: string): string => {
    const body = JSON.stringify(response);
    const known = byBody.get(body);
    if (known) return known;
    const replayable = Object.keys((response.headers ?? {}) as JsonSchema).includes(REPLAYED_HEADER) ? 'Replayable' : '';
    const credential = status === 401 || status === 403 ? (SCHEME_NAME[scheme ?? ''] ?? '') : '';
    const base = `${envelopeName.replace(/Error$/, '')}${REASON[status] ?? `Status${status}`}${credential}${replayable}`;
    let name = base;
    for (let n = 2; responses[name]; n += 1) name = `${base}${n}`;
    responses[name] = response;
    byBody.set(body, name);
    return name;
  };
}

export function buildOpenApi<D>(o: OpenApiOptions<D>): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Components = {};
  const namedResponses: Record<string, JsonSchema> = {};
  const named = responseNamer(namedResponses);
  let anyIdempotent = false;
  for (const route of o.routes) {
    const envelope = o.envelopeFor(route.path);
    const failure = toSchema(envelope.failureSchema, schemas);
    const example = route.example;
    const oaPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    // A provider's credential (a webhook's signature, Meta's verify token) is no scheme a client
    // holds: it is the parameter it is, and the reference's Authorize dialog does not offer it.
    const provider = route.auth.providerCredential;
    const parameters: JsonSchema[] = [
      ...Object.entries(objectShape(route.params)).map(([name, s]) => ({ name, in: 'path', required: true, schema: toSchema(s, schemas), ...desc(s), ...exampleOf(example?.params, name) })),
      ...Object.entries(objectShape(route.query)).map(([name, s]) => ({ ...queryParameter(name, s, schemas), ...exampleOf(example?.query, name) })),
      ...(route.idempotent ? [IDEMPOTENCY_PARAMETER] : []),
    ];
    if (provider && !parameters.some((p) => p.name === provider.name && p.in === provider.in)) {
      parameters.unshift({ name: provider.name, in: provider.in, required: true, description: provider.description, schema: { type: 'string', minLength: 1, maxLength: 512 }, example: provider.example });
    }
    const successStatus = String(route.status ?? 200);
    // A download or stream: OpenAPI 3.1 describes raw content by its media type alone (no schema),
    // unless the route documents its text (a webhook's challenge).
    const successContent = route.produces
      ? Object.fromEntries(
          [route.produces].flat().map((type) => [
            type,
            route.response ? { schema: toSchema(route.response, schemas), ...(example?.response !== undefined ? { example: example.response } : {}) } : {},
          ]),
        )
      : {
          'application/json': {
            schema: {
              type: 'object',
              required: ['success', 'data', ...(route.pagination ? ['pagination'] : [])],
              properties: {
                success: { const: true },
                message: { type: 'string', maxLength: MESSAGE_MAX },
                data: route.response ? toSchema(route.response, schemas) : {},
                ...(route.pagination ? { pagination: toSchema(route.pagination, schemas) } : {}),
              },
            },
            ...optionalExample(successExample(route as AnyRoute<unknown>)),
          },
        };
    if (route.alsoProduces) {
      const { mediaType, description, schema } = route.alsoProduces;
      // A text answer (CSV, an event stream) is a string unless its schema says more: a schema of a
      // description alone is `unknown` to generators, and spoils the JSON answer's type beside it.
      (successContent as Record<string, unknown>)[mediaType] = { schema: { type: 'string', ...schema, description } };
    }
    const errorStatuses = documentedErrors(route, o.everyRouteRateLimited ?? false);
    const responses: Record<string, unknown> = Object.fromEntries(
      [Number(successStatus), ...(route.alsoStatus ?? [])].map((s) => [String(s), { description: STATUS_TEXT[s] ?? 'Success', content: successContent }]),
    );
    const limited = errorStatuses.has(429);
    if (limited) {
      for (const s of [Number(successStatus), ...(route.alsoStatus ?? [])]) (responses[String(s)] as Record<string, unknown>).headers = RATE_LIMIT_HEADER_REFS;
    }
    for (const status of [...errorStatuses].sort((a, b) => a - b)) {
      const headers =
        status === 429 ? { ...RATE_LIMIT_HEADER_REFS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : limited ? RATE_LIMIT_HEADER_REFS : undefined;
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error',
        ...(headers ? { headers } : {}),
        content: { 'application/json': { schema: failure, example: failureExample(envelope, status, route.auth.scheme) } },
      };
    }
    if (route.idempotent) {
      anyIdempotent = true;
      for (const [status, response] of Object.entries(responses)) {
        if (!replayable(route as AnyRoute<unknown>, Number(status))) continue;
        const r = response as Record<string, unknown>;
        r.headers = { ...(r.headers as Record<string, unknown> | undefined), [REPLAYED_HEADER]: { $ref: `#/components/headers/${REPLAYED_HEADER}` } };
      }
    }
    // Error answers are named once (components.responses) and referred to: the same 404 of one
    // envelope is one response, not a copy per operation (a third of a document, and of a client).
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 400) responses[status] = { $ref: `#/components/responses/${named(response as JsonSchema, Number(status), route.auth.scheme, envelope.name)}` };
    }
    if (route.links?.length) {
      (responses[successStatus] as Record<string, unknown>).links = Object.fromEntries(
        route.links.map((l) => [l.name, { operationId: operationIdFor(l.method, l.path), parameters: l.parameters }]),
      );
    }
    const operation: Record<string, unknown> = {
      operationId: operationIdFor(route.method, route.path),
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags ?? [],
      parameters,
      responses,
      security: route.auth.scheme && !provider ? [{ [route.auth.scheme]: [] }] : [],
      'x-auth': route.auth.describe,
    };
    const samples = codeSamples(o.service, o.serverUrl, route as AnyRoute<unknown>);
    if (samples.length) operation['x-codeSamples'] = samples;
    if (route.body) {
      const mediaType = route.bodyType ?? 'application/json';
      // A JSON body that may be left out: absent is read as {} (route.ts), so a schema that takes {}
      // makes the body optional.
      const optional = isOptional(route.body) || (mediaType === 'application/json' && route.body.safeParse({}).success);
      operation.requestBody = { required: !optional, content: { [mediaType]: { schema: bodySchema(route as AnyRoute<unknown>, mediaType, schemas), ...optionalExample(example?.body) } } };
    }
    (paths[oaPath] ??= {})[route.method] = operation;
  }
  const usedSchemes = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => ((op as { security: Record<string, unknown>[] }).security ?? []).flatMap((r) => Object.keys(r)))));
  return {
    openapi: '3.1.0',
    info: { title: o.title, version: o.version, description: o.description },
    // Public: every operation is for the clients the reference addresses (x-internal, OWASP API9).
    servers: [{ url: o.serverUrl, description: o.serverDescription ?? 'Production', 'x-internal': false }],
    tags: [...new Set(o.routes.flatMap((r) => r.tags ?? []))].map((name) => ({ name, ...(o.tagDescriptions?.[name] ? { description: o.tagDescriptions[name] } : {}) })),
    paths,
    components: {
      schemas,
      responses: namedResponses,
      headers: { ...RATE_LIMIT_HEADERS, ...(anyIdempotent ? REPLAYED_HEADERS : {}) },
      // The schemes its operations use, and no other: each is offered in the reference's Authorize dialog.
      securitySchemes: Object.fromEntries(Object.entries({ ...SECURITY_SCHEMES, ...o.extraSecuritySchemes }).filter(([name]) => usedSchemes.has(name))),
    },
  };
}

/**
 * The schema of a request body. JSON lines are text, one value a line: the body is a string (what
 * a client sends, and what generated clients type it as), and the schema of each line is its
 * `x-itemSchema`, as OpenAPI 3.2's `itemSchema` will say it for sequential media types.
 */
function bodySchema(route: AnyRoute<unknown>, mediaType: string, components: Components): JsonSchema {
  const schema = toSchema(route.body!, components);
  if (mediaType !== 'application/x-ndjson') return schema;
  return {
    type: 'string',
    maxLength: route.bodyMaxBytes ?? MESSAGE_MAX,
    description: 'JSON lines (https://jsonlines.org): one value a line, each as `x-itemSchema` describes it.',
    'x-itemSchema': schema,
  };
}

/** `{ example }` when there is one. */
function optionalExample(value: unknown): { example?: unknown } {
  return value === undefined ? {} : { example: value };
}

/** A parameter's example: the value the route's example sends for it. */
function exampleOf(values: unknown, name: string): { example?: unknown } {
  return optionalExample((values as Record<string, unknown> | undefined)?.[name]);
}

function desc(s: z.ZodType): { description?: string } {
  return s.description ? { description: s.description } : {};
}

/**
 * A query parameter. One that takes a list (its schema an array) takes it comma-separated,
 * `include=sentiment,entities`: OpenAPI's `style: form, explode: false`, stated so that generated
 * clients send it that way (their default, explode: true, repeats the parameter). The schema
 * splits the text itself (api/news/contracts.ts `include`).
 */
function queryParameter(name: string, s: z.ZodType, components: Components): JsonSchema {
  const schema = toSchema(s, components);
  const list = schema.type === 'array' ? { style: 'form', explode: false } : {};
  return { name, in: 'query', required: !isOptional(s), ...list, schema, ...desc(s) };
}
