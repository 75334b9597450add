/**
 * Contracts per context (issue 36): each service's requests (bodies, query strings, path
 * parameters) and views are declared in its contracts file with an id, route files only import
 * them, and a service shares another's schemas only through that service's contracts file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { serviceDefinitions } from '../../ops/openapi/docs';

const API = path.resolve(__dirname, '../../api');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

const files = tsFiles(API);
const source = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const rel = (f: string) => path.relative(API, f);
/** Files that declare routes (api/shared/route.ts defines the factory). */
const routeFiles = new Set(files.filter((f) => rel(f) !== path.join('shared', 'route.ts') && /\brouteFactory</.test(source.get(f)!)));
/** api/<service>/…: the service folder a file belongs to (shared for api/shared). */
const serviceOf = (f: string) => rel(f).split(path.sep)[0];

/** Relative imports of a file, resolved to the files they name. */
function importsOf(file: string): string[] {
  const found = [...source.get(file)!.matchAll(/\bfrom\s+'(\.[^']+)'/g)].map((m) => path.resolve(path.dirname(file), m[1]!));
  return found.map((p) => (source.has(`${p}.ts`) ? `${p}.ts` : p));
}

describe('contracts files', () => {
  it('finds the route files', () => {
    expect(routeFiles.size).toBeGreaterThan(15);
  });

  it('route files declare no object schema: their requests and views come from contracts files', () => {
    const declared = [...routeFiles].flatMap((f) =>
      source
        .get(f)!
        .split('\n')
        .flatMap((line, i) => (/\bz\s*\.\s*(object|strictObject|looseObject|discriminatedUnion)\s*\(/.test(line) ? [`${rel(f)}:${i + 1}`] : [])),
    );
    expect(declared).toEqual([]);
  });

  it("a service imports another's route files only to serve them (service.ts), and contracts files import no route file", () => {
    const wrong = files.flatMap((f) =>
      importsOf(f)
        .filter((target) => routeFiles.has(target))
        .filter((target) => /contracts\.ts$/.test(f) || (serviceOf(target) !== serviceOf(f) && path.basename(f) !== 'service.ts'))
        .map((target) => `${rel(f)} → ${rel(target)}`),
    );
    expect(wrong).toEqual([]);
  });
});

const definitions = serviceDefinitions();

/** The id a schema was registered with (`.meta({ id })`); an array's is its items'. */
function idOf(schema: z.ZodType): string | undefined {
  const inner = schema instanceof z.ZodArray ? (schema.element as z.ZodType) : schema;
  return z.globalRegistry.get(inner)?.id;
}

describe.each(Object.keys(definitions))('%s', (name) => {
  const routes = definitions[name]!.routes;

  it('names every request schema (body, query string, path parameters) and every JSON answer with an id', () => {
    const unnamed = routes.flatMap((route) => {
      const op = `${route.method.toUpperCase()} ${route.path}`;
      const parts = { body: route.body, query: route.query, params: route.params, response: route.produces ? undefined : route.response };
      return Object.entries(parts).flatMap(([part, schema]) => (schema && !idOf(schema) ? [`${op} ${part}`] : []));
    });
    expect(unnamed).toEqual([]);
  });

  it('gives each id to one schema', () => {
    const byId = new Map<string, Set<string>>();
    for (const route of routes) {
      for (const schema of [route.body, route.query, route.params, route.response]) {
        if (!schema) continue;
        const id = idOf(schema);
        if (!id) continue;
        const json = JSON.stringify(z.toJSONSchema(schema instanceof z.ZodArray ? (schema.element as z.ZodType) : schema, { io: 'input', unrepresentable: 'any' }));
        byId.set(id, (byId.get(id) ?? new Set()).add(json));
      }
    }
    const shared = [...byId].filter(([, schemas]) => schemas.size > 1).map(([id]) => id);
    expect(shared).toEqual([]);
    expect(byId.size).toBeGreaterThan(5);
  });
});
