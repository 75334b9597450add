/**
 * Checks a response against the OpenAPI document of the service that answered it: the status is
 * one the operation documents, the media type is one documented for that status, a JSON body
 * matches the documented schema (JSON Schema 2020-12, with formats: ajv and ajv-formats), and a
 * rate-limit header is sent only where it is documented, with a value its schema allows.
 *
 * tests/helpers/service.ts runs it on every response of the in-process services (docs/decisions.md
 * "The OpenAPI documents"); a request to no documented operation (/health, an unknown route, a
 * method the path does not have) has nothing to be checked against and is let through.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

export interface ObservedResponse {
  method: string;
  /** The request path, without the query. */
  path: string;
  status: number;
  /** Content-Type as sent, parameters included. */
  contentType: string | undefined;
  /** The body when it is JSON (parsed), else undefined (streams, files, text). */
  json?: unknown;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface ResponseCheck {
  /** `GET /support/{id}`, or undefined when no operation of the document matches the request. */
  operation: string | undefined;
  /** What is wrong; empty when the response is as documented. */
  problems: string[];
}

const DOCUMENT_ID = 'openapi.json';
/** Headers whose presence must be documented (components.headers of the document). */
const CHECKED_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'];

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments first: /support/tags before /support/{id}. */
  params: number;
  responses: Record<string, Json>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const baseType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/**
 * An operation's response as written, or the named one it refers to (`$ref` to
 * components.responses), with the JSON pointer of where it is written.
 */
export function resolveResponse(document: Json, response: Json, pointer: string): { response: Json; pointer: string } {
  const ref = response.$ref;
  if (typeof ref !== 'string') return { response, pointer };
  const name = ref.split('/').pop()!;
  const named = ((document.components as Json | undefined)?.responses as Record<string, Json> | undefined)?.[name];
  if (!named) throw new Error(`${pointer} refers to ${ref}, which the document does not hold`);
  return { response: named, pointer: `/components/responses/${escapePointer(name)}` };
}

export function responseChecker(document: Json): (response: ObservedResponse) => ResponseCheck {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };
  const headerComponents = ((document.components as Json | undefined)?.headers ?? {}) as Record<string, Json>;
  const resolveHeader = (h: Json): Json => (typeof h.$ref === 'string' ? (headerComponents[h.$ref.split('/').pop()!] ?? {}) : h);

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    for (const [method, operation] of Object.entries(item)) {
      operations.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), params: (template.match(/\{/g) ?? []).length, responses: (operation.responses ?? {}) as Record<string, Json> });
    }
  }
  operations.sort((a, b) => a.params - b.params);

  return (r) => {
    const op = operations.find((o) => o.method === r.method.toUpperCase() && o.pattern.test(r.path));
    if (!op) return { operation: undefined, problems: [] };
    const name = `${op.method} ${op.template}`;
    const written = op.responses[String(r.status)];
    if (!written) return { operation: name, problems: [`status ${r.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`] };
    const problems: string[] = [];
    const { response, pointer } = resolveResponse(document, written, `/paths/${escapePointer(op.template)}/${op.method.toLowerCase()}/responses/${r.status}`);

    const content = (response.content ?? {}) as Record<string, Json>;
    if (r.contentType && r.status !== 204) {
      const type = baseType(r.contentType);
      const media = Object.keys(content).find((m) => m.toLowerCase() === type);
      if (!media) problems.push(`Content-Type ${type} is not documented for ${r.status} (documented: ${Object.keys(content).join(', ') || 'none'})`);
      else if (isJson(type) && content[media]!.schema) {
        const validate = validatorAt(`${pointer}/content/${escapePointer(media)}/schema`);
        if (!validate(r.json)) problems.push(...describeErrors(validate.errors).map((e) => `body: ${e}`));
      }
    }

    const documented = (response.headers ?? {}) as Record<string, Json>;
    for (const header of CHECKED_HEADERS) {
      const value = r.headers[header.toLowerCase()];
      if (value === undefined) continue;
      const spec = Object.entries(documented).find(([h]) => h.toLowerCase() === header.toLowerCase())?.[1];
      if (!spec) {
        problems.push(`header ${header} is sent but not documented for ${r.status}`);
        continue;
      }
      const schema = resolveHeader(spec).schema as Json | undefined;
      const parsed = schema?.type === 'integer' ? Number(value) : value;
      if (schema && !ajv.validate(schema, parsed)) problems.push(`header ${header}: ${String(value)} ${describeErrors(ajv.errors).join('; ')}`);
    }
    return { operation: name, problems };
  };
}

/** One line per problem, for a test failure. */
export function formatMismatch(r: Pick<ObservedResponse, 'method' | 'path' | 'status'>, check: ResponseCheck): string {
  return `${check.operation ?? `${r.method} ${r.path}`} answered ${r.status} (${r.method} ${r.path}), which its OpenAPI document does not describe:\n  ${check.problems.join('\n  ')}`;
}
