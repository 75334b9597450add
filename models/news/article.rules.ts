/**
 * Articles and entities of the News Intelligence API (spec §2): codes, the field set of every
 * include module, and how a stored article is shown for a set of modules. Pure data and functions.
 */
import { z } from 'zod';
import { INCLUDE_MODULES, PLAN_LIMITS, minimumPlanFor, planName, plansWith, type IncludeModule, type Plan } from '../shared/plan.rules';

export const SECTORS = ['FIN', 'TEC', 'SAU', 'ENE', 'MAT', 'IND', 'CON', 'IMO', 'AGR', 'TRA', 'COM', 'SER', 'GOV', 'ESP', 'CRY', 'FIP', 'CIE', 'DEF', 'CUL', 'EDU', 'AMB', 'SOC', 'TUR'] as const;
export type Sector = (typeof SECTORS)[number];

/** The spec shows M&A, IPO, REG and DIV; the rest are what a business desk files news under. */
export const TOPICS = ['M&A', 'IPO', 'REG', 'DIV', 'EARN', 'MACRO', 'RATES', 'DEBT', 'BUYBACK', 'GUIDANCE', 'LEGAL', 'ESG', 'LABOR', 'CONTRACT', 'PRODUCT', 'MGMT'] as const;
export type Topic = (typeof TOPICS)[number];

