/**
 * The four OpenAPI documents carry a worked example on every operation (issue 37): the request a
 * customer sends (path and required query parameters, the body) and the answer, success and every
 * error, each valid against the schema beside it, as a reader of the reference and a generated
 * client's tests would take them. The error examples are the stack's own: a 401 says
 * UNAUTHENTICATED, never another code. And every integer the documents promise has real bounds, so
 * that no reader is shown `maxDaysRecovery: -9007199254740991`.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { STATUS } from '../../api/shared/errors';
import { openApiDocuments } from '../../ops/openapi/docs';
import { resolveResponse } from '../helpers/openapi-responses';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  example?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Json;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

const documents = openApiDocuments() as unknown as Record<string, { paths: Record<string, Record<string, Operation>>; components: Json }>;
const DOCUMENT_ID = 'openapi.json';
const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Example {
  /** `news GET /api/articles 200 application/json`, for the failure's message. */
  where: string;
  pointer: string;
  value: unknown;
}

/** Every example of a document, with the JSON pointer of the schema it must hold to. */
function examplesOf(document: { paths: Record<string, Record<string, Operation>> }, service: string): { examples: Example[]; missing: string[] } {
  const examples: Example[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const at = `/paths/${escapePointer(path)}/${method}`;
      const name = `${service} ${method.toUpperCase()} ${path}`;
      (op.parameters ?? []).forEach((p, i) => {
        if (p.example !== undefined) examples.push({ where: `${name} parameter ${p.name}`, pointer: `${at}/parameters/${i}/schema`, value: p.example });
        else if (p.in === 'path' || p.required) missing.push(`${name}: parameter ${p.name}`);
      });
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (media.example === undefined) missing.push(`${name}: request body ${type}`);
        else if (type === 'application/x-ndjson') {
          // A JSON-lines body: text, each line a value of its x-itemSchema.
          examples.push({ where: `${name} request body ${type}`, pointer: `${at}/requestBody/content/${escapePointer(type)}/schema`, value: media.example });
          String(media.example)
            .split('\n')
            .filter((line) => line.trim() !== '')
            .forEach((line, n) => examples.push({ where: `${name} request body line ${n + 1}`, pointer: `${at}/requestBody/content/${escapePointer(type)}/schema/x-itemSchema`, value: JSON.parse(line) as unknown }));
        } else examples.push({ where: `${name} request body ${type}`, pointer: `${at}/requestBody/content/${escapePointer(type)}/schema`, value: media.example });
      }
      for (const [status, written] of Object.entries(op.responses)) {
        // A named response (components.responses) is checked once, where it is written.
        const { response: resolved, pointer } = resolveResponse(document as unknown as Json, written as Json, `${at}/responses/${status}`);
        if (pointer.startsWith('/components/') && seen.has(pointer)) continue;
        seen.add(pointer);
        const response = resolved as { content?: Record<string, MediaType> };
        for (const [type, media] of Object.entries(response.content ?? {})) {
          // A file download is described by its media type alone: there is nothing to exemplify.
          if (!media.schema) continue;
          // A second media type of the same answer (CSV beside JSON, a stream on request) is shown by the first's.
          if (media.example === undefined && type !== 'application/json' && response.content?.['application/json']) continue;
          if (media.example === undefined) missing.push(`${name}: response ${status} ${type}`);
          else examples.push({ where: `${name} response ${status} ${type}`, pointer: `${pointer}/content/${escapePointer(type)}/schema`, value: media.example });
        }
      }
    }
  }
  return { examples, missing };
}

describe.each(Object.keys(documents))('the %s document', (service) => {
  const document = documents[service]!;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const validatorAt = (pointer: string): ValidateFunction => ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
  const { examples, missing } = examplesOf(document, service);

  it('has an example of every parameter a request needs, every request body and every answer', () => {
    expect(missing).toEqual([]);
    expect(examples.length).toBeGreaterThan(Object.keys(document.paths).length);
  });

  it('has examples that hold to their own schemas', () => {
    const invalid = examples.flatMap(({ where, pointer, value }) => {
      const validate = validatorAt(pointer);
      return validate(value) ? [] : [`${where}: ${(validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ')}`];
    });
    expect(invalid).toEqual([]);
  });

  it("shows each error status with the code the stack sends for it", () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, written] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const response = resolveResponse(document as unknown as Json, written as Json, '').response as { content?: Record<string, MediaType> };
          const example = response.content?.['application/json']?.example as Json | undefined;
          // Support's envelope names the code `error`; the others `code`.
          const code = (service === 'support' ? example?.error : example?.code) as keyof typeof STATUS | undefined;
          if (!code || STATUS[code] !== Number(status)) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${String(code)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('bounds every integer it promises', () => {
    const unbounded: string[] = [];
    const walk = (value: unknown, pointer: string): void => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${pointer}/${i}`));
      if (!isObject(value)) return;
      const types = [value.type].flat();
      if (types.includes('integer')) {
        const low = value.minimum ?? value.exclusiveMinimum;
        const high = value.maximum ?? value.exclusiveMaximum;
        // zod's bare int() is bounded by the safe integers: a lower bound of −2⁵³+1 is none a reader
        // can use (a count may go up to the safe integers: it starts from 0).
        if (typeof low !== 'number' || typeof high !== 'number' || low <= Number.MIN_SAFE_INTEGER) unbounded.push(pointer);
      }
      for (const [key, v] of Object.entries(value)) if (key !== 'example' && key !== 'examples') walk(v, `${pointer}/${escapePointer(key)}`);
    };
    walk(document, '#');
    expect(unbounded).toEqual([]);
  });
});
