import { z } from 'zod';
import { bearer, publicRoute } from '../../api/shared/auth';
import { newsEnvelope, supportEnvelope } from '../../api/shared/envelope';
import { buildOpenApi } from '../../api/shared/openapi';
import { defineRoute } from '../../api/shared/route';
import { resolveResponse } from '../helpers/openapi-responses';

describe('OpenAPI generation', () => {
  const routes = [
    defineRoute({
      method: 'patch',
      path: '/support/:id',
      summary: 'Update a ticket',
      auth: bearer('support.agent'),
      params: z.object({ id: z.coerce.number().int().positive() }),
      query: z.object({ notify: z.enum(['yes', 'no']).optional() }),
      body: z.object({ status: z.enum(['open', 'closed']).optional() }),
      response: z.object({ id: z.number() }),
      errors: [404],
      handler: () => ({ id: 1 }),
    }),
    defineRoute({ method: 'post', path: '/support', summary: 'Create', auth: publicRoute, status: 201, handler: () => null }),
  ];
  const doc = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes, envelopeFor: () => supportEnvelope }) as any;

  it('is an OpenAPI 3.1 document with paths in OpenAPI syntax', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/support/{id}', '/support']);
  });

  it('describes path and query parameters, body and responses from the zod schemas', () => {
    const op = doc.paths['/support/{id}'].patch;
    expect(op.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer' }) }),
      expect.objectContaining({ name: 'notify', in: 'query', required: false }),
    ]);
    expect(op.requestBody.content['application/json'].schema.properties.status.enum).toEqual(['open', 'closed']);
    expect(op.responses['200'].content['application/json'].schema.properties.data.properties.id.type).toBe('number');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '415', '500', '503']);
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(op['x-auth']).toBe('bearer token with permission support.agent');
  });

  it('documents public routes without security and with their own success status', () => {
    const op = doc.paths['/support'].post;
    expect(op.security).toEqual([]);
    expect(op.responses['201']).toBeDefined();
    expect(op.responses['401']).toBeUndefined();
  });

  it('derives every error status a route can answer from what it declares', () => {
    const get = defineRoute({ method: 'get', path: '/things', summary: 'List', auth: publicRoute, handler: () => [] });
    const limited = defineRoute({ method: 'delete', path: '/things/:id', summary: 'Delete', auth: bearer(), rateLimit: async () => undefined, errors: [409], handler: () => null });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [get, limited], envelopeFor: () => supportEnvelope }) as any;
    expect(Object.keys(d.paths['/things'].get.responses).sort()).toEqual(['200', '400', '500', '503']);
    expect(Object.keys(d.paths['/things/{id}'].delete.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '429', '500', '503']);
    const everyLimited = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [get], envelopeFor: () => supportEnvelope, everyRouteRateLimited: true }) as any;
    expect(everyLimited.paths['/things'].get.responses['429']).toBeDefined();
  });

  it('makes a JSON body optional when the schema takes {}, and documents a second media type', () => {
    const r = defineRoute({
      method: 'post',
      path: '/chat',
      summary: 'Chat',
      auth: publicRoute,
      body: z.strictObject({ stream: z.boolean().default(false) }),
      alsoProduces: { mediaType: 'text/event-stream', description: 'events' },
      handler: () => null,
    });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [r, routes[0]!], envelopeFor: () => supportEnvelope }) as any;
    const op = d.paths['/chat'].post;
    expect(op.requestBody.required).toBe(false);
    expect(op.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(d.paths['/support/{id}'].patch.requestBody.required).toBe(false);
  });

  it('links a success response to the operations that use what it returns', () => {
    const create = defineRoute({
      method: 'post',
      path: '/things',
      summary: 'Create',
      auth: publicRoute,
      status: 201,
      links: [{ name: 'read', method: 'get', path: '/things/:thingId', parameters: { thingId: '$response.body#/data/id' } }],
      handler: () => null,
    });
    const read = defineRoute({ method: 'get', path: '/things/:thingId', summary: 'Read', auth: publicRoute, handler: () => null });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [create, read], envelopeFor: () => supportEnvelope }) as any;
    const link = d.paths['/things'].post.responses['201'].links.read;
    expect(link).toEqual({ operationId: d.paths['/things/{thingId}'].get.operationId, parameters: { thingId: '$response.body#/data/id' } });
  });

  it('references the service\'s error envelope', () => {
    expect(doc.components.schemas.SupportError.properties.message.type).toBe('string');
    const news = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'N', version: '1', description: 'd', routes, envelopeFor: () => newsEnvelope }) as any;
    expect(news.components.schemas.NewsError.required).toEqual(expect.arrayContaining(['success', 'error', 'statusCode']));
  });

  it('registers a schema with an id once, as components.schemas, and refers to it with $ref', () => {
    const Item = z.object({ id: z.uuid(), n: z.number().int().min(0).max(10) }).meta({ id: 'Item' });
    const Page = z.object({ total: z.number().int().min(0) }).meta({ id: 'Page' });
    const list = defineRoute({ method: 'get', path: '/items', summary: 'List', auth: publicRoute, response: z.array(Item).max(100), pagination: Page, handler: () => [] });
    const one = defineRoute({ method: 'get', path: '/items/:id', summary: 'One', auth: publicRoute, response: Item.nullable(), handler: () => null });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [list, one], envelopeFor: () => supportEnvelope }) as any;
    expect(d.components.schemas.Item).toEqual(expect.objectContaining({ type: 'object', required: ['id', 'n'] }));
    // A uuid has one length; an integer gets the OpenAPI format its bounds fit.
    expect(d.components.schemas.Item.properties.id).toEqual(expect.objectContaining({ format: 'uuid', maxLength: 36 }));
    expect(d.components.schemas.Item.properties.n.format).toBe('int32');
    expect(d.components.schemas.Page.properties.total.format).toBe('int64');
    const listed = d.paths['/items'].get.responses['200'].content['application/json'].schema;
    expect(listed.properties.data).toEqual({ type: 'array', maxItems: 100, items: { $ref: '#/components/schemas/Item' } });
    expect(listed.properties.pagination).toEqual({ $ref: '#/components/schemas/Page' });
    expect(listed.required).toEqual(['success', 'data', 'pagination']);
    expect(JSON.stringify(d.paths['/items/{id}'].get.responses['200'])).toContain('"$ref":"#/components/schemas/Item"');
    // An error answer is a named response, its body the envelope's schema.
    expect(d.paths['/items'].get.responses['400']).toEqual({ $ref: '#/components/responses/SupportBadRequest' });
    expect(d.components.responses.SupportBadRequest.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SupportError' });
  });

  it('names each error response once, and tells the credentials of a 401 apart', () => {
    const keyed = defineRoute({ method: 'get', path: '/keyed/:id', summary: 'K', auth: { ...bearer(), scheme: 'apiKeyAuth' }, params: z.object({ id: z.string().max(5) }), handler: () => null });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [...routes, keyed], envelopeFor: () => supportEnvelope }) as any;
    const refs = (path: string, method: string) => d.paths[path][method].responses as Record<string, { $ref?: string }>;
    expect(refs('/support/{id}', 'patch')['404']).toEqual(refs('/keyed/{id}', 'get')['404']);
    expect(refs('/support/{id}', 'patch')['401']).toEqual({ $ref: '#/components/responses/SupportUnauthorizedBearer' });
    expect(refs('/keyed/{id}', 'get')['401']).toEqual({ $ref: '#/components/responses/SupportUnauthorizedApiKey' });
    expect(d.components.responses.SupportUnauthorizedApiKey.content['application/json'].example.message).toMatch(/X-API-Key/);
  });

  it('refuses two different schemas under one id', () => {
    const a = defineRoute({ method: 'get', path: '/a', summary: 'A', auth: publicRoute, response: z.object({ x: z.string().max(1) }).meta({ id: 'Same' }), handler: () => ({ x: 'a' }) });
    const b = defineRoute({ method: 'get', path: '/b', summary: 'B', auth: publicRoute, response: z.object({ y: z.string().max(1) }).meta({ id: 'Same' }), handler: () => ({ y: 'b' }) });
    expect(() => buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [a, b], envelopeFor: () => supportEnvelope })).toThrow('Two different schemas are registered as Same');
  });

  it("documents administrators' operations under adminBearer, and how tokens are checked", () => {
    const adminRoute = defineRoute({ method: 'get', path: '/admin/x', summary: 'X', auth: bearer('news.admin'), handler: () => null });
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes: [adminRoute, routes[0]!], envelopeFor: () => supportEnvelope }) as any;
    expect(d.paths['/admin/x'].get.security).toEqual([{ adminBearer: [] }]);
    expect(d.paths['/support/{id}'].patch.security).toEqual([{ bearerAuth: [] }]);
    for (const scheme of ['bearerAuth', 'adminBearer']) expect(d.components.securitySchemes[scheme].description).toMatch(/RFC8725.*HS256.*`exp` is required.*JWT_MAX_LIFETIME_HOURS.*`nbf` is honoured/s);
  });

  it('puts the rate-limit headers on every response of a limited route, and Retry-After on 429', () => {
    const d = buildOpenApi({ service: 'support', serverUrl: 'http://localhost:3002', title: 'T', version: '1', description: 'd', routes, envelopeFor: () => supportEnvelope, everyRouteRateLimited: true }) as any;
    const responses = Object.fromEntries(
      Object.entries(d.paths['/support/{id}'].patch.responses as Record<string, Record<string, unknown>>).map(([status, r]) => [status, resolveResponse(d, r, '').response as any]),
    );
    for (const status of Object.keys(responses)) expect(Object.keys(responses[status].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(responses['200'].headers['Retry-After']).toBeUndefined();
  });
});
