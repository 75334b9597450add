/**
 * Re-enriching many articles (issue 25): the filter that picks them, its limits, the query it
 * becomes, and the shapes the workflow and its activities exchange. Pure: imported by the
 * re-enrichment workflow, its activities, the operation and the route.
 */

/** Articles one operation may re-enrich: more and the filter must be narrowed. */
export const REENRICH_MAX_ARTICLES = 10_000;
/** Article ids a filter may name. */
export const REENRICH_IDS_MAX = 1_000;
/**
 * Articles per activity call. Each is one model call (seconds), so a chunk is a few minutes of
 * work: short enough for a retry to cost little, long enough to keep the history small.
 */
export const REENRICH_CHUNK_SIZE = 25;

export const REENRICH_STATES = ['running', 'completed', 'cancelled', 'failed'] as const;
export type ReenrichState = (typeof REENRICH_STATES)[number];

/** Which articles to enrich again. Every field narrows the match; at least one is given. */
export interface ReenrichFilter {
  sourceId?: string | undefined;
  sector?: string | undefined;
  /** publishedAt from this time (inclusive). */
  from?: Date | undefined;
  /** publishedAt up to this time (inclusive). */
  to?: Date | undefined;
  /** Articles whose last enrichment used another prompt version, or that were never enriched. */
  promptVersionNot?: string | undefined;
  articleIds?: string[] | undefined;
}

export const isEmptyFilter = (f: ReenrichFilter): boolean => Object.values(f).every((v) => v === undefined);

/** The filter as a query on the articles collection (plain object: this file needs no driver). */
export function reenrichQuery(f: ReenrichFilter): Record<string, unknown> {
  const q: Record<string, unknown> = {};
  if (f.sourceId !== undefined) q.sourceId = f.sourceId;
  if (f.sector !== undefined) q.primarySector = f.sector;
  if (f.from !== undefined || f.to !== undefined) q.publishedAt = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lte: f.to } : {}) };
  // $ne also matches articles without an enrichment record (imported ones) or without a version.
  if (f.promptVersionNot !== undefined) q['enrichment.promptVersion'] = { $ne: f.promptVersionNot };
  if (f.articleIds !== undefined) q._id = { $in: f.articleIds };
  return q;
}

export interface ReenrichWorkflowInput {
  operationId: string;
  total: number;
  chunkSize: number;
}

/** One activity call: the articles at positions [start, end) of the operation's list. */
export interface ReenrichChunkInput {
  operationId: string;
  start: number;
  end: number;
}

/**
 * What a chunk call answers: it went through its articles, or it stopped because the day's token
 * budget is spent, at `next` (the position of the first article not done), to go on at `waitUntil`.
 */
export type ReenrichChunkResult = { state: 'finished' } | { state: 'waiting'; waitUntil: string; next: number };

export { chunkRanges } from '../chunks.rules';

/** The key of a call's position on the record (`c<start>`: an object key, never an array index). */
export const positionKey = (start: number): string => `c${start}`;
