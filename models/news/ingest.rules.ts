/**
 * Importing articles (JSON lines): the line schema, entity linking by name, alias and ticker,
 * default enrichment, source-URL normalisation and the stored article with its sort and search
 * keys. Pure.
 */
import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import { CONTENT_TYPES, LANGUAGES, MODULE_SCHEMAS, relevanceOf, SECTORS, TOPICS, URGENCY_LEVELS, urgencyRank, type ArticleDoc, type EntityType, type ModuleData } from './article.rules';
import { fold, searchCopy, terms } from './text.rules';

/** Namespace of the ids derived from (import, line): a retried batch writes the same articles. */
const ARTICLE_ID_NAMESPACE = '6f1d7c55-0a3e-4d8e-9b51-3f0c2a7e9d10';
export const articleIdFor = (importId: string, line: number) => uuidv5(`${importId}:${line}`, ARTICLE_ID_NAMESPACE);

/** One spelling per page: lower-case scheme and host, no fragment, no utm_* tracking, sorted query, no trailing slash. */
export function normaliseUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = '';
  for (const key of [...u.searchParams.keys()]) if (key.toLowerCase().startsWith('utm_')) u.searchParams.delete(key);
  u.searchParams.sort();
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.slice(0, -1);
  return u.toString();
}

/** Source URLs are indexed (unique): at most 2,048 characters, what browsers and crawlers accept. */
const httpUrl = z.string().max(2_048).pipe(z.url({ protocol: /^https?$/ }));

/** One line of an import. Enrichment modules are optional; `entities` names mentions to link. */
export const ImportLine = z.strictObject({
  title: z.string().max(500).trim().min(1),
  subtitle: z.string().max(1_000).trim().nullish(),
  summary: z.string().max(5_000).trim().nullish(),
  sourceName: z.string().max(200).trim().min(1),
  sourceUrl: httpUrl,
  publishedAt: z.iso.datetime({ offset: true }).max(64),
  primarySector: z.enum(SECTORS),
  primaryTopic: z.enum(TOPICS),
  contentType: z.enum(CONTENT_TYPES).default('NEWS'),
  urgencyLevel: z.enum(URGENCY_LEVELS).default('MEDIUM'),
  isBreaking: z.boolean().default(false),
  isExclusive: z.boolean().default(false),
  language: z.enum(LANGUAGES).default('pt'),
  /** Quality 0–100; taken from scoring.overall when that module is given. */
  baseScore: z.number().min(0).max(100).optional(),
  modules: z
    .strictObject({
      sentiment: MODULE_SCHEMAS.sentiment.optional(),
      market_impact: MODULE_SCHEMAS.market_impact.optional(),
      translations: MODULE_SCHEMAS.translations.optional(),
      scoring: MODULE_SCHEMAS.scoring.optional(),
      classification: MODULE_SCHEMAS.classification.optional(),
      meta: MODULE_SCHEMAS.meta.partial().optional(),
    })
    .default({}),
  /** Ask the model to enrich this article after it is stored (issue 25): for lines that come without modules. */
  enrich: z.boolean().default(false),
  /** Mentions to link besides those found in the text: by name or alias, or by ticker. */
  entities: z
    .array(z.strictObject({ name: z.string().min(1).max(200).optional(), ticker: z.string().max(12).optional(), mentionCount: z.number().int().min(1).optional() }))
    .max(100)
    .default([]),
});
export type ImportLine = z.output<typeof ImportLine>;

/** What linking needs of an entity. */
export interface KnownEntity {
  _id: string;
  entityType: EntityType;
  canonicalName: string;
  aliases: string[];
  ticker: string | null;
}

/** Entities by folded name or alias (at least 3 characters) and by ticker. */
export interface EntityDictionary {
  byId: Map<string, KnownEntity>;
  byName: Map<string, KnownEntity>;
  byTicker: Map<string, KnownEntity>;
  /** Longest name, in words (n-grams longer than this are not looked up). */
  maxWords: number;
}

export function buildDictionary(entities: readonly KnownEntity[]): EntityDictionary {
  const byName = new Map<string, KnownEntity>();
  const byTicker = new Map<string, KnownEntity>();
  let maxWords = 1;
  for (const e of entities) {
    for (const name of [e.canonicalName, ...e.aliases]) {
      const key = nameKey(name);
      if (key.length < 3 || byName.has(key)) continue; // first registered wins an ambiguous alias
      byName.set(key, e);
      maxWords = Math.max(maxWords, key.split(' ').length);
    }
    if (e.ticker) byTicker.set(e.ticker, e);
  }
  return { byId: new Map(entities.map((e) => [e._id, e])), byName, byTicker, maxWords };
}

export const nameKey = (name: string) => fold(name).split(/[^a-z0-9]+/).filter(Boolean).join(' ');
const TICKER_TOKEN = /^[A-Z][A-Z0-9]{3}\d{1,2}$/;

/**
 * Entities named in a text: capitalised word sequences matching a name or alias (longest first,
 * so "Banco do Brasil" is not also "Brasil"), and B3 tickers. Returns entity id → count.
 */
