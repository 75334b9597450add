/**
 * The pure rules of outgoing webhooks: the specification's retry schedule with its jitter (a
 * seeded random, so the bounds are checked over many draws the same way every run), Retry-After,
 * the end of the schedule, what each answer means, disabling after five days of failures, and the
 * registration of an endpoint (its URL's refusals are tested with the sender: webhook-sender.test.ts).
 */
import {
  DISABLE_AFTER_FAILING_MS,
  EVENT_TYPES,
  MAX_RETRY_DELAY_MS,
  nextAttemptDelay,
  outcomeOf,
  RETRY_SCHEDULE_MS,
  shouldDisable,
  WebhookEndpointInput,
} from '../../models/events/webhook.rules';

/** mulberry32: a small seeded generator, so a failing draw can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('RETRY_SCHEDULE_MS', () => {
  it('is the specification’s schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR]);
  });
});

describe('nextAttemptDelay', () => {
  it('makes the first attempt at once, whatever the random draw', () => {
    expect(nextAttemptDelay(1, { random: () => 0 })).toBe(0);
    expect(nextAttemptDelay(1, { random: () => 0.999 })).toBe(0);
  });

  it('keeps every retry within ±20 % of the schedule, and uses the whole range', () => {
    const random = seeded(40);
    for (let attempt = 2; attempt <= RETRY_SCHEDULE_MS.length; attempt += 1) {
      const scheduled = RETRY_SCHEDULE_MS[attempt - 1]!;
      const delays = Array.from({ length: 500 }, () => nextAttemptDelay(attempt, { random })!);
      const low = Math.min(...delays);
      const high = Math.max(...delays);
      expect(low).toBeGreaterThanOrEqual(Math.floor(scheduled * 0.8));
      expect(high).toBeLessThanOrEqual(Math.min(Math.ceil(scheduled * 1.2), MAX_RETRY_DELAY_MS));
      // Spread, not a constant: the draws reach near both ends of the band.
      expect(low).toBeLessThan(scheduled * 0.85);
      if (scheduled * 1.2 <= MAX_RETRY_DELAY_MS) expect(high).toBeGreaterThan(scheduled * 1.15);
    }
  });

  it('reaches exactly the band’s ends at the extreme draws, the last wait never over a day', () => {
    expect(nextAttemptDelay(2, { random: () => 0 })).toBe(4 * SECOND);
    expect(nextAttemptDelay(2, { random: () => 1 })).toBe(6 * SECOND);
    expect(nextAttemptDelay(2, { random: () => 0.5 })).toBe(5 * SECOND);
    expect(nextAttemptDelay(10, { random: () => 1 })).toBe(MAX_RETRY_DELAY_MS);
    expect(nextAttemptDelay(10, { random: () => 0 })).toBe((24 * HOUR * 8) / 10);
  });

  it('waits as long as a Retry-After asks when that is longer, capped at a day', () => {
    const random = () => 0.5;
    expect(nextAttemptDelay(2, { retryAfterMs: 120 * SECOND, random })).toBe(120 * SECOND);
    expect(nextAttemptDelay(3, { retryAfterMs: 1 * SECOND, random })).toBe(5 * MINUTE);
    expect(nextAttemptDelay(2, { retryAfterMs: 3 * 24 * HOUR, random })).toBe(MAX_RETRY_DELAY_MS);
    expect(nextAttemptDelay(2, { retryAfterMs: -5, random })).toBe(5 * SECOND);
  });

  it('is null once the schedule is exhausted, and refuses an attempt number that is not one', () => {
    expect(nextAttemptDelay(RETRY_SCHEDULE_MS.length, { random: () => 0.5 })).toBe(24 * HOUR);
    expect(nextAttemptDelay(RETRY_SCHEDULE_MS.length + 1, { random: () => 0.5 })).toBeNull();
    expect(nextAttemptDelay(RETRY_SCHEDULE_MS.length + 1, { retryAfterMs: MINUTE, random: () => 0.5 })).toBeNull();
    expect(() => nextAttemptDelay(0, { random: () => 0.5 })).toThrow(/attempt/);
    expect(() => nextAttemptDelay(1.5, { random: () => 0.5 })).toThrow(/attempt/);
  });
});

describe('outcomeOf', () => {
  it('is delivered on any 2xx', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(outcomeOf(status)).toBe('delivered');
  });

  it('disables the endpoint on 410 Gone', () => {
    expect(outcomeOf(410)).toBe('disable');
  });

  it('retries every redirect: they are never followed, so they are failures', () => {
    for (const status of [300, 301, 302, 303, 304, 307, 308]) expect(outcomeOf(status)).toBe('retry');
  });

  it('retries the other statuses and every failure without a status', () => {
    for (const status of [100, 400, 401, 404, 408, 413, 429, 500, 502, 503, 504]) expect(outcomeOf(status)).toBe('retry');
    expect(outcomeOf('network-error')).toBe('retry');
    expect(outcomeOf('timeout')).toBe('retry');
    expect(outcomeOf('refused-address')).toBe('retry');
  });
});

describe('shouldDisable', () => {
  const since = new Date('2026-11-20T10:00:00Z');

  it('disables an endpoint failing for five days, not before', () => {
    expect(DISABLE_AFTER_FAILING_MS).toBe(5 * 24 * HOUR);
    expect(shouldDisable(since, new Date(since.getTime() + 5 * 24 * HOUR - 1))).toBe(false);
    expect(shouldDisable(since, new Date(since.getTime() + 5 * 24 * HOUR))).toBe(true);
    expect(shouldDisable(since, new Date(since.getTime() + 9 * 24 * HOUR))).toBe(true);
  });

  it('never disables an endpoint that is not failing', () => {
    expect(shouldDisable(null, new Date())).toBe(false);
  });
});

describe('WebhookEndpointInput', () => {
  const valid = { url: 'https://hooks.customer.example/news', eventTypes: ['article.published'] };

  it('accepts a registration with filters and a description, tickers upper-cased', () => {
    const parsed = WebhookEndpointInput.parse({
      ...valid,
      eventTypes: ['article.published', 'article.breaking'],
      filters: { sectors: ['FIN', 'ENE'], topics: ['DIV'], tickers: ['petr4'], entityIds: ['3f8e0a0e-1c1a-4c55-9d7e-6c1d2a9b0f11'] },
      description: 'Trading desk',
    });
    expect(parsed.filters?.tickers).toEqual(['PETR4']);
    expect(EVENT_TYPES).toEqual(['article.published', 'article.breaking', 'webhook.test']);
  });

  it.each([
    ['no event type', { ...valid, eventTypes: [] }],
    ['an unknown event type', { ...valid, eventTypes: ['article.deleted'] }],
    ['an event type twice', { ...valid, eventTypes: ['article.published', 'article.published'] }],
    ['a URL over 2048 characters', { ...valid, url: `https://hooks.customer.example/${'a'.repeat(2048)}` }],
    ['something that is not a URL', { ...valid, url: 'hooks.customer.example/news' }],
    ['a description over 200 characters', { ...valid, description: 'x'.repeat(201) }],
    ['an unknown sector', { ...valid, filters: { sectors: ['XXX'] } }],
    ['an unknown topic', { ...valid, filters: { topics: ['GOSSIP'] } }],
    ['a ticker that is not one', { ...valid, filters: { tickers: ['PETROBRAS'] } }],
    ['too many tickers', { ...valid, filters: { tickers: Array.from({ length: 101 }, (_, i) => `ABCD${i % 10}${Math.floor(i / 10)}`) } }],
    ['an entity id over 36 characters', { ...valid, filters: { entityIds: ['e'.repeat(37)] } }],
    ['an empty entity id', { ...valid, filters: { entityIds: [''] } }],
    ['an unknown filter', { ...valid, filters: { keywords: ['petróleo'] } }],
    ['an unknown field', { ...valid, secret: 'whsec_mine' }],
    ['no URL', { eventTypes: ['article.published'] }],
  ])('refuses %s', (_what, input) => {
    expect(WebhookEndpointInput.safeParse(input).success).toBe(false);
  });
});
