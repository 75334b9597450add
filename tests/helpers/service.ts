/**
 * Builds a service in-process against the real dev services `npm test` provisioned, for supertest.
 */
import type Koa from 'koa';
import { createApp, type AppOptions, type ServiceDefinition } from '../../api/shared/app';
import { closeInfra, createInfra, type Infra } from '../../api/shared/infra';
import { definitionFor, type DefinitionSource } from '../../api/shared/server';
import { loadConfig, parseConfig, type Config } from '../../models/config';
import { signToken } from '../../models/auth/token.rules';
import { createLogger } from '../../models/infra/logger';

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
  options: AppOptions & { config?: Config; waitForMongo?: boolean } = {},
): Promise<TestService<D>> {
  const config = options.config ?? testConfig();
  const definition: ServiceDefinition<D> = definitionFor(source, config);
  const infra = createInfra(config, definition.name, createLogger({ name: definition.name, level: 'silent' }));
  if (options.waitForMongo !== false) await infra.mongo.ready;
  const deps = await makeDeps(infra);
  const app = createApp(definition, deps, options);
  return { app, callback: app.callback(), deps, close: () => closeInfra(infra) };
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
