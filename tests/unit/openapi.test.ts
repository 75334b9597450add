import { z } from 'zod';
import { bearer, publicRoute } from '../../api/shared/auth';
import { newsEnvelope, supportEnvelope } from '../../api/shared/envelope';
import { buildOpenApi } from '../../api/shared/openapi';
import { defineRoute } from '../../api/shared/route';

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
  const doc = buildOpenApi({ title: 'T', version: '1', description: 'd', routes, envelopeFor: () => supportEnvelope }) as any;

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
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '500']);
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(op['x-auth']).toBe('bearer token with permission support.agent');
  });

  it('documents public routes without security and with their own success status', () => {
    const op = doc.paths['/support'].post;
    expect(op.security).toEqual([]);
    expect(op.responses['201']).toBeDefined();
    expect(op.responses['401']).toBeUndefined();
  });

  it('references the service\'s error envelope', () => {
    expect(doc.components.schemas.SupportError.properties.message.type).toBe('string');
    const news = buildOpenApi({ title: 'N', version: '1', description: 'd', routes, envelopeFor: () => newsEnvelope }) as any;
    expect(news.components.schemas.NewsError.required).toEqual(expect.arrayContaining(['success', 'error', 'statusCode']));
  });
});
