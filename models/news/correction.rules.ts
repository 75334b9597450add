/**
 * An editor's correction of what enrichment produced (issue 38): the classification (primary
 * sector and topic, and the secondary ones when given), the sentiment and the entities. Pure: the
 * request's schema, the labels resolved from it, the article's fields they become, and the
 * labelled example an evaluation reads (ops/eval-enrichment.ts --corrections).
 *
 * The correction wins over the model: enriching the article again computes the model's new output,
 * keeps it on the correction (`correction.model`, so an editor sees what the model says now), and
 * writes the editor's labels over it (operations/news/enrich-article.ts).
 */
import { z } from 'zod';
import {
  SECTORS,
  SentimentLabel,
  sentimentLabel,
  TOPICS,
  type ArticleDoc,
  type CorrectedEntity,
  type CorrectionLabels,
  type LabelledFields,
  type ModuleData,
} from './article.rules';
import { nameKey } from './ingest.rules';

/** Entities an editor may label on one article (the model names at most 30). */
export const CORRECTION_ENTITIES_MAX = 50;
export const CORRECTION_NOTE_MAX = 500;

const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** The request: the labels the evaluation reads are required (PUT replaces the correction whole). */
export const CorrectionInput = z
  .strictObject({
    primarySector: z.enum(SECTORS),
    primaryTopic: z.enum(TOPICS),
    secondarySectors: z
      .array(z.enum(SECTORS))
      .max(SECTORS.length)
      .transform(unique)
      .optional()
      .describe("Other sectors the article is about (each once; the primary one is left out). Absent: the model's stand"),
    secondaryTopics: z
      .array(z.enum(TOPICS))
      .max(TOPICS.length)
      .transform(unique)
      .optional()
      .describe("Other topics (each once; the primary one is left out). Absent: the model's stand"),
    sentimentLabel: SentimentLabel,
    sentimentScore: z
      .number()
      .min(-1)
      .max(1)
      .optional()
      .describe("Within the label's fifth of -1…1. Absent: the model's score when it has this label, else the middle of the label's range"),
    entities: z
      .array(
        z.strictObject({
          entityId: z.uuid().describe('A catalogue entity (GET /api/admin/entities)'),
          sentiment: z.number().min(-1).max(1).optional().describe("The sentiment toward it. Absent: the model's, else the article's"),
        }),
      )
      .max(CORRECTION_ENTITIES_MAX)
      .describe('Every catalogue entity the article is about, each once (an empty list: none). A name the catalogue lacks is added to it first (the curation queue, or PATCH of an entity\'s aliases)'),
    note: z.string().trim().min(1).max(CORRECTION_NOTE_MAX).optional().describe('Why, for the other editors'),
  })
  .superRefine((c, ctx) => {
    if (c.sentimentScore !== undefined && sentimentLabel(c.sentimentScore) !== c.sentimentLabel) {
      ctx.addIssue({ code: 'custom', path: ['sentimentScore'], message: `a score of ${c.sentimentScore} is ${sentimentLabel(c.sentimentScore)}, not ${c.sentimentLabel}` });
    }
    const seen = new Set<string>();
    c.entities.forEach((e, i) => {
      if (seen.has(e.entityId)) ctx.addIssue({ code: 'custom', path: ['entities', i, 'entityId'], message: 'the entity is listed twice' });
      seen.add(e.entityId);
    });
  });
export type CorrectionInput = z.output<typeof CorrectionInput>;

/** The score an editor's label stands for when none is given: the middle of its fifth of -1…1. */
export const LABEL_SCORE: Record<SentimentLabel, number> = { MUITO_NEGATIVO: -0.8, NEGATIVO: -0.4, NEUTRO: 0, POSITIVO: 0.4, MUITO_POSITIVO: 0.8 };

/** What the article says now for the fields an editor labels (the model's, an import's, or an earlier correction's). */
export function labelledFieldsOf(a: Pick<ArticleDoc, 'primarySector' | 'primaryTopic' | 'modules'>): LabelledFields {
  const c = a.modules.classification;
  return {
    primarySector: a.primarySector,
    primaryTopic: a.primaryTopic,
    secondarySectors: c?.secondarySectors ?? [],
    secondaryTopics: c?.secondaryTopics ?? [],
    sentiment: a.modules.sentiment ?? null,
    entities: a.modules.entities ?? [],
  };
}

/** What a catalogue entity is to a correction. */
export interface CatalogueEntity {
  _id: string;
  entityType: CorrectedEntity['entityType'];
  canonicalName: string;
  ticker: string | null;
  aliases: string[];
}

/**
 * The labels of a request: the entities as the catalogue names them, and the sentiment score
 * resolved against the model's (`model`: what the model said, before any correction).
 */
export function resolveLabels(input: CorrectionInput, catalogue: ReadonlyMap<string, CatalogueEntity>, model: LabelledFields): CorrectionLabels {
  const modelScore = model.sentiment?.score;
  const sentimentScore = input.sentimentScore ?? (modelScore !== undefined && sentimentLabel(modelScore) === input.sentimentLabel ? modelScore : LABEL_SCORE[input.sentimentLabel]);
  return {
    primarySector: input.primarySector,
    primaryTopic: input.primaryTopic,
    secondarySectors: input.secondarySectors ?? null,
    secondaryTopics: input.secondaryTopics ?? null,
    sentimentLabel: input.sentimentLabel,
    sentimentScore,
    entities: input.entities.map((e) => {
      const known = catalogue.get(e.entityId);
      if (!known) throw new Error(`entity ${e.entityId} is not in the catalogue given`);
      return { entityId: known._id, entityType: known.entityType, canonicalName: known.canonicalName, ticker: known.ticker, aliases: known.aliases, sentiment: e.sentiment ?? null };
    }),
  };
}

