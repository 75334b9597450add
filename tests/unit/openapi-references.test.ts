/**
 * The four OpenAPI documents refer to their components instead of copying them (issue 37): a
 * schema registered with `.meta({ id })` is written once, under components.schemas, and every other
 * place that means it says `$ref`. A copy is what a generated client turns into a second, unnamed
 * type (Reenrichment.filter was one of ReenrichmentFilter), and what drifts from the component
 * when only one of them is edited. And no success response holds an open object
 * (`additionalProperties: {}` or `true`): a generator types its extra fields `unknown`.
 */
import { openApiDocuments } from '../../ops/openapi/docs';
import { responseChecker } from '../helpers/openapi-responses';

type Json = Record<string, unknown>;
type Document = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Json }> }> }>>; components: { schemas: Record<string, Json> } };

const documents = openApiDocuments() as unknown as Record<string, Document>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (path: readonly string[]) => `#/${path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/**
 * What a schema is, as a client generator sees it: its types, properties (and which are required),
 * items, enumerations, constants, formats, defaults (what leaving a field out means), combinations
 * and references, recursively, in one order. Annotations (descriptions, examples) and bounds
 * (lengths, sizes, ranges, patterns) are left out, and so is whether an object is closed: a copy
 * whose bounds or descriptions drifted from its component is still a copy (it is the drift the
 * $ref prevents).
 */
const SHAPE = new Set(['type', 'properties', 'required', 'items', 'prefixItems', 'enum', 'const', 'format', 'default', '$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'propertyNames', 'additionalProperties']);
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (!SHAPE.has(key)) continue;
    if (key === 'properties' && isObject(v)) out[key] = Object.fromEntries(Object.keys(v).sort().map((name) => [name, shape(v[name])]));
    else if ((key === 'required' || key === 'enum') && Array.isArray(v)) out[key] = [...v].map((x) => JSON.stringify(x)).sort();
    else if (key === 'additionalProperties') {
      // A map's value schema is its shape; open or closed (true, {}, false) is not.
      if (isObject(v) && Object.keys(v).length > 0) out[key] = shape(v);
    } else out[key] = shape(v);
  }
  return out;
}

/** A shape with structure (properties, items, an enumeration, a combination): a bare `string` matches too much to count. */
const structured = (s: unknown) => isObject(s) && ['properties', 'items', 'prefixItems', 'enum', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'].some((k) => k in s);

/** Every place in the document (but a component's own root) whose shape is a component's. */
export function inlineCopies(doc: { components?: { schemas?: Record<string, unknown> } } & Json): string[] {
  const byShape = new Map<string, string[]>();
  for (const [id, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const s = shape(schema);
    if (!structured(s)) continue;
    const key = JSON.stringify(s);
    byShape.set(key, [...(byShape.get(key) ?? []), id]);
  }
  const found: string[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, [...path, String(i)]));
    if (!isObject(node)) return;
    const isComponentRoot = path.length === 3 && path[0] === 'components' && path[1] === 'schemas';
    if (!isComponentRoot) {
      const ids = byShape.get(JSON.stringify(shape(node)));
      if (ids) found.push(`${pointer(path)} is a copy of ${ids.map((id) => `#/components/schemas/${id}`).join(', ')}`);
    }
    for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
  };
  walk(doc, []);
  return found;
}

/** Object schemas of success responses (their components followed) that take any extra field. */
export function openObjects(doc: Document): string[] {
  const found = new Set<string>();
  const visited = new Set<string>();
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, [...path, String(i)]));
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) {
      const id = node.$ref.slice('#/components/schemas/'.length);
      if (!visited.has(id)) {
        visited.add(id);
        walk(doc.components.schemas[id], ['components', 'schemas', id]);
      }
    }
    const extra = node.additionalProperties;
    const isObjectSchema = node.type === 'object' || isObject(node.properties);
    if (isObjectSchema && (extra === true || (isObject(extra) && Object.keys(extra).length === 0))) found.add(pointer(path));
    for (const [k, v] of Object.entries(node)) if (k !== '$ref') walk(v, [...path, k]);
  };
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        for (const [media, content] of Object.entries(response.content ?? {})) walk(content.schema, ['paths', path, method, 'responses', status, 'content', media, 'schema']);
      }
    }
  }
  return [...found];
}

describe('the OpenAPI documents refer to their components', () => {
  it.each(Object.keys(documents))('%s: no component is copied inline where a $ref belongs', (name) => {
    expect(inlineCopies(documents[name]! as unknown as Json)).toEqual([]);
  });

  it.each(Object.keys(documents))('%s: no success response holds an open object (additionalProperties {} or true)', (name) => {
    expect(openObjects(documents[name]!)).toEqual([]);
  });

  it('news: a re-enrichment names its filter by $ref, and the filter it answers with (dates as toISOString) is valid against it', () => {
    const news = documents.news!;
    expect((news.components.schemas.Reenrichment!.properties as Record<string, Json>).filter!.$ref).toBe('#/components/schemas/ReenrichmentFilter');
    const id = '5b1f0e7a-8c3d-4e2f-9a6b-0c1d2e3f4a5b';
    const data = {
      id,
      state: 'running',
      filter: { sector: 'FIN', from: new Date('2026-11-01T00:00:00Z').toISOString(), to: new Date('2026-11-20T12:00:00Z').toISOString(), promptVersionNot: 'enrich-2026-11-25.1', articleIds: [id] },
      promptVersion: 'enrich-2026-11-25.1',
      total: 10,
      done: 2,
      failed: 0,
      gone: 0,
      waiting: 0,
      resumeAt: null,
      errors: [],
      error: null,
      workflowId: `news-reenrich-${id}`,
      createdBy: 'admin@example.com',
      createdAt: '2026-11-25T10:00:00.000Z',
      finishedAt: null,
      statusUrl: `/api/admin/enrichments/${id}`,
    };
    const check = responseChecker(news as unknown as Json);
    const answer = (filter: unknown) => check({ method: 'GET', path: `/api/admin/enrichments/${id}`, status: 200, contentType: 'application/json', json: { success: true, data: { ...data, filter } }, headers: {} });
    expect(answer(data.filter).problems).toEqual([]);
    expect(answer({ sourceId: id }).problems).toEqual([]);
    expect(answer({ ...data.filter, extra: 1 }).problems).not.toEqual([]);
  });

  it('sees a copy whose descriptions and bounds drifted, and an open object behind a $ref', () => {
    const Filter = { type: 'object', properties: { sector: { type: 'string', enum: ['FIN', 'TEC'], description: 'a sector' }, ids: { type: 'array', items: { type: 'string', format: 'uuid', maxLength: 36 }, minItems: 1 } }, additionalProperties: false };
    const drifted = { type: 'object', properties: { ids: { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: 9 }, sector: { enum: ['TEC', 'FIN'], type: 'string' } } };
    const doc = {
      paths: {
        '/things': {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: { type: 'object', properties: { data: { $ref: '#/components/schemas/Thing' } } } } } },
              '400': { content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } } },
            },
          },
        },
      },
      components: { schemas: { Filter, Thing: { type: 'object', properties: { filter: drifted, same: { $ref: '#/components/schemas/Filter' }, extra: { type: 'object', additionalProperties: true } } } } },
    };
    expect(inlineCopies(doc)).toEqual(['#/components/schemas/Thing/properties/filter is a copy of #/components/schemas/Filter']);
    expect(openObjects(doc)).toEqual(['#/components/schemas/Thing/properties/extra']);
    // Not a copy: other properties, or the same ones where leaving the object out means {} (a default).
    expect(inlineCopies({ ...doc, components: { schemas: { Filter, Other: { type: 'object', properties: { sector: Filter.properties.sector } } } } })).toEqual([]);
    expect(inlineCopies({ ...doc, components: { schemas: { Filter, Other: { type: 'object', properties: { filter: { ...drifted, default: {} } } } } } })).toEqual([]);
  });
});
