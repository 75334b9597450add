/**
 * Runs one service process: builds its infra and app, listens, and on SIGTERM/SIGINT stops
 * accepting connections, lets in-flight requests finish (up to the grace period), then closes the
 * database and Temporal connections.
 */
import { runProcess } from './process';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { loadConfigOrExit, type Config } from '../../models/config';
import { createApp, type ServiceDefinition } from './app';
import { closeInfra, createInfra, type Infra } from './infra';

export interface RunningService {
  server: Server;
  app: Koa;
  infra: Infra;
  stop(): Promise<void>;
}

export type DefinitionSource<D> = ServiceDefinition<D> | ((config: Config) => ServiceDefinition<D>);

export const definitionFor = <D>(source: DefinitionSource<D>, config: Config): ServiceDefinition<D> =>
  typeof source === 'function' ? source(config) : source;

export async function startService<D extends Infra>(
  source: DefinitionSource<D>,
  makeDeps: (infra: Infra) => D | Promise<D>,
  config: Config,
  port: number,
): Promise<RunningService> {
  const definition = definitionFor(source, config);
  const infra = createInfra(config, definition.name);
  const deps = await makeDeps(infra);
  const app = createApp(definition, deps);
  const server = app.listen(port, config.http.host);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  infra.logger.info({ port, host: config.http.host }, `${definition.name} service listening`);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      infra.logger.info('shutting down: no new connections, finishing in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.http.shutdownGraceMs).unref());
      await Promise.race([closed, grace]);
      server.closeAllConnections();
      await closeInfra(infra);
      infra.logger.info('stopped');
    })());
  return { server, app, infra, stop };
}

/** Entry point helper: config from the environment, signals handled, exit code set. */
export function runServiceMain<D extends Infra>(
  source: DefinitionSource<D>,
  makeDeps: (infra: Infra) => D | Promise<D>,
  pickPort: (config: Config) => number,
): void {
  const config = loadConfigOrExit();
  const definition = definitionFor(source, config);
  runProcess(`${definition.name} service`, startService(definition, makeDeps, config, pickPort(config)));
}
