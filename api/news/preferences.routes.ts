/**
 * The caller's preferences (spec §2.7, §4.6, §4.7): read, replace, and one endpoint per kind of
 * edit. Any valid key of the account may use them (no read scope is about preferences). Removing
 * something that is not there is not an error: the preferences end as asked.
 */
import type { z } from 'zod';
import * as prefs from '../../operations/news/preferences';
import type { Preferences } from '../../models/news/preferences.rules';
import { routeFactory, type RouteExample } from '../shared/route';
import { apiKey } from './auth';
import {
  AddKeywordBody,
  FollowedSectorParams,
  FollowedSectorsView,
  FollowedTopicParams,
  FollowedTopicsView,
  FollowSectorBody,
  FollowTopicBody,
  KeywordParams,
  KeywordsView,
  NotificationSettingsPatch,
  NotificationSettingsView,
  PreferencesBody,
  PreferencesView,
  RelevanceSettingsPatch,
  RelevanceSettingsView,
  WatchCompanyBody,
  WatchedCompanyParams,
  WatchedTickerParams,
  WatchlistView,
  WatchTickerBody,
} from './contracts';
import type { NewsDeps } from './deps';
import {
  ITAU_ENTITY_ID,
  notificationSettingsExample,
  preferencesExample,
  relevanceChangesExample,
  relevanceSettingsExample,
  VALE_ENTITY_ID,
} from './examples/account';

const route = routeFactory<NewsDeps>();
const owner = apiKey(null);
const tags = ['preferences'];
const base = '/api/users/preferences';

const pick = <K extends keyof Preferences>(p: Preferences, ...keys: K[]) => Object.fromEntries(keys.map((k) => [k, p[k]])) as Pick<Preferences, K>;

/**
 * Follow (or re-weigh) and unfollow routes of a weighted list of codes: sectors and topics. Each
 * answers with the list and its weights (spec §4.7's shape for sectors).
 */
function followList<L extends 'sectors' | 'topics', F extends 'sector' | 'topic'>(
  list: L,
  field: F,
  schemas: { body: z.ZodType<Record<F, string> & { weight: number }>; params: z.ZodType<Record<F, string>> },
  noun: string,
  removeNote: string,
  examples: { follow: Omit<RouteExample, 'params'>; unfollow: Omit<RouteExample, 'body'> },
) {
  const weights = `${field}Weights` as const;
  // The list's own view; typed loosely, as its keys are computed from `list`.
  const View = (list === 'sectors' ? FollowedSectorsView : FollowedTopicsView) as unknown as z.ZodType<Record<string, unknown>>;
  const answer = (p: Preferences) => ({ [list]: p[list], [weights]: p[weights] });
  return [
    route({
      method: 'post',
      path: `${base}/${list}`,
      summary: `Follow a ${noun} (or change its weight)`,
      tags,
      auth: owner,
      body: schemas.body,
      response: View,
      example: examples.follow,
      handler: async ({ body, auth, deps }) => answer(await prefs.follow(deps, auth.sub, list, body[field], body.weight)),
    }),
    route({
      method: 'delete',
      path: `${base}/${list}/:${field}`,
      summary: `Stop following a ${noun}`,
      ...(removeNote ? { description: removeNote } : {}),
      tags,
      auth: owner,
      params: schemas.params,
      response: View,
      example: examples.unfollow,
      handler: async ({ params, auth, deps }) => answer(await prefs.unfollow(deps, auth.sub, list, params[field])),
    }),
  ];
}

/**
 * The edit examples leave the preferences as preferencesExample: what is followed is in it, what
 * is removed is not (any more).
 */
const followed = {
  sectors: { sectors: preferencesExample.sectors, sectorWeights: preferencesExample.sectorWeights },
  topics: { topics: preferencesExample.topics, topicWeights: preferencesExample.topicWeights },
  watchlist: { watchlistCompanies: preferencesExample.watchlistCompanies, watchlistTickers: preferencesExample.watchlistTickers },
  keywords: { keywords: preferencesExample.keywords, keywordWeights: preferencesExample.keywordWeights },
};
const sectorExamples = {
  follow: { body: { sector: 'ENE', weight: 2 }, response: followed.sectors },
  unfollow: { params: { sector: 'AGR' }, response: followed.sectors },
} satisfies Record<'follow' | 'unfollow', RouteExample<z.input<typeof FollowedSectorParams>, unknown, z.input<typeof FollowSectorBody>, z.input<typeof FollowedSectorsView>>>;
const topicExamples = {
  follow: { body: { topic: 'DIV', weight: 1.5 }, response: followed.topics },
  unfollow: { params: { topic: 'M&A' }, response: followed.topics },
} satisfies Record<'follow' | 'unfollow', RouteExample<z.input<typeof FollowedTopicParams>, unknown, z.input<typeof FollowTopicBody>, z.input<typeof FollowedTopicsView>>>;

