/**
 * A user's News API preferences (spec §2.7): what they follow and how the feed weighs it. Pure
 * data: the schema that validates every edit, the defaults, and the limits.
 */
import { z } from 'zod';
import { SECTORS, TOPICS } from './article.rules';
import { fold } from './text.rules';
import { isTimeZone } from '../shared/calendar.rules';

export const PREFERENCE_LIMITS = { watchlist: 100, keywords: 50, keywordLength: 50 } as const;

/** B3 tickers: four characters (a letter first) and a class number (PETR4, VALE3, SANB11, B3SA3). */
export const TICKER = z
  .string()
  .max(16)
  .trim()
  .transform((s) => s.toUpperCase())
  .pipe(z.string().regex(/^[A-Z][A-Z0-9]{3}\d{1,2}$/, 'a B3 ticker such as PETR4 or SANB11'));

export const WEIGHT = z.number().min(0).max(5);
export const SECTOR = z.enum(SECTORS);
export const TOPIC = z.enum(TOPICS);
/**
 * Latin-script letters (accented included: Latin-1 Supplement, Latin Extended-A and -B), written as
 * code-point ranges rather than `\p{L}`: the pattern is published in the OpenAPI document, and
 * validators outside JavaScript read `\p{L}` differently (or not at all). Keywords match Portuguese
 * and English article text, where another script or a look-alike such as 𝑨 (U+1D468) never occurs.
 */
const LATIN_LETTER = 'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F';
/**
 * Letters, digits, spaces, &, ' and - (keywords are keys of keywordWeights: no dots or $), with no
 * space at either end. Not trimmed: the published pattern is the whole rule, so what the document
 * refuses the API refuses too (a trimmed " Ações\v" was accepted against its pattern: fuzzing).
 */
export const KEYWORD = z
  .string()
  .min(2)
  .max(PREFERENCE_LIMITS.keywordLength)
  .regex(new RegExp(`^[${LATIN_LETTER}0-9](?:[${LATIN_LETTER}0-9 &'-]*[${LATIN_LETTER}0-9&'-])?$`), "Latin letters, digits, spaces, &, ' and - only, no space at either end");

/** A time of day, 24-hour `HH:MM`. */
export const CLOCK_TIME = z.string().max(5).regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a time of day such as 07:30');
/** Languages readers' mail is written in. */
export const READER_LANGUAGES = ['pt', 'en'] as const;
export type ReaderLanguage = (typeof READER_LANGUAGES)[number];

/**
 * How and when a reader is told (issue 40; decisions.md "Readers' notifications"). The spec's
 * five fields, then what acting on them needs: the daily digest and its hour, the reader's time
 * zone and language, and quiet hours (no instant alert between `start` and `end`, which may span
 * midnight).
 */
export const NotificationSettings = z.strictObject({
  email: z.boolean().describe('breaking alerts by e-mail'),
  push: z.boolean().describe("breaking alerts by Web Push to the reader's browsers"),
  whatsapp: z.boolean().describe('breaking alerts on WhatsApp (a linked, verified phone)'),
  breakingOnly: z.boolean().describe('the digest lists breaking articles only (instant alerts are always for breaking articles)'),
  minScore: z.number().min(0).max(100).describe("an article below this score (its baseScore, 0–100) is neither alerted nor in the digest"),
  digest: z.boolean().describe('a daily e-mail digest of the top articles by the feed\'s relevance'),
  digestHour: z.number().int().min(0).max(23).describe("the digest's hour, in timeZone"),
  timeZone: z.string().max(64).refine(isTimeZone, 'an IANA time zone such as America/Sao_Paulo').describe("the reader's IANA time zone"),
  language: z.enum(READER_LANGUAGES).describe('the language of mail and push messages'),
  quietHours: z
    .strictObject({ start: CLOCK_TIME, end: CLOCK_TIME })
    .refine((q) => q.start !== q.end, 'start and end differ')
    .nullable()
    .describe('no instant alert from start to end (in timeZone; may span midnight); null: none'),
});

const MULTIPLIER = z.number().min(0).max(10);
export const RelevanceSettings = z.strictObject({
  sectorMultiplier: MULTIPLIER,
  topicMultiplier: MULTIPLIER,
  keywordMultiplier: MULTIPLIER,
  watchlistMultiplier: MULTIPLIER,
  breakingNewsMultiplier: MULTIPLIER,
  exclusiveMultiplier: MULTIPLIER,
  recencyDecayEnabled: z.boolean(),
  recencyDecayHours: z.number().min(1).max(720),
});

export type NotificationSettings = z.infer<typeof NotificationSettings>;
export type RelevanceSettings = z.infer<typeof RelevanceSettings>;

/** Messaging notifications are off until the user turns them on (spec §2.7). */
export const DEFAULT_NOTIFICATIONS: NotificationSettings = {
  email: true,
  push: false,
  whatsapp: false,
  breakingOnly: false,
  minScore: 0,
  digest: false,
  digestHour: 7,
  timeZone: 'America/Sao_Paulo',
  language: 'pt',
  quietHours: null,
};
export const DEFAULT_RELEVANCE: RelevanceSettings = {
  sectorMultiplier: 1,
  topicMultiplier: 1,
  keywordMultiplier: 1,
  watchlistMultiplier: 1.5,
  breakingNewsMultiplier: 1.5,
  exclusiveMultiplier: 1.2,
  recencyDecayEnabled: true,
  recencyDecayHours: 24,
};

const unique = <T>(xs: T[]) => [...new Set(xs)];
const weightsOf = <K extends string>(key: z.ZodEnum<Record<K, K>>) => z.partialRecord(key, WEIGHT);

/** The whole document, as PUT replaces it (absent fields take their defaults). */
export const Preferences = z
  .strictObject({
    sectors: z.array(SECTOR).max(SECTORS.length).default([]).transform(unique),
    sectorWeights: weightsOf(SECTOR).default({}),
    topics: z.array(TOPIC).max(TOPICS.length).default([]).transform(unique),
    topicWeights: weightsOf(TOPIC).default({}),
    watchlistCompanies: z.array(z.uuid()).max(PREFERENCE_LIMITS.watchlist).default([]).transform(unique),
    watchlistTickers: z.array(TICKER).max(PREFERENCE_LIMITS.watchlist).default([]).transform(unique),
    keywords: z.array(KEYWORD).max(PREFERENCE_LIMITS.keywords).default([]),
    keywordWeights: z.record(KEYWORD, WEIGHT).default({}),
    notificationSettings: NotificationSettings.partial().default({}).transform((n) => ({ ...DEFAULT_NOTIFICATIONS, ...n })),
    relevanceSettings: RelevanceSettings.partial().default({}).transform((r) => ({ ...DEFAULT_RELEVANCE, ...r })),
  })
  .transform((p) => {
    // Keywords are one per folded form ("Ações" and "acoes" are the same keyword).
    const seen = new Set<string>();
    const keywords = p.keywords.filter((k) => !seen.has(fold(k)) && seen.add(fold(k)));
    return {
      ...p,
      keywords,
      // Weights only for what is followed; followed items without a weight weigh 1.
      sectorWeights: Object.fromEntries(p.sectors.map((s) => [s, p.sectorWeights[s] ?? 1])),
      topicWeights: Object.fromEntries(p.topics.map((t) => [t, p.topicWeights[t] ?? 1])),
      keywordWeights: Object.fromEntries(keywords.map((k) => [k, p.keywordWeights[k] ?? 1])),
    };
  });

export type Preferences = z.output<typeof Preferences>;

export const defaultPreferences = (): Preferences => Preferences.parse({});
