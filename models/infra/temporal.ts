/**
 * Temporal client for the APIs and the CLI. The connection is lazy so that a service starts while
 * Temporal is still coming up; /health reports it until it answers.
 */
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  /** A second connection without the client's retry interceptor, so a health probe answers at once. */
  probe: Connection;
  close(): Promise<void>;
}

export function createTemporalClient(config: Config): TemporalHandle {
  const connection = Connection.lazy({ address: config.temporal.address });
  const probe = Connection.lazy({ address: config.temporal.address, interceptors: [] });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    connection,
    client,
    probe,
    async close() {
      await Promise.allSettled([connection.close(), probe.close()]);
    },
  };
}

export async function pingTemporal(handle: TemporalHandle, timeoutMs: number): Promise<void> {
  await handle.probe.withDeadline(Date.now() + timeoutMs, () => handle.probe.workflowService.getSystemInfo({}));
}