export function findMentions(text: string, dict: EntityDictionary): Map<string, number> {
  const tokens = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const found = new Map<string, number>();
  const bump = (id: string) => found.set(id, (found.get(id) ?? 0) + 1);
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i]!;
    if (TICKER_TOKEN.test(t) && dict.byTicker.has(t)) {
      bump(dict.byTicker.get(t)!._id);
      i++;
      continue;
    }
    let matched = 0;
    if (/^[\p{Lu}\p{N}]/u.test(t)) {
      for (let n = Math.min(dict.maxWords, tokens.length - i); n >= 1 && !matched; n--) {
        const e = dict.byName.get(nameKey(tokens.slice(i, i + n).join(' ')));
        if (e) {
          bump(e._id);
          matched = n;
        }
      }
    }
    i += matched || 1;
  }
  return found;
}

export interface BuiltArticle {
  doc: ArticleDoc;
  /** Explicit mentions that named no known entity. */
  unlinked: number;
}

/** The stored article for an import line: linked entities and the modules it can compute. */
export function buildArticle(id: string, line: ImportLine, dict: EntityDictionary, now: Date): BuiltArticle {
  const inTitle = findMentions(line.title, dict);
  const all = findMentions([line.title, line.subtitle ?? '', line.summary ?? ''].join(' \n '), dict);
  let unlinked = 0;
  for (const m of line.entities) {
    const e = (m.ticker && dict.byTicker.get(m.ticker.toUpperCase())) || (m.name && dict.byName.get(nameKey(m.name)));
    if (!e) unlinked++;
    else all.set(e._id, Math.max(all.get(e._id) ?? 0, m.mentionCount ?? 1));
  }
  const sentiment = line.modules.sentiment?.score ?? 0;
  const mentions: ModuleData['entities'] = [...all]
    .map(([entityId, count]) => {
      const e = dict.byId.get(entityId)!;
      const isInTitle = inTitle.has(entityId);
      return {
        entityId,
        entityType: e.entityType,
        canonicalName: e.canonicalName,
        ...(e.ticker ? { ticker: e.ticker } : {}),
        mentionCount: count,
        prominenceScore: Math.min(1, Math.round(((isInTitle ? 0.5 : 0.2) + 0.1 * Math.min(count, 5)) * 100) / 100),
        isInTitle,
        sentiment,
      };
    })
    .sort((a, b) => b.prominenceScore - a.prominenceScore || a.canonicalName.localeCompare(b.canonicalName));
  const text = [line.title, line.subtitle, line.summary].filter(Boolean).join(' ');
  const wordCount = line.modules.meta?.wordCount ?? text.split(/\s+/).filter(Boolean).length;
  const modules: ArticleDoc['modules'] = {
    ...(line.modules.sentiment ? { sentiment: line.modules.sentiment } : {}),
    ...(line.modules.market_impact ? { market_impact: line.modules.market_impact } : {}),
    ...(line.modules.translations ? { translations: line.modules.translations } : {}),
    ...(line.modules.scoring ? { scoring: line.modules.scoring } : {}),
    entities: mentions,
    classification: line.modules.classification ?? { secondarySectors: [], secondaryTopics: [], keywords: terms(line.title).slice(0, 5) },
    meta: {
      sourceTier: line.modules.meta?.sourceTier ?? 2,
      paywall: line.modules.meta?.paywall ?? false,
      wordCount,
      readingTimeMinutes: line.modules.meta?.readingTimeMinutes ?? Math.max(1, Math.ceil(wordCount / 200)),
    },
  };
  const base = {
    _id: id,
    sourceName: line.sourceName,
    sourceUrl: line.sourceUrl,
    title: line.title,
    subtitle: line.subtitle ?? null,
    summary: line.summary ?? null,
    publishedAt: new Date(line.publishedAt),
    primarySector: line.primarySector,
    primaryTopic: line.primaryTopic,
    contentType: line.contentType,
    urgencyLevel: line.urgencyLevel,
    isBreaking: line.isBreaking,
    isExclusive: line.isExclusive,
    language: line.language,
    baseScore: line.modules.scoring?.overall ?? line.baseScore ?? 50,
    modules,
    entityIds: mentions.map((m) => m.entityId),
    tickers: [...new Set(mentions.flatMap((m) => (m.ticker ? [m.ticker] : [])))],
    createdAt: now,
  };
  return { doc: { ...base, ...derivedKeys(base) }, unlinked };
}

/** The fields an article stores for its unique URL, its sorts and search, derived from the rest. */
export function derivedKeys(
  a: Pick<ArticleDoc, 'sourceUrl' | 'urgencyLevel' | 'publishedAt' | 'baseScore' | 'title' | 'subtitle' | 'summary'>,
): Pick<ArticleDoc, 'sourceKey' | 'urgencyRank' | 'relevance' | 'search' | 'terms'> {
  const search = { title: searchCopy(a.title), subtitle: searchCopy(a.subtitle), summary: searchCopy(a.summary) };
  return {
    sourceKey: normaliseUrl(a.sourceUrl),
    urgencyRank: urgencyRank(a.urgencyLevel),
    relevance: relevanceOf(a.publishedAt, a.baseScore),
    search,
    terms: [...new Set([search.title, search.subtitle, search.summary].flatMap((s) => (s ? s.split(' ') : [])))],
  };
}
