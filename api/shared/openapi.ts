/**
 * OpenAPI 3.1 documents generated from the same zod schemas that validate requests, and a docs
 * page (Swagger UI, served from the swagger-ui-dist package: no CDN needed).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Envelope } from './envelope';
import type { AnyRoute } from './route';

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
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
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  500: 'Internal error',
  503: 'A dependency is unavailable',
};

export interface OpenApiOptions<D> {
  title: string;
  version: string;
  description: string;
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
  if (route.auth.scheme) [401, 403].forEach((s) => statuses.add(s));
  if (route.auth.rateLimited || route.rateLimit || everyRouteRateLimited) statuses.add(429);
  if (route.path.includes(':')) statuses.add(404);
  if (BODY_METHODS.has(route.method)) [413, 415].forEach((s) => statuses.add(s));
  return statuses;
}

/** What every rate-limited response carries (api/shared/rate-limit.ts). */
const RATE_LIMIT_HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the window resets, in seconds since the epoch.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer', minimum: 1 } },
};
const RATE_LIMIT_HEADER_REFS = Object.fromEntries(
  ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((h) => [h, { $ref: `#/components/headers/${h}` }]),
);

export function buildOpenApi<D>(o: OpenApiOptions<D>): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const route of o.routes) {
    const envelope = o.envelopeFor(route.path);
    schemas[envelope.name] ??= toSchema(envelope.failureSchema);
    const oaPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters = [
      ...Object.entries(objectShape(route.params)).map(([name, s]) => ({ name, in: 'path', required: true, schema: toSchema(s), ...desc(s) })),
      ...Object.entries(objectShape(route.query)).map(([name, s]) => ({ name, in: 'query', required: !isOptional(s), schema: toSchema(s), ...desc(s) })),
    ];
    const successStatus = String(route.status ?? 200);
    const successContent = route.produces
      ? Object.fromEntries([route.produces].flat().map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
      : {
          'application/json': {
            schema: {
              type: 'object',
              required: ['success', 'data'],
              properties: {
                success: { const: true },
                message: { type: 'string' },
                data: route.response ? toSchema(route.response) : {},
              },
            },
          },
        };
    if (route.alsoProduces) {
      const { mediaType, description, schema } = route.alsoProduces;
      (successContent as Record<string, unknown>)[mediaType] = { schema: { ...(schema ?? { type: 'string' }), description } };
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
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error',
        ...(status === 429 ? { headers: { ...RATE_LIMIT_HEADER_REFS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelope.name}` } } },
      };
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
      security: route.auth.scheme ? [{ [route.auth.scheme]: [] }] : [],
      'x-auth': route.auth.describe,
    };
    if (route.body) {
      const mediaType = route.bodyType ?? 'application/json';
      // A JSON body that may be left out: absent is read as {} (route.ts), so a schema that takes {}
      // makes the body optional.
      const optional = isOptional(route.body) || (mediaType === 'application/json' && route.body.safeParse({}).success);
      operation.requestBody = { required: !optional, content: { [mediaType]: { schema: toSchema(route.body) } } };
    }
    (paths[oaPath] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: o.title, version: o.version, description: o.description },
    paths,
    components: {
      schemas,
      headers: RATE_LIMIT_HEADERS,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...o.extraSecuritySchemes,
      },
    },
  };
}

function desc(s: z.ZodType): { description?: string } {
  return s.description ? { description: s.description } : {};
}

const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Static assets of the docs page, read once. */
export const DOCS_ASSETS: Record<string, { type: string; body: Buffer }> = Object.fromEntries(
  [
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ].map(([file, type]) => [file, { type: type!, body: readFileSync(path.join(swaggerDir, file!)) }]),
);

export function docsPage(title: string): string {
  const safe = title.replace(/[<>&"]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${safe} — API docs</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <noscript><p>${safe}: the machine-readable description is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
  <div id="docs"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;
}

export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, persistAuthorization: true });`;
