/**
 * News sources (issue 25): feeds the platform polls, what an administrator may set on one, its
 * health, and when it is polled next. Pure.
 *
 * A failing source is backed off exponentially (full jitter, capped), and flagged after
 * FLAG_AFTER_FAILURES failures in a row; a 429/503 with Retry-After waits at least what the
 * site asked (capped too), so a site is never polled faster than it allows.
 */
import { z } from 'zod';
import { LANGUAGES, SECTORS, type Sector } from '../article.rules';
import { normaliseUrl } from '../ingest.rules';
import type { ItemState } from './feed-item.repo';

export const SOURCE_TIERS = [1, 2, 3] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];

/** Polling interval bounds, in minutes (issue 25: minimum 1, default 5; at most a day). */
export const POLL_MINUTES = { min: 1, max: 1_440, default: 5 } as const;
/** Back-off of a failing source: at most this long between polls. */
export const MAX_BACKOFF_MS = 6 * 3_600_000;
/** Failures in a row after which a source is flagged as failing (still polled, backed off). */
export const FLAG_AFTER_FAILURES = 5;
/** Longest Retry-After honoured; a site asking for longer is polled again after this. */
export const MAX_RETRY_AFTER_MS = MAX_BACKOFF_MS;

const feedUrl = z
  .string()
  .max(2_048)
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
  // Runs even when the URL check above failed (zod reports every issue), so it must not throw.
  .refine((u) => URL.canParse(u) && !new URL(u).username && !new URL(u).password, 'must not carry credentials');

/** A source as an administrator creates it. */
export const SourceInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  feedUrl,
  tier: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(2).describe('1 = most trusted (wire services, major outlets), 3 = least'),
  language: z.enum(LANGUAGES).default('pt'),
  defaultSector: z.enum(SECTORS).nullable().default(null).describe('Sector assumed when the model cannot tell (a sector-specific outlet)'),
  pollIntervalMinutes: z.number().int().min(POLL_MINUTES.min).max(POLL_MINUTES.max).default(POLL_MINUTES.default),
  enabled: z.boolean().default(true),
});
export type SourceInput = z.output<typeof SourceInput>;

/** A change to a source: any of its settings, at least one. */
export const SourcePatch = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    feedUrl,
    tier: z.union([z.literal(1), z.literal(2), z.literal(3)]),
    language: z.enum(LANGUAGES),
    defaultSector: z.enum(SECTORS).nullable(),
    pollIntervalMinutes: z.number().int().min(POLL_MINUTES.min).max(POLL_MINUTES.max),
    enabled: z.boolean(),
  })
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'change at least one field');
export type SourcePatch = z.output<typeof SourcePatch>;

export interface SourceHealth {
  lastPollAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  consecutiveFailures: number;
  /** Feed items seen for the first time, all time. */
  itemsSeen: number;
  /** Articles this source created (first reports; syndicated copies and duplicates are not). */
  articlesCreated: number;
  /** When its workflow polls next (a back-off or Retry-After shows here). */
  nextPollAt: Date | null;
}

export interface SourceDoc {
  _id: string;
  name: string;
  feedUrl: string;
  /** The normalised feed URL: unique, so one feed is one source. */
  feedKey: string;
  tier: SourceTier;
  language: (typeof LANGUAGES)[number];
  defaultSector: Sector | null;
  pollIntervalMinutes: number;
  enabled: boolean;
  /** Validators of the last feed answer, for conditional GET. */
  http: { etag: string | null; lastModified: string | null };
  health: SourceHealth;
  createdAt: Date;
  updatedAt: Date;
}

export const NEW_HEALTH: SourceHealth = {
  lastPollAt: null,
  lastSuccessAt: null,
  lastError: null,
  lastErrorAt: null,
  consecutiveFailures: 0,
  itemsSeen: 0,
  articlesCreated: 0,
  nextPollAt: null,
};

export const feedKeyOf = (url: string): string => normaliseUrl(url);

/** The state a source is shown in: off, never polled, healthy, backing off, or flagged as failing. */
export type SourceState = 'disabled' | 'new' | 'ok' | 'backing-off' | 'failing';
export function sourceState(s: Pick<SourceDoc, 'enabled' | 'health'>): SourceState {
  if (!s.enabled) return 'disabled';
  if (!s.health.lastPollAt) return 'new';
  if (s.health.consecutiveFailures >= FLAG_AFTER_FAILURES) return 'failing';
  if (s.health.consecutiveFailures > 0) return 'backing-off';
  return 'ok';
}

/**
 * How long to wait before the next poll: the interval after a success; after a failure, an
 * exponential back-off from the interval with full jitter (AWS's "full jitter": a random delay
 * between the interval and the capped exponential), never less than the site's Retry-After.
 * `random` is in [0, 1) (a workflow's Math.random is deterministic, so the same history replays).
 */
export function pollDelayMs(o: { intervalMs: number; consecutiveFailures: number; retryAfterMs?: number | undefined; random: number }): number {
  if (o.consecutiveFailures <= 0) return o.intervalMs;
  const ceiling = Math.min(MAX_BACKOFF_MS, o.intervalMs * 2 ** Math.min(o.consecutiveFailures, 20));
  const backoff = o.intervalMs + Math.floor(o.random * Math.max(0, ceiling - o.intervalMs));
  const asked = o.retryAfterMs === undefined ? 0 : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, o.retryAfterMs));
  return Math.max(backoff, asked);
}

/** What one poll of a source came to: the workflow's next step and wait. */
export type PollOutcome =
  | { state: 'stopped'; reason: 'deleted' | 'disabled' }
  | {
      state: 'polled';
      result: 'ok' | 'not-modified' | 'failed';
      newItemIds: string[];
      /** When to poll next (back-off and Retry-After included). */
      nextPollInMs: number;
      consecutiveFailures: number;
      error: string | null;
    };

export interface IngestOutcome {
  state: ItemState;
  /** The article this item is (its own, or the one it reported again). */
  articleId: string;
  /** Whether the item waits for enrichment to become its article. */
  enrich: boolean;
}
