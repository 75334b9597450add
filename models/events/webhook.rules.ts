/**
 * The pure rules of outgoing webhooks (Standard Webhooks v1): when to try a delivery again, what
 * an answer means, when an endpoint that keeps failing is disabled, which events exist, what an
 * endpoint's registration may say. No I/O, so workflows, routes and the page can all use them.
 */
import { z } from 'zod';
import { SECTORS, TOPICS } from '../news/article.rules';
import { PREFERENCE_LIMITS, SECTOR, TICKER, TOPIC } from '../news/preferences.rules';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The waits before each attempt, the specification's schedule: the first attempt at once, then
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure (about three days
 * and a half in all).
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];

/** How far each wait is moved either way at random, so endpoints that failed together do not all retry together. */
export const RETRY_JITTER = 0.2;

/** No wait is longer than this, whatever a `Retry-After` asked for. */
export const MAX_RETRY_DELAY_MS = DAY;

/** An endpoint that has failed every delivery for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * DAY;

/**
 * How long to wait before attempt number `attempt` (1 for the first delivery, 2 for the first
 * retry…): the schedule's wait moved by up to ±20 % at random, or what the endpoint asked for in
 * a `Retry-After` when that is longer, never more than a day. The first attempt is immediate, and
 * null means the schedule is exhausted: the message has failed for good.
 */
export function nextAttemptDelay(attempt: number, options: { retryAfterMs?: number; random: () => number }): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error(`nextAttemptDelay: attempt must be a whole number from 1, not ${attempt}`);
  if (attempt > RETRY_SCHEDULE_MS.length) return null;
  if (attempt === 1) return 0;
  const scheduled = RETRY_SCHEDULE_MS[attempt - 1]!;
  const jittered = Math.max(0, Math.round(scheduled * (1 + (options.random() * 2 - 1) * RETRY_JITTER)));
  const asked = options.retryAfterMs !== undefined && Number.isFinite(options.retryAfterMs) ? Math.max(0, options.retryAfterMs) : 0;
  return Math.min(Math.max(jittered, asked), MAX_RETRY_DELAY_MS);
}

/** What one attempt came to, as the sender reports it: an HTTP status, or why there was none. */
export type AttemptResult = number | 'network-error' | 'timeout' | 'refused-address';

/**
 * What to do after an attempt: `delivered` on any 2xx; `disable` on 410 Gone (the specification's
 * way for a receiver to say the endpoint is no more); `retry` on everything else. Redirects are
 * never followed, since the address behind one was not checked at registration, so a 3xx is a
 * failure like a 5xx. A refused address (the host now resolves to a private network) is retried
 * too: DNS may change back, and an endpoint that keeps failing is disabled after five days anyway.
 */
export function outcomeOf(result: AttemptResult): 'delivered' | 'disable' | 'retry' {
  if (typeof result !== 'number') return 'retry';
  if (result >= 200 && result < 300) return 'delivered';
  if (result === 410) return 'disable';
  return 'retry';
}

/** Whether an answer's `Retry-After` is read: 429 Too Many Requests and 503 Service Unavailable. */
export const honoursRetryAfter = (status: number): boolean => status === 429 || status === 503;

/** Whether an endpoint failing every delivery since `failingSince` should now be disabled. */
export function shouldDisable(failingSince: Date | null, now: Date): boolean {
  if (!failingSince) return false;
  return now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}

/**
 * The events an endpoint may subscribe to: an article published, a breaking one, and the test
 * message a customer sends to see their endpoint work.
 */
export const EVENT_TYPES = ['article.published', 'article.breaking', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EVENT_TYPE = z.enum(EVENT_TYPES);

export const WEBHOOK_LIMITS = { urlLength: 2048, descriptionLength: 200, filterValues: PREFERENCE_LIMITS.watchlist, entityIdLength: 36 } as const;

/** A list of values, each at most once. */
const distinct = <T extends z.ZodType>(item: T, max: number, min = 0) =>
  z
    .array(item)
    .min(min)
    .max(max)
    .refine((values) => new Set(values).size === values.length, 'each value at most once');

/**
 * Which articles an endpoint hears about, each list narrowing (an article passes when it matches
 * any value of every list given). No list: every article of the subscribed event types.
 */
export const WebhookFilters = z.strictObject({
  sectors: distinct(SECTOR, SECTORS.length).optional(),
  topics: distinct(TOPIC, TOPICS.length).optional(),
  tickers: distinct(TICKER, WEBHOOK_LIMITS.filterValues).optional(),
  entityIds: distinct(z.string().min(1).max(WEBHOOK_LIMITS.entityIdLength), WEBHOOK_LIMITS.filterValues).optional(),
});
export type WebhookFilters = z.output<typeof WebhookFilters>;

/**
 * What a customer gives to register an endpoint. The URL is only checked for length and form
 * here: whether its scheme and host are allowed depends on the environment's allow-list
 * (webhookUrlRefusal, models/infra/webhook-sender.ts).
 */
export const WebhookEndpointInput = z.strictObject({
  url: z
    .string()
    .max(WEBHOOK_LIMITS.urlLength)
    .refine((url) => URL.canParse(url), 'an absolute URL'),
  eventTypes: distinct(EVENT_TYPE, EVENT_TYPES.length, 1),
  filters: WebhookFilters.optional(),
  description: z.string().max(WEBHOOK_LIMITS.descriptionLength).optional(),
});
export type WebhookEndpointInput = z.output<typeof WebhookEndpointInput>;
