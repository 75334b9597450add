/**
 * The caller's preferences (spec §2.7, §4.6, §4.7): read, replace, and one endpoint per kind of
 * edit. Any valid key of the account may use them (no read scope is about preferences). Removing
 * something that is not there is not an error: the preferences end as asked.
 */
import { z } from 'zod';
import { AppError } from '../../models/errors';
import {
  KEYWORD,
  NotificationSettings,
  PREFERENCE_LIMITS,
  Preferences,
  RelevanceSettings,
  SECTOR,
  TICKER,
  TOPIC,
  WEIGHT,
} from '../../models/news/preferences.rules';
import { fold } from '../../models/news/text.rules';
import { routeFactory } from '../shared/route';
import { apiKey } from './auth';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const owner = apiKey(null);
const tags = ['preferences'];
const base = '/api/users/preferences';

const PreferencesView = z.object({
  sectors: z.array(z.string()),
  sectorWeights: z.record(z.string(), z.number()),
  topics: z.array(z.string()),
  topicWeights: z.record(z.string(), z.number()),
  watchlistCompanies: z.array(z.string()),
  watchlistTickers: z.array(z.string()),
  keywords: z.array(z.string()),
  keywordWeights: z.record(z.string(), z.number()),
  notificationSettings: NotificationSettings,
  relevanceSettings: RelevanceSettings,
});

const pick = <K extends keyof Preferences>(p: Preferences, ...keys: K[]) => Object.fromEntries(keys.map((k) => [k, p[k]])) as Pick<Preferences, K>;

function full(what: string, limit: number): never {
  throw new AppError('VALIDATION_FAILED', `At most ${limit} ${what}`, { details: [{ path: 'body', message: `at most ${limit} ${what}` }] });
}