export const ENTITY_TYPES = ['COMPANY', 'PERSON', 'INSTITUTION', 'TICKER', 'LOCATION', 'EVENT', 'PRODUCT', 'LAW', 'MONETARY', 'METRIC'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Most urgent first; the rank is what sorting uses (CRITICAL > HIGH > MEDIUM > LOW). */
export const URGENCY_LEVELS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
export type UrgencyLevel = (typeof URGENCY_LEVELS)[number];
export const urgencyRank = (u: UrgencyLevel): number => URGENCY_LEVELS.length - URGENCY_LEVELS.indexOf(u);

/** The orders lists can be sorted in (spec §4.1 `sort`). */
export const ORDERINGS = ['publishedAt', 'baseScore', 'urgencyLevel', 'relevance'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/**
 * Relevance: hours of publication time one point of baseScore (0–100) is worth. At 0.24 a
 * 100-point article keeps a 24-hour head start over a 0-point one, so a recent 80 beats a 95
 * from two days ago, and the order of two articles never changes as time passes (so it is
 * stored, and indexed, with the article).
 */
export const RELEVANCE_HOURS_PER_POINT = 0.24;

/** The stored relevance of an article: publication time in hours plus the score's head start. */
export const relevanceOf = (publishedAt: Date, baseScore: number): number => publishedAt.getTime() / 3_600_000 + baseScore * RELEVANCE_HOURS_PER_POINT;

export const CONTENT_TYPES = ['BREAKING', 'NEWS', 'ANALYSIS', 'OPINION', 'INTERVIEW', 'REPORT', 'PRESS_RELEASE'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const LANGUAGES = ['pt', 'en', 'es'] as const;

export const SENTIMENT_LABELS = ['MUITO_NEGATIVO', 'NEGATIVO', 'NEUTRO', 'POSITIVO', 'MUITO_POSITIVO'] as const;
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

/** The label of a sentiment score in [-1, 1]: fifths of the range, NEUTRO around zero. */
export function sentimentLabel(score: number): SentimentLabel {
  if (score <= -0.6) return 'MUITO_NEGATIVO';
  if (score <= -0.2) return 'NEGATIVO';
  if (score < 0.2) return 'NEUTRO';
  if (score < 0.6) return 'POSITIVO';
  return 'MUITO_POSITIVO';
}

/**
 * What each include module adds to an article as presentArticle shows it (its fields) and what
 * they hold: the API reference (the include parameter, each module's component) is written from it.
 */
export const MODULE_FIELDS: Record<IncludeModule, { fields: readonly string[]; holds: string }> = {
  sentiment: {
    fields: ['sentimentScore', 'sentimentLabel', 'sentimentConfidence'],
    holds: 'how the news reads for investors: a score from -1 (very negative) to 1 (very positive), its label (MUITO_NEGATIVO … MUITO_POSITIVO) and the confidence (0–1)',
  },
  market_impact: { fields: ['marketImpact'], holds: 'the expected market impact: level, horizon, scope, confidence (0–1) and the B3 tickers affected' },
  entities: {
    fields: ['entities'],
    holds:
      'the catalogue entities the article mentions (companies, people, institutions, tickers…), most prominent first, each with its id (GET /api/entities/{id}), type, name, ticker, mention count, prominence (0–1), whether it is in the title, and the sentiment toward it (-1 to 1)',
  },
  translations: { fields: ['translations'], holds: 'the title, subtitle and summary in Portuguese (pt) and English (en)' },
  scoring: { fields: ['scoring'], holds: 'quality scores from 0 to 100: relevance, credibility, depth, timeliness, originality, and overall (the baseScore lists sort by)' },
  classification: { fields: ['classification'], holds: 'the secondary sectors and topics (besides primarySector and primaryTopic) and keywords' },
  meta: { fields: ['meta'], holds: "the source's tier (1: major outlets and official releases … 3: blogs and aggregators), whether it is paywalled, its word count and reading time in minutes" },
};

const listed = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : (xs[0] ?? ''));

/** The plans that include a module, as customers read them ("Pro and Business"). */
export const modulePlans = (m: IncludeModule): string => listed(plansWith(m).map(planName));

/**
 * A module as the API reference states it: what it adds, the plans that include it, and when an
 * article has its fields (plan gating, spec §2.6).
 */
export function moduleDescription(m: IncludeModule): string {
  const { fields, holds } = MODULE_FIELDS[m];
  const none = m === 'entities' ? 'an empty list' : 'null';
  return (
    `The include module ${m} (plans ${modulePlans(m)}): ${holds}. ` +
    `An article has ${listed(fields)} only when the request asks for the module (include=${m}) and the API key's plan includes it (asking on another plan is a 403); ` +
    `${none} when the article has no data for it.`
  );
}

const unit = z.number().min(0).max(1);
const score100 = z.number().min(0).max(100);
/** A translation keeps the bounds of the article's own fields (ingest.rules.ts ImportLine). */
const localized = z
  .object({ title: z.string().max(500), subtitle: z.string().max(1_000).nullable(), summary: z.string().max(5_000).nullable() })
  .meta({ id: 'ArticleTranslation', description: "An article's title, subtitle and summary in one language" });

/** The label of a sentiment score (sentimentLabel). */
export const SentimentLabel = z.enum(SENTIMENT_LABELS).meta({ id: 'SentimentLabel', description: 'Fifths of the sentiment score from -1 to 1; NEUTRO around 0' });

/**
 * A mentioned entity. Bounds are those of the catalogue (api/news/contracts.ts EntityView): ids are
 * UUIDs, names at most 200 characters, tickers at most 16.
 */
const EntityMention = z
  .object({
    entityId: z.string().max(36),
    entityType: z.enum(ENTITY_TYPES),
    canonicalName: z.string().max(200),
    ticker: z.string().max(16).optional(),
    mentionCount: z.number().int().min(1),
    prominenceScore: unit,
    isInTitle: z.boolean(),
    sentiment: z.number().min(-1).max(1),
  })
  .meta({ id: 'ArticleEntity', description: 'An entity of the catalogue the article mentions (the entities module)' });

/**
 * The field set of every include module (spec §2.6), as stored and as returned (an import line's
 * modules too), each a component of the OpenAPI documents (`<Name>Module`) whose description
 * states the plans that include it.
 */
export const MODULE_SCHEMAS = {
  sentiment: z
    .object({ score: z.number().min(-1).max(1), label: SentimentLabel, confidence: unit })
    .meta({ id: 'SentimentModule', description: `${moduleDescription('sentiment')} Stored (and imported) as score, label and confidence.` }),
  market_impact: z
    .object({
      level: z.enum(['NONE', 'LOW', 'MEDIUM', 'HIGH']),
      horizon: z.enum(['INTRADAY', 'SHORT_TERM', 'MEDIUM_TERM', 'LONG_TERM']),
      scope: z.enum(['COMPANY', 'SECTOR', 'MARKET', 'ECONOMY']),
      confidence: unit,
      affectedTickers: z.array(z.string().max(12)).max(100),
    })
    .meta({ id: 'MarketImpactModule', description: moduleDescription('market_impact') }),
  entities: z.array(EntityMention).meta({ id: 'EntitiesModule', description: moduleDescription('entities') }),
  translations: z.object({ pt: localized, en: localized }).meta({ id: 'TranslationsModule', description: moduleDescription('translations') }),
  scoring: z
    .object({ relevance: score100, credibility: score100, depth: score100, timeliness: score100, originality: score100, overall: score100 })
    .meta({ id: 'ScoringModule', description: moduleDescription('scoring') }),
  classification: z
    .object({
      secondarySectors: z.array(z.enum(SECTORS)).max(SECTORS.length),
      secondaryTopics: z.array(z.enum(TOPICS)).max(TOPICS.length),
      keywords: z.array(z.string().max(100)).max(50),
    })
    .meta({ id: 'ClassificationModule', description: moduleDescription('classification') }),
  meta: z
    .object({ sourceTier: z.number().int().min(1).max(3), paywall: z.boolean(), wordCount: z.number().int().min(0), readingTimeMinutes: z.number().int().min(0) })
    .meta({ id: 'MetaModule', description: moduleDescription('meta') }),
} satisfies Record<IncludeModule, z.ZodType>;

export type ModuleData = { [M in IncludeModule]: z.infer<(typeof MODULE_SCHEMAS)[M]> };

/** An article as stored: base fields, the stored modules, and the keys lists are sorted by. */
export interface ArticleDoc {
  _id: string;
  sourceName: string;
  sourceUrl: string;
  title: string;
  subtitle: string | null;
  summary: string | null;
  publishedAt: Date;
  primarySector: Sector;
  primaryTopic: Topic;
  contentType: ContentType;
  urgencyLevel: UrgencyLevel;
  isBreaking: boolean;
  isExclusive: boolean;
  language: string;
  /** scoring.overall, copied so lists can sort by it. */
  baseScore: number;
  /** Module data as imported or enriched; a module an article has no data for is shown as null. */
  modules: Partial<ModuleData>;
  /** Ids of the entities mentioned (for the entity filter and /entities/{id}/articles). */
  entityIds: string[];
  tickers: string[];
  createdAt: Date;
  /** The normalised source URL (article.repo normaliseUrl): unique, so an import never stores a page twice. */
  sourceKey: string;
  /** urgencyRank(urgencyLevel), for the urgencyLevel sort. */
  urgencyRank: number;
  /** relevanceOf(publishedAt, baseScore), for the relevance sort. */
  relevance: number;
  /** Folded, stemmed copies of title, subtitle and summary (text.rules searchCopy): what search ranks by (matchQuality). */
  search: { title: string; subtitle: string; summary: string };
  /** Every search term of the three fields once: search requires each query term here. */
  terms: string[];
  /** The source (news_sources) whose feed brought it; absent for imported articles. */
  sourceId?: string;
  /** Other sources that published the same story (syndicated copies, the same page). */
  alsoReportedBy?: ArticleReport[];
  /** The last enrichment by the model: its state, cost and prompt version. */
  enrichment?: EnrichmentRecord;
  /**
   * An editor's correction of what enrichment produced (PUT /api/admin/articles/{id}/correction):
   * the fields above show the editor's labels; enrichment again keeps them (correction.rules.ts).
   */
  correction?: ArticleCorrection;
}

/** A catalogue entity as an editor labelled it on an article: the catalogue's names at the time. */
export interface CorrectedEntity {
  entityId: string;
  entityType: EntityType;
  canonicalName: string;
  ticker: string | null;
  aliases: string[];
  /** The sentiment toward it (-1…1); null: the model's, or the article's. */
  sentiment: number | null;
}

/** An editor's labels for the fields enrichment produces that the labelled examples evaluate. */
export interface CorrectionLabels {
  primarySector: Sector;
  primaryTopic: Topic;
  /** null: the model's stand. */
  secondarySectors: Sector[] | null;
  secondaryTopics: Topic[] | null;
  sentimentLabel: SentimentLabel;
  /** Within the label's range (sentimentLabel(sentimentScore) === sentimentLabel). */
  sentimentScore: number;
  entities: CorrectedEntity[];
}

/** What the model (or an import) said for the fields an editor labels. */
export interface LabelledFields {
  primarySector: Sector;
  primaryTopic: Topic;
  secondarySectors: Sector[];
  secondaryTopics: Topic[];
  sentiment: ModuleData['sentiment'] | null;
  entities: ModuleData['entities'];
}

export interface ArticleCorrection {
  labels: CorrectionLabels;
  /** The model's output for the labelled fields, kept current when the article is enriched again. */
  model: LabelledFields;
  by: string;
  at: Date;
  note: string | null;
}

export interface ArticleReport {
  sourceId: string;
  sourceName: string;
  url: string;
  at: Date;
}

export const ENRICHMENT_STATES = ['pending', 'waiting-budget', 'enriched', 'failed'] as const;
export type EnrichmentState = (typeof ENRICHMENT_STATES)[number];

export interface EnrichmentRecord {
  state: EnrichmentState;
  promptVersion: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  attempts: number;
  at: Date;
  error: string | null;
}

/** Reasons an include list is refused: unknown names (400) or a module above the plan (403). */
export type IncludeProblem = { kind: 'unknown'; modules: string[] } | { kind: 'plan'; module: IncludeModule; plan: Plan; requiredPlan: Plan };

/** Parses `include=a,b` for a plan: the modules, or what is wrong with them. */
export function parseInclude(raw: string | undefined, plan: Plan): { modules: IncludeModule[] } | { problem: IncludeProblem } {
  const names = [...new Set((raw ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = names.filter((n) => !(INCLUDE_MODULES as readonly string[]).includes(n));
  if (unknown.length) return { problem: { kind: 'unknown', modules: unknown } };
  const modules = names as IncludeModule[];
  const above = modules.find((m) => !PLAN_LIMITS[plan].modules.includes(m));
  if (above) return { problem: { kind: 'plan', module: above, plan, requiredPlan: minimumPlanFor(above) } };
  return { modules };
}

/**
 * The fields include modules add to an article (MODULE_FIELDS), each present only when its module
 * was asked for; null (entities: empty) when the article has no data for the module.
 */
export interface PresentedModules {
  sentimentScore?: number | null;
  sentimentLabel?: SentimentLabel | null;
  sentimentConfidence?: number | null;
  marketImpact?: ModuleData['market_impact'] | null;
  entities?: ModuleData['entities'];
  translations?: ModuleData['translations'] | null;
  scoring?: ModuleData['scoring'] | null;
  classification?: ModuleData['classification'] | null;
  meta?: ModuleData['meta'] | null;
}

/** An article as returned: the base fields of spec §2.1 and the fields of the requested modules. */
export interface PresentedArticle extends PresentedModules {
  id: string;
  sourceName: string;
  title: string;
  subtitle: string | null;
  summary: string | null;
  publishedAt: string;
  primarySector: Sector;
  primaryTopic: Topic;
  contentType: ContentType;
  urgencyLevel: UrgencyLevel;
  isBreaking: boolean;
  language: string;
  alsoReportedBy: { sourceName: string; url: string }[];
}

/** The article of spec §2.1: base fields always, each requested module's fields only when asked. */
/** What presentArticle reads of an article (an event's snapshot holds just this). */
export type PresentableArticle = Pick<
  ArticleDoc,
  '_id' | 'sourceName' | 'title' | 'subtitle' | 'summary' | 'publishedAt' | 'primarySector' | 'primaryTopic' | 'contentType' | 'urgencyLevel' | 'isBreaking' | 'language' | 'alsoReportedBy' | 'modules'
>;

export function presentArticle(a: PresentableArticle, modules: readonly IncludeModule[]): PresentedArticle {
  const out: PresentedArticle = {
    id: a._id,
    sourceName: a.sourceName,
    title: a.title,
    subtitle: a.subtitle,
    summary: a.summary,
    publishedAt: a.publishedAt.toISOString(),
    primarySector: a.primarySector,
    primaryTopic: a.primaryTopic,
    contentType: a.contentType,
    urgencyLevel: a.urgencyLevel,
    isBreaking: a.isBreaking,
    language: a.language,
    alsoReportedBy: (a.alsoReportedBy ?? []).map((r) => ({ sourceName: r.sourceName, url: r.url })),
  };
  const stored = a.modules ?? {};
  for (const m of modules) {
    switch (m) {
      case 'sentiment': {
        const s = stored.sentiment;
        Object.assign(out, { sentimentScore: s?.score ?? null, sentimentLabel: s?.label ?? null, sentimentConfidence: s?.confidence ?? null });
        break;
      }
      case 'entities':
        out.entities = stored.entities ?? []; // spec §2.2 plus entityId (for /api/entities/{id}) and sentiment
        break;
      case 'market_impact':
        out.marketImpact = stored.market_impact ?? null;
        break;
      case 'translations':
        out.translations = stored.translations ?? null;
        break;
      case 'scoring':
        out.scoring = stored.scoring ?? null;
        break;
      case 'classification':
        out.classification = stored.classification ?? null;
        break;
      case 'meta':
        out.meta = stored.meta ?? null;
        break;
    }
  }
  return out;
}
