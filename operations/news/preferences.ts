/**
 * A reader's preferences, the use cases (spec §2.7, §4.6, §4.7; the API and the dashboard share
 * them; reading and replacing the whole document are one repository call each): follow and unfollow sectors and topics with weights, watch companies and
 * tickers, keywords (one per spelling without case or accents), notification and relevance
 * settings. Each edit is one atomic update of the reader's document; a list's limit is part of
 * the update's condition, so it holds however many edits arrive at once. Removing what is not
 * there is not an error: the preferences end as asked.
 */
import { AppError } from '../../models/errors';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import { PREFERENCE_LIMITS, type NotificationSettings, type Preferences, type RelevanceSettings } from '../../models/news/preferences.rules';
import { fold } from '../../models/news/text.rules';

export interface PreferencesDeps {
  preferences: PreferencesRepo;
}

type Weighted = 'sectors' | 'topics';
type Watchlist = 'watchlistCompanies' | 'watchlistTickers';
const WEIGHTS = { sectors: 'sectorWeights', topics: 'topicWeights' } as const;
const WATCHED = { watchlistCompanies: 'watched companies', watchlistTickers: 'watched tickers' } as const;

function full(what: string, limit: number): never {
  throw new AppError('VALIDATION_FAILED', `At most ${limit} ${what}`, { details: [{ path: 'body', message: `at most ${limit} ${what}` }] });
}

/** The document has `value` in `list` already, or room for one more. */
const roomFor = (list: string, value: string, limit: number) => ({ $or: [{ [list]: value }, { [`${list}.${limit - 1}`]: { $exists: false } }] });

/** Follows a sector or topic, or changes its weight. */
export async function follow(deps: PreferencesDeps, userId: string, list: Weighted, code: string, weight: number): Promise<Preferences> {
  return await deps.preferences.update(userId, { $addToSet: { [list]: code }, $set: { [`${WEIGHTS[list]}.${code}`]: weight } });
}

export async function unfollow(deps: PreferencesDeps, userId: string, list: Weighted, code: string): Promise<Preferences> {
  return await deps.preferences.update(userId, { $pull: { [list]: code }, $unset: { [`${WEIGHTS[list]}.${code}`]: '' } });
}

/** Watches a company (entity id) or a ticker, at most PREFERENCE_LIMITS.watchlist of each. */
export async function watch(deps: PreferencesDeps, userId: string, list: Watchlist, value: string): Promise<Preferences> {
  const limit = PREFERENCE_LIMITS.watchlist;
  return (await deps.preferences.updateWhere(userId, roomFor(list, value, limit), { $addToSet: { [list]: value } })) ?? full(WATCHED[list], limit);
}

export async function unwatch(deps: PreferencesDeps, userId: string, list: Watchlist, value: string): Promise<Preferences> {
  return await deps.preferences.update(userId, { $pull: { [list]: value } });
}

/** Adds a keyword or changes its weight; a spelling differing only in case or accents is the same keyword (the first spelling is kept). */
export async function addKeyword(deps: PreferencesDeps, userId: string, keyword: string, weight: number): Promise<Preferences> {
  const current = await deps.preferences.get(userId);
  const kept = current.keywords.find((k) => fold(k) === fold(keyword)) ?? keyword;
  const limit = PREFERENCE_LIMITS.keywords;
  const update = { $addToSet: { keywords: kept }, $set: { [`keywordWeights.${kept}`]: weight } };
  return (await deps.preferences.updateWhere(userId, roomFor('keywords', kept, limit), update)) ?? full('keywords', limit);
}

export async function removeKeyword(deps: PreferencesDeps, userId: string, keyword: string): Promise<Preferences> {
  const current = await deps.preferences.get(userId);
  const existing = current.keywords.find((k) => fold(k) === fold(keyword));
  if (!existing) return current;
  return await deps.preferences.update(userId, { $pull: { keywords: existing }, $unset: { [`keywordWeights.${existing}`]: '' } });
}

const setEach = (prefix: string, fields: object) => ({ $set: Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}.${k}`, v])) });

/** Changes only the notification settings sent. */
export async function changeNotifications(deps: PreferencesDeps, userId: string, patch: Partial<NotificationSettings>): Promise<NotificationSettings> {
  return (await deps.preferences.update(userId, setEach('notificationSettings', patch))).notificationSettings;
}

/** Changes only the relevance settings sent. */
export async function changeRelevance(deps: PreferencesDeps, userId: string, patch: Partial<RelevanceSettings>): Promise<RelevanceSettings> {
  return (await deps.preferences.update(userId, setEach('relevanceSettings', patch))).relevanceSettings;
}
