/**
 * The end of an activity attempt, as one AbortSignal for the database work (and model calls) it
 * does, so that an attempt Temporal has given up on stops its work too instead of running on
 * beside the next attempt (docs/decisions.md "Temporal", cancellation). The signal aborts when:
 *
 * - the SDK cancels the attempt (`Context.cancellationSignal`): the workflow cancelled it, the
 *   worker is shutting down, or a heartbeat found the attempt gone (timed out, or its run closed);
 * - the attempt has gone a whole heartbeat timeout without heartbeating, or has run its
 *   start-to-close timeout: by then the server has timed it out and may have started the next
 *   attempt, but an attempt stuck in a query sends no heartbeat to be told so.
 *
 * The loops heartbeat through `heartbeat` (which re-arms the local deadline), pass `signal` to the
 * driver (`{ signal }` on reads; Mongoose passes it on through `setOptions`) and to model calls,
 * and call `signal.throwIfAborted()` between items.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';

export interface Attempt {
  /** Aborted when the attempt is cancelled or past its timeouts; its reason is what to throw. */
  readonly signal: AbortSignal;
  /** The workflow asked for the cancellation (not a timeout, a closed run or the worker's shutdown). */
  readonly cancelRequested: boolean;
  /** Heartbeats (with progress details) and re-arms the local heartbeat deadline. */
  heartbeat(details?: unknown): void;
  /**
   * Heartbeats the last details every `everyMs` until the returned function is called: for one
   * long call with a bound of its own (a model call), so that the attempt neither times out while
   * it runs nor misses a cancellation. Not around database reads: they are bounded by maxTimeMS.
   */
  keepBeating(everyMs?: number): () => void;
  /** Stops the local deadlines (call when the attempt's work is over). */
  end(): void;
}

/** Type of the failure an attempt past its own timeouts ends with (retryable: the next attempt goes on). */
export const ATTEMPT_TIMED_OUT = 'AttemptTimedOut';

export function currentAttempt(ctx: Context = Context.current()): Attempt {
  const local = new AbortController();
  const timedOut = (what: string) => () =>
    local.abort(ApplicationFailure.retryable(`the activity attempt ${what}: its work is stopped (the server has given up on it)`, ATTEMPT_TIMED_OUT));
  const { heartbeatTimeoutMs, startToCloseTimeoutMs } = ctx.info;
  const deadline = startToCloseTimeoutMs > 0 ? setTimeout(timedOut(`ran its start-to-close timeout (${startToCloseTimeoutMs} ms)`), startToCloseTimeoutMs).unref() : undefined;
  let silence: NodeJS.Timeout | undefined;
  const arm = () => {
    if (!heartbeatTimeoutMs) return;
    clearTimeout(silence);
    silence = setTimeout(timedOut(`went ${heartbeatTimeoutMs} ms without a heartbeat`), heartbeatTimeoutMs).unref();
  };
  arm();
  const signal = AbortSignal.any([ctx.cancellationSignal, local.signal]);
  let last: unknown = ctx.info.heartbeatDetails;
  const heartbeat = (details?: unknown) => {
    last = details;
    ctx.heartbeat(details);
    if (!signal.aborted) arm();
  };
  signal.addEventListener('abort', () => {
    clearTimeout(deadline);
    clearTimeout(silence);
  }, { once: true });
  return {
    signal,
    get cancelRequested() {
      return ctx.cancellationDetails?.cancelRequested === true;
    },
    heartbeat,
    keepBeating(everyMs = 5_000) {
      const beat = setInterval(() => heartbeat(last), everyMs);
      return () => clearInterval(beat);
    },
    end() {
      clearTimeout(deadline);
      clearTimeout(silence);
    },
  };
}

/**
 * Runs `work` with the current attempt, ending its deadlines after. An error thrown once the
 * attempt is over (a driver's or a client's own error for an aborted request) becomes the
 * signal's reason, so the SDK reports a cancellation as a cancellation.
 */
export async function withAttempt<T>(work: (attempt: Attempt) => Promise<T>): Promise<T> {
  const attempt = currentAttempt();
  try {
    return await work(attempt);
  } catch (err) {
    if (attempt.signal.aborted) throw attempt.signal.reason;
    throw err;
  } finally {
    attempt.end();
  }
}
