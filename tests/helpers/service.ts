/**
 * Builds a service in-process against the real dev services `npm test` provisioned, for supertest.
 * Every response it gives is checked against the service's OpenAPI document (./openapi-responses.ts):
 * a response the document does not describe fails the test that asked for it.
 */
import type Koa from 'koa';
import { createApp, serviceDocument, type AppOptions, type ServiceDefinition } from '../../api/shared/app';
import { closeInfra, createInfra, type Infra } from '../../api/shared/infra';
import { definitionFor, type DefinitionSource } from '../../api/shared/server';
import { loadConfig, parseConfig, type Config } from '../../models/config';
import { signToken } from '../../models/auth/token.rules';
import { createLogger, type Logger } from '../../models/infra/logger';
import { formatMismatch, responseChecker, type ObservedResponse } from './openapi-responses';

export interface TestService<D extends Infra> {
  app: Koa;
  callback: ReturnType<Koa['callback']>;
  deps: D;
  close(): Promise<void>;
}

/** The test process's config, optionally with some variables changed. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  if (Object.keys(overrides).length === 0) return loadConfig();
  return parseConfig({ ...process.env, ...overrides });
}

export async function startTestService<D extends Infra>(
  source: DefinitionSource<D>,
  makeDeps: (infra: Infra) => D | Promise<D>,
  options: AppOptions & { config?: Config; waitForMongo?: boolean; logger?: Logger } = {},
): Promise<TestService<D>> {
  const config = options.config ?? testConfig();
  const definition: ServiceDefinition<D> = definitionFor(source, config);
  const infra = createInfra(config, definition.name, options.logger ?? createLogger({ name: definition.name, level: 'silent' }));
  if (options.waitForMongo !== false) await infra.mongo.ready;
  const deps = await makeDeps(infra);
  const app = createApp(definition, deps, options);
  app.middleware.unshift(checkResponses(serviceDocument(definition, config)));
  return { app, callback: app.callback(), deps, close: () => closeInfra(infra) };
}

/** Responses that broke their document, kept until the test that asked for them ends. */
const mismatches: string[] = [];

/**
 * The outermost middleware: it sees each response as the client gets it (status, headers, the body
 * serialized) and records what the document does not describe, with the test that asked.
 */
function checkResponses(document: Record<string, unknown>): Koa.Middleware {
  const check = responseChecker(document);
  return async (ctx, next) => {
    await next();
    const contentType = ctx.response.get('Content-Type') || undefined;
    const body: unknown = ctx.body;
    let json: unknown;
    if (contentType && /[/+]json\b/i.test(contentType) && body !== null && body !== undefined && !(typeof (body as { pipe?: unknown }).pipe === 'function')) {
      json = typeof body === 'string' ? JSON.parse(body) : Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : JSON.parse(JSON.stringify(body));
    }
    const observed: ObservedResponse = { method: ctx.method, path: ctx.path, status: ctx.status, contentType, json, headers: ctx.response.headers };
    const result = check(observed);
    if (result.problems.length === 0) return;
    const test = typeof expect === 'function' ? expect.getState().currentTestName : undefined;
    mismatches.push(`${formatMismatch(observed, result)}${test ? `\n  (in "${test}")` : ''}`);
  };
}

/** Fails the test (or the file, for requests made outside tests) whose responses broke their document. */
function failOnMismatches(): void {
  if (mismatches.length === 0) return;
  const found = mismatches.splice(0);
  throw new Error(`${found.length} response(s) do not match the OpenAPI document:\n${found.join('\n')}`);
}
if (typeof afterEach === 'function') {
  afterEach(failOnMismatches);
  afterAll(failOnMismatches);
}

export async function tokenFor(sub: string, permissions: string[] = [], email?: string): Promise<string> {
  const secret = loadConfig().auth.jwtSecret;
  if (!secret) throw new Error('JWT secret missing in test config');
  return await signToken(secret, { sub, permissions, email });
}

/** A TCP port nothing listens on (for "dependency down" tests). */
export const CLOSED_PORT = 1;

/** Polls until `read` gives `expected` (a workflow's work that follows an answer), or fails with the last value. */
export async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}