export const preferenceRoutes = [
  route({
    method: 'get',
    path: base,
    summary: "The caller's preferences",
    description: 'Defaults until the first edit: nothing followed, e-mail notifications on, messaging off.',
    tags,
    auth: owner,
    response: PreferencesView,
    example: { response: preferencesExample },
    handler: async ({ auth, deps }) => await deps.preferences.get(auth.sub),
  }),

  route({
    method: 'put',
    path: base,
    summary: 'Replace the whole preferences document',
    description: 'Absent fields take their defaults; weights of items not followed are dropped; followed items without a weight weigh 1.',
    tags,
    auth: owner,
    body: PreferencesBody,
    response: PreferencesView,
    example: {
      // Settings left out take their defaults.
      body: {
        ...preferencesExample,
        notificationSettings: { whatsapp: notificationSettingsExample.whatsapp, minScore: notificationSettingsExample.minScore },
        relevanceSettings: relevanceChangesExample,
      },
      response: preferencesExample,
    },
    handler: async ({ body, auth, deps }) => await deps.preferences.replace(auth.sub, body),
  }),

  ...followList('sectors', 'sector', { body: FollowSectorBody, params: FollowedSectorParams }, 'sector', '', sectorExamples),
  ...followList('topics', 'topic', { body: FollowTopicBody, params: FollowedTopicParams }, 'topic', 'Topic codes with & are sent encoded (M%26A).', topicExamples),

  route({
    method: 'post',
    path: `${base}/watchlist/companies`,
    summary: 'Watch a company (entity id)',
    tags,
    auth: owner,
    body: WatchCompanyBody,
    response: WatchlistView,
    example: { body: { entityId: VALE_ENTITY_ID }, response: followed.watchlist },
    handler: async ({ body, auth, deps }) => pick(await prefs.watch(deps, auth.sub, 'watchlistCompanies', body.entityId), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'delete',
    path: `${base}/watchlist/companies/:entityId`,
    summary: 'Stop watching a company',
    tags,
    auth: owner,
    params: WatchedCompanyParams,
    response: WatchlistView,
    example: { params: { entityId: ITAU_ENTITY_ID }, response: followed.watchlist },
    handler: async ({ params, auth, deps }) => pick(await prefs.unwatch(deps, auth.sub, 'watchlistCompanies', params.entityId), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'post',
    path: `${base}/watchlist/tickers`,
    summary: 'Watch a ticker',
    tags,
    auth: owner,
    body: WatchTickerBody,
    response: WatchlistView,
    example: { body: { ticker: 'VALE3' }, response: followed.watchlist },
    handler: async ({ body, auth, deps }) => pick(await prefs.watch(deps, auth.sub, 'watchlistTickers', body.ticker), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'delete',
    path: `${base}/watchlist/tickers/:ticker`,
    summary: 'Stop watching a ticker',
    tags,
    auth: owner,
    params: WatchedTickerParams,
    response: WatchlistView,
    example: { params: { ticker: 'ITUB4' }, response: followed.watchlist },
    handler: async ({ params, auth, deps }) => pick(await prefs.unwatch(deps, auth.sub, 'watchlistTickers', params.ticker), 'watchlistCompanies', 'watchlistTickers'),
  }),

  route({
    method: 'post',
    path: `${base}/keywords`,
    summary: 'Add a keyword (or change its weight)',
    description: 'Keywords match articles without regard to case or accents; "Ações" and "acoes" are one keyword (the first spelling is kept).',
    tags,
    auth: owner,
    body: AddKeywordBody,
    response: KeywordsView,
    example: { body: { keyword: 'Copom', weight: 1.5 }, response: followed.keywords },
    handler: async ({ body, auth, deps }) => pick(await prefs.addKeyword(deps, auth.sub, body.keyword, body.weight), 'keywords', 'keywordWeights'),
  }),

  route({
    method: 'delete',
    path: `${base}/keywords/:keyword`,
    summary: 'Remove a keyword',
    tags,
    auth: owner,
    params: KeywordParams,
    response: KeywordsView,
    example: { params: { keyword: 'dividendos' }, response: followed.keywords },
    handler: async ({ params, auth, deps }) => pick(await prefs.removeKeyword(deps, auth.sub, params.keyword), 'keywords', 'keywordWeights'),
  }),

  route({
    method: 'patch',
    path: `${base}/notifications`,
    summary: 'Change notification settings',
    description: 'Only the fields sent change. Messaging (whatsapp) is off until turned on here.',
    tags,
    auth: owner,
    body: NotificationSettingsPatch,
    response: NotificationSettingsView,
    example: { body: { whatsapp: true, minScore: 60 }, response: notificationSettingsExample },
    handler: async ({ body, auth, deps }) => await prefs.changeNotifications(deps, auth.sub, body),
  }),

  route({
    method: 'patch',
    path: `${base}/relevance`,
    summary: 'Change relevance settings (feed multipliers and recency decay)',
    description: 'Only the fields sent change. Multipliers 0–10; recencyDecayHours 1–720.',
    tags,
    auth: owner,
    body: RelevanceSettingsPatch,
    response: RelevanceSettingsView,
    example: { body: relevanceChangesExample, response: relevanceSettingsExample },
    handler: async ({ body, auth, deps }) => await prefs.changeRelevance(deps, auth.sub, body),
  }),
];
