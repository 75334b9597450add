/**
 * The retry policies of every activity the workflows call, in one place (docs/decisions.md
 * "Temporal", retries). Each is bounded and backs off: an activity failing for good fails its
 * call after a known number of attempts and a known time, and the workflow decides what then
 * (an operation is marked failed; a long-lived workflow records the failure and goes on waiting,
 * pausing `pauseAfterGivingUpMs`). Unbounded retries let attempts pile up on a sick database: an
 * attempt abandoned on a timeout kept its query running while the next one started, attempts 3–9
 * of one bulk chunk ended in out-of-memory kills. The attempts themselves stop their database work
 * when abandoned (activities/attempt.ts).
 *
 * Pure (no I/O, deterministic): imported by workflows. Attempts include the first; the waits
 * listed are the back-offs between attempts, not counting the attempts' own time.
 */
import type { RetryPolicy } from '@temporalio/common';

export const RETRY = {
  /**
   * A short read or write (or a send) whose caller can do without it for a while: 1 s, 2 s, … up
   * to 1 min between tries, 10 tries (about 4 min of waiting).
   */
  short: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
  /** Worth a few tries, not worth waiting on: 1 s … 16 s, 5 tries (about 15 s). */
  quick: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  /** Three tries, 1 s and 2 s apart (tools: a failure goes back to the model as a tool error). */
  few: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
  /**
   * Recording how a run ended (an operation marked completed, cancelled or failed): what an
   * operator reads, so it outlasts an outage longer: 1 s … 2 min, 20 tries (about 26 min).
   */
  record: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 20 },
  /**
   * A long database loop that resumes from its heartbeat (a bulk chunk, an import): a retry costs
   * little, and an outage is waited out for a while: 5 s … 2 min, 8 tries (about 7 min).
   */
  chunk: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
  /**
   * Enrichment (one article, or a chunk of a re-enrichment): the provider's 429, 5xx and timeouts,
   * after its Retry-After when it gave one: 5 s … 10 min, 12 tries (about 50 min).
   */
  model: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 12 },
  /** A model call someone waits on (a chat run, a ticket's draft): 1 s … 16 s, 5 tries. */
  modelCall: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 5 },
  /**
   * A quiz draft: four tries over ~7 s. A model failing four times running is not fixed by waiting,
   * and an admin waiting on POST /quiz/admin/create gets the reason; the next day's run tries again.
   */
  draft: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 4 },
  /** An article's page: a fetch that keeps failing (timeouts, 5xx) is given up after 4 tries (10 s, 30 s, 90 s apart). */
  page: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '5 minutes', maximumAttempts: 4 },
  /**
   * A mail handed to SMTP (a staff reply, an acknowledgement) while the server is out of reach or
   * answers 4xx: a reply is worth sending for a day; 30 s, 1 min … 1 h apart, 30 tries (about 24 h).
   */
  mail: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '1 hour', maximumAttempts: 30 },
  /**
   * Processing a requester's mail (parse, thread, store) while MongoDB, MinIO or DNS are out of
   * reach: 5 s … 10 min, 20 tries (about 2 h); then the record is failed with why (its raw message
   * stays in MinIO, and an operator can hand it over again).
   */
  inbound: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 20 },
  /** A batch of breaking-news alerts while the Cloud API throttles or fails: an alert is worth little after a few hours (40 tries, about 2.7 h). */
  alerts: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 40 },
} as const satisfies Record<string, RetryPolicy>;

/** A policy with the failure types no retry changes. */
export const withNonRetryable = (policy: RetryPolicy, types: readonly string[]): RetryPolicy => ({ ...policy, nonRetryableErrorTypes: [...types] });

/**
 * How long a long-lived workflow (a source's poller, a subscription) waits before trying again
 * work whose activity gave up after its retries: 5 min after the first, doubling, at most 1 h.
 */
export function pauseAfterGivingUpMs(timesInARow: number): number {
  return Math.min(3_600_000, 300_000 * 2 ** Math.max(0, Math.min(timesInARow - 1, 10)));
}
