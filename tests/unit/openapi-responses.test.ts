import { z } from 'zod';
import { bearer } from '../../api/shared/auth';
import { supportEnvelope } from '../../api/shared/envelope';
import { buildOpenApi } from '../../api/shared/openapi';
import { defineRoute } from '../../api/shared/route';
import { formatMismatch, responseChecker, type ObservedResponse } from '../helpers/openapi-responses';

describe('the response check of the integration tests', () => {
  const Thing = z.object({ id: z.number().int().min(1).max(1_000), name: z.string().max(5) }).meta({ id: 'Thing' });
  const document = buildOpenApi({
    service: 'support',
    serverUrl: 'http://localhost:3002',
    title: 'T',
    version: '1',
    description: 'd',
    envelopeFor: () => supportEnvelope,
    everyRouteRateLimited: true,
    routes: [
      defineRoute({ method: 'get', path: '/things/:id', summary: 'One', auth: bearer(), params: z.object({ id: z.coerce.number() }), response: Thing, handler: () => ({ id: 1, name: 'a' }) }),
      defineRoute({ method: 'get', path: '/things/all', summary: 'All', auth: bearer(), response: z.array(Thing).max(2), handler: () => [] }),
    ],
  });
  const check = responseChecker(document);
  const ok = { success: true, data: { id: 7, name: 'seven' } };
  const response = (over: Partial<ObservedResponse>): ObservedResponse => ({ method: 'GET', path: '/things/7', status: 200, contentType: 'application/json; charset=utf-8', json: ok, headers: {}, ...over });

  it('accepts a response as documented, rate-limit headers included', () => {
    expect(check(response({ headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1767225600' } }))).toEqual({ operation: 'GET /things/{id}', problems: [] });
    expect(check(response({ status: 404, json: { success: false, message: 'Not found', error: 'NOT_FOUND' } })).problems).toEqual([]);
  });

  it('rejects a status the operation does not document', () => {
    const result = check(response({ status: 418 }));
    expect(result.problems).toEqual([expect.stringContaining('status 418 is not documented')]);
    expect(formatMismatch({ method: 'GET', path: '/things/7', status: 418 }, result)).toMatch(/^GET \/things\/\{id\} answered 418 .*\n {2}status 418 is not documented/);
  });

  it('rejects a body that breaks its schema, a component referenced with $ref included', () => {
    const result = check(response({ json: { success: true, data: { id: 0, name: 'too long' } } }));
    expect(result.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^body: \/data\/id must be >= 1/), expect.stringMatching(/^body: \/data\/name must NOT have more than 5 characters/)]));
    expect(check(response({ path: '/things/all', json: { success: true, data: [ok.data, ok.data, ok.data] } })).problems).toEqual([expect.stringMatching(/^body: \/data must NOT have more than 2 items/)]);
    expect(check(response({ status: 400, json: { success: false } })).problems).toEqual([expect.stringContaining("must have required property 'message'")]);
  });

  it('rejects an undocumented media type and a rate-limit header out of its schema', () => {
    expect(check(response({ contentType: 'text/html' })).problems).toEqual([expect.stringContaining('Content-Type text/html is not documented')]);
    expect(check(response({ headers: { 'x-ratelimit-remaining': '-1' } })).problems).toEqual([expect.stringContaining('header X-RateLimit-Remaining')]);
    expect(check(response({ headers: { 'retry-after': '5' } })).problems).toEqual(['header Retry-After is sent but not documented for 200']);
  });

  it('matches literal paths before templates, and lets requests to no operation through', () => {
    expect(check(response({ path: '/things/all', json: { success: true, data: [] } }))).toEqual({ operation: 'GET /things/all', problems: [] });
    expect(check(response({ path: '/health', status: 200 }))).toEqual({ operation: undefined, problems: [] });
    expect(check(response({ method: 'DELETE', status: 405 }))).toEqual({ operation: undefined, problems: [] });
  });
});