export const preferenceRoutes = [
  route({
    method: 'get',
    path: base,
    summary: "The caller's preferences",
    description: 'Defaults until the first edit: nothing followed, e-mail notifications on, messaging off.',
    tags,
    auth: owner,
    response: PreferencesView,
    handler: async ({ auth, deps }) => await deps.preferences.get(auth.sub),
  }),

  route({
    method: 'put',
    path: base,
    summary: 'Replace the whole preferences document',
    description: 'Absent fields take their defaults; weights of items not followed are dropped; followed items without a weight weigh 1.',
    tags,
    auth: owner,
    body: Preferences,
    response: PreferencesView,
    handler: async ({ body, auth, deps }) => await deps.preferences.replace(auth.sub, body),
  }),

  route({
    method: 'post',
    path: `${base}/sectors`,
    summary: 'Follow a sector (or change its weight)',
    tags,
    auth: owner,
    body: z.strictObject({ sector: SECTOR, weight: WEIGHT.default(1) }),
    response: z.object({ sectors: z.array(z.string()), sectorWeights: z.record(z.string(), z.number()) }),
    handler: async ({ body, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $addToSet: { sectors: body.sector }, $set: { [`sectorWeights.${body.sector}`]: body.weight } }), 'sectors', 'sectorWeights'),
  }),

  route({
    method: 'delete',
    path: `${base}/sectors/:sector`,
    summary: 'Stop following a sector',
    tags,
    auth: owner,
    params: z.object({ sector: SECTOR }),
    response: z.object({ sectors: z.array(z.string()), sectorWeights: z.record(z.string(), z.number()) }),
    handler: async ({ params, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $pull: { sectors: params.sector }, $unset: { [`sectorWeights.${params.sector}`]: '' } }), 'sectors', 'sectorWeights'),
  }),

  route({
    method: 'post',
    path: `${base}/topics`,
    summary: 'Follow a topic (or change its weight)',
    tags,
    auth: owner,
    body: z.strictObject({ topic: TOPIC, weight: WEIGHT.default(1) }),
    response: z.object({ topics: z.array(z.string()), topicWeights: z.record(z.string(), z.number()) }),
    handler: async ({ body, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $addToSet: { topics: body.topic }, $set: { [`topicWeights.${body.topic}`]: body.weight } }), 'topics', 'topicWeights'),
  }),

  route({
    method: 'delete',
    path: `${base}/topics/:topic`,
    summary: 'Stop following a topic',
    description: 'Topic codes with & are sent encoded (M%26A).',
    tags,
    auth: owner,
    params: z.object({ topic: TOPIC }),
    response: z.object({ topics: z.array(z.string()), topicWeights: z.record(z.string(), z.number()) }),
    handler: async ({ params, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $pull: { topics: params.topic }, $unset: { [`topicWeights.${params.topic}`]: '' } }), 'topics', 'topicWeights'),
  }),

  route({
    method: 'post',
    path: `${base}/watchlist/companies`,
    summary: 'Watch a company (entity id)',
    tags,
    auth: owner,
    body: z.strictObject({ entityId: z.uuid() }),
    response: z.object({ watchlistCompanies: z.array(z.string()), watchlistTickers: z.array(z.string()) }),
    handler: async ({ body, auth, deps }) => {
      const current = await deps.preferences.get(auth.sub);
      if (!current.watchlistCompanies.includes(body.entityId) && current.watchlistCompanies.length >= PREFERENCE_LIMITS.watchlist) full('watched companies', PREFERENCE_LIMITS.watchlist);
      return pick(await deps.preferences.update(auth.sub, { $addToSet: { watchlistCompanies: body.entityId } }), 'watchlistCompanies', 'watchlistTickers');
    },
  }),

  route({
    method: 'delete',
    path: `${base}/watchlist/companies/:entityId`,
    summary: 'Stop watching a company',
    tags,
    auth: owner,
    params: z.object({ entityId: z.uuid() }),
    response: z.object({ watchlistCompanies: z.array(z.string()), watchlistTickers: z.array(z.string()) }),
    handler: async ({ params, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $pull: { watchlistCompanies: params.entityId } }), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'post',
    path: `${base}/watchlist/tickers`,
    summary: 'Watch a ticker',
    tags,
    auth: owner,
    body: z.strictObject({ ticker: TICKER }),
    response: z.object({ watchlistCompanies: z.array(z.string()), watchlistTickers: z.array(z.string()) }),
    handler: async ({ body, auth, deps }) => {
      const current = await deps.preferences.get(auth.sub);
      if (!current.watchlistTickers.includes(body.ticker) && current.watchlistTickers.length >= PREFERENCE_LIMITS.watchlist) full('watched tickers', PREFERENCE_LIMITS.watchlist);
      return pick(await deps.preferences.update(auth.sub, { $addToSet: { watchlistTickers: body.ticker } }), 'watchlistCompanies', 'watchlistTickers');
    },
  }),

  route({
    method: 'delete',
    path: `${base}/watchlist/tickers/:ticker`,
    summary: 'Stop watching a ticker',
    tags,
    auth: owner,
    params: z.object({ ticker: TICKER }),
    response: z.object({ watchlistCompanies: z.array(z.string()), watchlistTickers: z.array(z.string()) }),
    handler: async ({ params, auth, deps }) =>
      pick(await deps.preferences.update(auth.sub, { $pull: { watchlistTickers: params.ticker } }), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'post',
    path: `${base}/keywords`,
    summary: 'Add a keyword (or change its weight)',
    description: 'Keywords match articles without regard to case or accents; "Ações" and "acoes" are one keyword (the first spelling is kept).',
    tags,
    auth: owner,
    body: z.strictObject({ keyword: KEYWORD, weight: WEIGHT.default(1) }),
    response: z.object({ keywords: z.array(z.string()), keywordWeights: z.record(z.string(), z.number()) }),
    handler: async ({ body, auth, deps }) => {
      const current = await deps.preferences.get(auth.sub);
      const existing = current.keywords.find((k) => fold(k) === fold(body.keyword));
      if (!existing && current.keywords.length >= PREFERENCE_LIMITS.keywords) full('keywords', PREFERENCE_LIMITS.keywords);
      const keyword = existing ?? body.keyword;
      return pick(await deps.preferences.update(auth.sub, { $addToSet: { keywords: keyword }, $set: { [`keywordWeights.${keyword}`]: body.weight } }), 'keywords', 'keywordWeights');
    },
  }),

  route({
    method: 'delete',
    path: `${base}/keywords/:keyword`,
    summary: 'Remove a keyword',
    tags,
    auth: owner,
    params: z.object({ keyword: KEYWORD }),
    response: z.object({ keywords: z.array(z.string()), keywordWeights: z.record(z.string(), z.number()) }),
    handler: async ({ params, auth, deps }) => {
      const current = await deps.preferences.get(auth.sub);
      const existing = current.keywords.find((k) => fold(k) === fold(params.keyword));
      if (!existing) return pick(current, 'keywords', 'keywordWeights');
      return pick(await deps.preferences.update(auth.sub, { $pull: { keywords: existing }, $unset: { [`keywordWeights.${existing}`]: '' } }), 'keywords', 'keywordWeights');
    },
  }),

  route({
    method: 'patch',
    path: `${base}/notifications`,
    summary: 'Change notification settings',
    description: 'Only the fields sent change. Messaging (whatsapp) is off until turned on here.',
    tags,
    auth: owner,
    body: NotificationSettings.partial().refine((b) => Object.keys(b).length > 0, 'send at least one setting'),
    response: NotificationSettings,
    handler: async ({ body, auth, deps }) =>
      (await deps.preferences.update(auth.sub, { $set: Object.fromEntries(Object.entries(body).map(([k, v]) => [`notificationSettings.${k}`, v])) })).notificationSettings,
  }),

  route({
    method: 'patch',
    path: `${base}/relevance`,
    summary: 'Change relevance settings (feed multipliers and recency decay)',
    description: 'Only the fields sent change. Multipliers 0–10; recencyDecayHours 1–720.',
    tags,
    auth: owner,
    body: RelevanceSettings.partial().refine((b) => Object.keys(b).length > 0, 'send at least one setting'),
    response: RelevanceSettings,
    handler: async ({ body, auth, deps }) =>
      (await deps.preferences.update(auth.sub, { $set: Object.fromEntries(Object.entries(body).map(([k, v]) => [`relevanceSettings.${k}`, v])) })).relevanceSettings,
  }),
];
