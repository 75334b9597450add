/**
 * Preferences, one document per user (`_id` = user id: a primary-key read on FerretDB too). Edits
 * are single atomic update operators on MongoDB ($addToSet, $pull, $set of one path); the document
 * is created with the defaults first, so every edit is an update by `_id`.
 */
import type { Connection } from 'mongoose';
import { DEFAULT_NOTIFICATIONS, defaultPreferences, type NotificationSettings, type Preferences } from './preferences.rules';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey } from '../infra/mongo';
import type { AlertFollows, AlertTarget } from './alert.rules';
import type { AlertChannel } from './audience.rules';
import type { DueHour } from './digest.rules';

/** A reader who may be told of an article: what they follow, and their notification settings. */
export type AlertCandidate = AlertFollows & { settings: NotificationSettings };

type PreferencesDoc = Preferences & { _id: string; updatedAt: Date };

const PREFERENCES = 'user_preferences';

export function createPreferencesRepo(conn: Connection) {
  const prefs = () => collectionOf<PreferencesDoc>(conn, PREFERENCES);
  // The digest's readers: by whether it is on, their zone and hour (digestReaders' one query per run).
  const digestIndexes = () =>
    indexesOnce(conn, `${PREFERENCES}:digest`, () =>
      buildIndexesRacing(() => prefs().createIndex({ 'notificationSettings.digest': 1, 'notificationSettings.timeZone': 1, 'notificationSettings.digestHour': 1, _id: 1 }, { name: 'digest_due' })),
    );
  /** A stored document as the product reads it: settings stored before a setting existed take its default. */
  const withDefaults = (doc: PreferencesDoc): Preferences & { _id: string } => {
    const { updatedAt: _updatedAt, ...rest } = doc;
    const defaults = defaultPreferences();
    return { ...defaults, ...rest, notificationSettings: { ...defaults.notificationSettings, ...rest.notificationSettings }, relevanceSettings: { ...defaults.relevanceSettings, ...rest.relevanceSettings } };
  };

  async function ensure(userId: string): Promise<void> {
    if (await prefs().findOne({ _id: userId }, { projection: { _id: 1 } })) return;
    await prefs()
      .insertOne({ _id: userId, ...defaultPreferences(), updatedAt: new Date() })
      .catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err; // created meanwhile
      });
  }

  async function get(userId: string): Promise<Preferences> {
    const doc = await prefs().findOne({ _id: userId });
    if (!doc) return defaultPreferences();
    const { _id: _userId, ...rest } = withDefaults(doc);
    return rest;
  }

  return {
    get,
    async replace(userId: string, p: Preferences): Promise<Preferences> {
      await prefs().replaceOne({ _id: userId }, { ...p, updatedAt: new Date() }, { upsert: true });
      return await get(userId);
    },
    /** Applies one update (operators on paths of the document) and returns the result. */
    async update(userId: string, update: Record<string, Record<string, unknown>>): Promise<Preferences> {
      await ensure(userId);
      await prefs().updateOne({ _id: userId }, { ...update, $set: { ...(update.$set ?? {}), updatedAt: new Date() } });
      return await get(userId);
    },
    /**
     * Applies one update only while the document matches `condition` (one atomic command, so a
     * limit holds under concurrent edits); null when it did not match.
     */
    async updateWhere(userId: string, condition: Record<string, unknown>, update: Record<string, Record<string, unknown>>): Promise<Preferences | null> {
      await ensure(userId);
      const res = await prefs().updateOne({ _id: userId, ...condition }, { ...update, $set: { ...(update.$set ?? {}), updatedAt: new Date() } });
      return res.matchedCount === 1 ? await get(userId) : null;
    },

    /**
     * A page of the readers who may be told of a breaking article, by user id after `after`: one
     * of `channels` on, a minimum score the article reaches, and one of its lists or any keyword
     * (audience.rules whoIsTold then decides, with their settings).
     */
    async alertCandidates(article: AlertTarget, after: string | null, limit: number, channels: readonly AlertChannel[]): Promise<AlertCandidate[]> {
      const docs = await collectionOf<AlertFollows & { notificationSettings?: Partial<NotificationSettings> }>(conn, 'user_preferences')
        .find(
          {
            'notificationSettings.minScore': { $lte: article.baseScore },
            ...(after ? { _id: { $gt: after } } : {}),
            $and: [
              { $or: channels.map((c) => ({ [`notificationSettings.${c}`]: true })) },
              {
                $or: [
                  { sectors: article.primarySector },
                  { topics: article.primaryTopic },
                  { watchlistCompanies: { $in: article.entityIds } },
                  { watchlistTickers: { $in: article.tickers } },
                  { 'keywords.0': { $exists: true } },
                ],
              },
            ],
          },
          { projection: { sectors: 1, topics: 1, watchlistCompanies: 1, watchlistTickers: 1, keywords: 1, notificationSettings: 1 }, sort: { _id: 1 }, limit },
        )
        .toArray();
      // Settings stored before a setting existed take its default.
      return docs.map(({ notificationSettings, ...follows }) => ({ ...follows, settings: { ...DEFAULT_NOTIFICATIONS, ...notificationSettings } }));
    },

    /** The time zones of the readers with the digest on (a document with none stored has the default zone). */
    async digestTimeZones(): Promise<string[]> {
      await digestIndexes();
      const zones = (await prefs().distinct('notificationSettings.timeZone', { 'notificationSettings.digest': true })) as unknown[];
      const named = zones.filter((z): z is string => typeof z === 'string');
      const unset = await prefs().findOne({ 'notificationSettings.digest': true, 'notificationSettings.timeZone': { $exists: false } }, { projection: { _id: 1 } });
      return [...new Set([...named, ...(unset ? [DEFAULT_NOTIFICATIONS.timeZone] : [])])].sort();
    },

    /**
     * A page of the readers whose digest is due at these hours (each in its zone), whole, by user
     * id after `after`. A setting not stored is its default (the default zone and hour match a
     * document without them).
     */
    async digestReaders(due: readonly DueHour[], after: string | null, limit: number): Promise<(Preferences & { _id: string })[]> {
      if (due.length === 0) return [];
      await digestIndexes();
      const orDefault = (field: string, value: unknown, fallback: unknown) => (value === fallback ? { $or: [{ [field]: value }, { [field]: { $exists: false } }] } : { [field]: value });
      const docs = await prefs()
        .find(
          {
            'notificationSettings.digest': true,
            ...(after ? { _id: { $gt: after } } : {}),
            $or: due.map((d) => ({ $and: [orDefault('notificationSettings.timeZone', d.timeZone, DEFAULT_NOTIFICATIONS.timeZone), orDefault('notificationSettings.digestHour', d.hour, DEFAULT_NOTIFICATIONS.digestHour)] })),
          },
          { sort: { _id: 1 }, limit },
        )
        .toArray();
      return docs.map(withDefaults);
    },
  };
}

export type PreferencesRepo = ReturnType<typeof createPreferencesRepo>;