/** Whether a title names an entity: a name or alias of 3 characters or more as whole words, or its ticker. */
function namedIn(title: string, e: CorrectedEntity): boolean {
  const folded = ` ${nameKey(title)} `;
  if ([e.canonicalName, ...e.aliases].map(nameKey).some((k) => k.length >= 3 && folded.includes(` ${k} `))) return true;
  return e.ticker !== null && title.toUpperCase().split(/[^A-Z0-9]+/).includes(e.ticker);
}

/**
 * The article's fields with an editor's labels over them: primary and secondary codes, the
 * sentiment (confidence 1: an editor's), the entities module and what lists find entities by. An
 * entity the model had linked keeps its counts; one it had not is counted once, in the title when
 * the title names it, on the scale imports and enrichment use.
 */
export function correctedFields(a: Pick<ArticleDoc, 'title' | 'modules'>, labels: CorrectionLabels): Pick<ArticleDoc, 'primarySector' | 'primaryTopic' | 'modules' | 'entityIds' | 'tickers'> {
  const modelEntities = new Map((a.modules.entities ?? []).map((m) => [m.entityId, m]));
  const classification = a.modules.classification;
  const entities: ModuleData['entities'] = labels.entities
    .map((e) => {
      const linked = modelEntities.get(e.entityId);
      const isInTitle = linked?.isInTitle ?? namedIn(a.title, e);
      const mentionCount = linked?.mentionCount ?? 1;
      return {
        entityId: e.entityId,
        entityType: e.entityType,
        canonicalName: e.canonicalName,
        ...(e.ticker ? { ticker: e.ticker } : {}),
        mentionCount,
        prominenceScore: linked?.prominenceScore ?? Math.min(1, Math.round(((isInTitle ? 0.5 : 0.2) + 0.1 * Math.min(mentionCount, 5)) * 100) / 100),
        isInTitle,
        sentiment: e.sentiment ?? linked?.sentiment ?? labels.sentimentScore,
      };
    })
    .sort((x, y) => y.prominenceScore - x.prominenceScore || x.canonicalName.localeCompare(y.canonicalName));
  return {
    primarySector: labels.primarySector,
    primaryTopic: labels.primaryTopic,
    modules: {
      ...a.modules,
      sentiment: { score: labels.sentimentScore, label: labels.sentimentLabel, confidence: 1 },
      classification: {
        secondarySectors: (labels.secondarySectors ?? classification?.secondarySectors ?? []).filter((s) => s !== labels.primarySector),
        secondaryTopics: (labels.secondaryTopics ?? classification?.secondaryTopics ?? []).filter((t) => t !== labels.primaryTopic),
        keywords: classification?.keywords ?? [],
      },
      entities,
    },
    entityIds: entities.map((e) => e.entityId),
    tickers: unique(entities.flatMap((e) => (e.ticker ? [e.ticker] : []))),
  };
}

/**
 * Enrichment's fields for an article an editor corrected: the model's new output kept on the
 * correction, the editor's labels written over it. Without a correction, the fields as they are.
 */
export function keepCorrection<F extends Pick<ArticleDoc, 'primarySector' | 'primaryTopic' | 'modules' | 'entityIds' | 'tickers'>>(
  fields: F,
  article: Pick<ArticleDoc, 'title' | 'correction'>,
): F & Pick<ArticleDoc, 'correction'> {
  const correction = article.correction;
  if (!correction) return fields;
  return { ...fields, ...correctedFields({ title: article.title, modules: fields.modules }, correction.labels), correction: { ...correction, model: labelledFieldsOf(fields) } };
}

/** The article as the model read it, kept with a labelled example. */
export interface ExampleInput {
  title: string;
  subtitle: string | null;
  summary: string | null;
  /** What enrichment sends: the page's main text (or the feed's summary) with the title, else title, subtitle and summary. */
  text: string;
  language: string;
  sourceName: string;
}

/** A labelled example as the evaluation's corpus holds one (ops/eval-enrichment.ts FixtureLine). */
export interface ExampleFixture {
  id: string;
  title: string;
  subtitle: string | null;
  summary: string | null;
  text: string;
  labels: { primarySector: CorrectionLabels['primarySector']; primaryTopic: CorrectionLabels['primaryTopic']; sentimentLabel: SentimentLabel; entities: { name: string; ticker: string | null; aliases: string[] }[] };
}

/** An editor's correction as a line of the evaluation's corpus. */
export function exampleFixture(e: { _id: string; input: ExampleInput; labels: CorrectionLabels }): ExampleFixture {
  return {
    id: `correction:${e._id}`,
    title: e.input.title,
    subtitle: e.input.subtitle,
    summary: e.input.summary,
    text: e.input.text,
    labels: {
      primarySector: e.labels.primarySector,
      primaryTopic: e.labels.primaryTopic,
      sentimentLabel: e.labels.sentimentLabel,
      entities: e.labels.entities.map((x) => ({ name: x.canonicalName, ticker: x.ticker, aliases: x.aliases })),
    },
  };
}
