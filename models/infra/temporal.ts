/**
 * Temporal client for the APIs and the CLI. The connection is lazy so that a service starts while
 * Temporal is still coming up; /health reports it until it answers.
 */
import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../config';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  /** A second connection without the client's retry interceptor, so a health probe answers at once. */
  probe: Connection;
  close(): Promise<void>;
}

/** What an interceptor hands on (grpc-js does not export the interface by name). */
type InterceptingCallInterface = ConstructorParameters<typeof InterceptingCall>[0];

export const CONNECTION_CLOSED = 'the Temporal connection was closed';

/**
 * A call that never reaches the channel: it answers UNAVAILABLE (so callers present it as
 * Temporal being unavailable, 503) without sending anything.
 */
function refusedCall(details: string): InterceptingCallInterface {
  return {
    start(_metadata, listener) {
      process.nextTick(() => listener?.onReceiveStatus?.({ code: status.UNAVAILABLE, details, metadata: new Metadata() }));
    },
    sendMessage: () => undefined,
    sendMessageWithContext: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    getAuthContext: () => null,
  };
}

/**
 * The SDK's retry interceptor, made to stop at close. Its retries wait on timers; one that fires
 * after the channel was closed made a call on it, which grpc-js throws from the timer: an uncaught
 * "Channel has been shut down" that killed the process (seen in CI at a test's teardown, and
 * reproduced by closing a service while a start to an unreachable Temporal was being retried),
 * and a caller whose promise never settled. A guard answers calls made after close with
 * UNAVAILABLE: below the retry for its retries, which give up once closed, and above it for new
 * calls (the retry interceptor cannot pass on a status whose call received nothing).
 */
function retryUntilClosed(isClosed: () => boolean): Interceptor[] {
  const defaults = defaultGrpcRetryOptions();
  const retry = makeGrpcRetryInterceptor({ ...defaults, retryableDecider: (attempt, s) => !isClosed() && defaults.retryableDecider(attempt, s) });
  const guard: Interceptor = (options, nextCall) => new InterceptingCall(isClosed() ? refusedCall(CONNECTION_CLOSED) : nextCall(options));
  return [guard, retry, guard];
}

export function createTemporalClient(config: Config): TemporalHandle {
  let closed = false;
  const connection = Connection.lazy({ address: config.temporal.address, interceptors: retryUntilClosed(() => closed) });
  const probe = Connection.lazy({ address: config.temporal.address, interceptors: [] });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    connection,
    client,
    probe,
    async close() {
      closed = true;
      await Promise.allSettled([connection.close(), probe.close()]);
    },
  };
}

export async function pingTemporal(handle: TemporalHandle, timeoutMs: number): Promise<void> {
  await handle.probe.withDeadline(Date.now() + timeoutMs, () => handle.probe.workflowService.getSystemInfo({}));
}
