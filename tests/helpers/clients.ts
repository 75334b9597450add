/**
 * For the generated clients' test (tests/integration/clients.test.ts): a test service served on a
 * real port of loopback (the clients make real HTTP calls, through fetch), a record of the
 * operations each client called (by openapi-fetch's schema path, as the documents name them), the
 * GET operations of an OpenAPI document, and a worker of the news import queue on a task-queue
 * prefix and database of the test's own (so imports made through the client land in its database).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Middleware } from 'openapi-fetch';
import type { Config } from '../../models/config';
import { TASK_QUEUES } from '../../workflows/ids';
import { killGroup, startOwnWorker } from './processes';

export interface Served {
  /** `http://127.0.0.1:<port>`: a client's baseUrl. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Serves a Koa callback on a free port of loopback. */
export async function serve(callback: http.RequestListener): Promise<Served> {
  const server = http.createServer(callback);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // fetch keeps connections alive: end them, or close waits for their idle timeout.
        server.closeAllConnections();
      }),
  };
}

/** The statuses each operation answered to the clients, by `<service> <METHOD> <path>`. */
export class CallRecord {
  readonly statuses = new Map<string, number[]>();

  /** A middleware recording each answer a client of `service` gets. */
  middleware(service: string): Middleware {
    return {
      onResponse: ({ request, response, schemaPath }) => {
        const key = `${service} ${request.method.toUpperCase()} ${schemaPath}`;
        this.statuses.set(key, [...(this.statuses.get(key) ?? []), response.status]);
        return undefined;
      },
    };
  }

  /** The operations of `service` called with at least one 2xx answer. */
  succeeded(service: string, method = 'GET'): string[] {
    const prefix = `${service} ${method} `;
    return [...this.statuses]
      .filter(([key, statuses]) => key.startsWith(prefix) && statuses.some((s) => s >= 200 && s < 300))
      .map(([key]) => key.slice(service.length + 1))
      .sort();
  }
}

/** Every operation of `method` in an OpenAPI document, as `<METHOD> <path>`, sorted. */
export function operationsOf(document: Record<string, unknown>, method = 'get'): string[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .filter(([, item]) => item[method] !== undefined)
    .map(([path]) => `${method.toUpperCase()} ${path}`)
    .sort();
}

/**
 * A worker process of the news import queue (and the ops queue, by which startOwnWorker sees it
 * polling) under the task-queue prefix of `env`, on the database of `env`. A process, not a worker
 * in Jest's: the import reads its staged file with MinIO's fGetObject, which fails in Jest's realm
 * (it tells ENOENT by `instanceof Error`, and Node's errors there are another realm's Error).
 * `close` stops it (SIGTERM, then SIGKILL after 10 s).
 */
export async function startImportWorker(config: Config, env: { MONGODB_DB: string; TASK_QUEUE_PREFIX: string }): Promise<{ close(): Promise<void> }> {
  const child = await startOwnWorker(env.TASK_QUEUE_PREFIX, config, { MONGODB_DB: env.MONGODB_DB, WORKER_QUEUES: [TASK_QUEUES.ops, TASK_QUEUES.news].join(',') });
  return {
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return; // gone already
      }
      const timer = setTimeout(() => killGroup(child), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
