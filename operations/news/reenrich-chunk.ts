/**
 * One chunk of a re-enrichment, the use case the re-enrichment workflow's activity runs: the
 * articles at positions [start, end) of the operation, enriched again one after the other, in
 * order, from where an earlier attempt stopped (its heartbeat, or the position on the record,
 * which is never behind it). Each outcome is counted on the record as soon as it is known.
 *
 * - An article that cannot be enriched (its answers never validated, or the provider refused it)
 *   is counted and listed, and the chunk goes on.
 * - A provider outage (or the database away) is thrown: the next attempt goes on from here.
 * - A spent budget ends the call with where to go on and when.
 * - Once the attempt is over (the operation cancelled, the attempt abandoned) it stops: the model
 *   call in flight is cut short, and no further article is begun.
 */
import type { ReenrichChunkInput, ReenrichChunkResult } from '../../models/news/reenrich.rules';
import type { ReenrichmentRepo } from '../../models/news/reenrichment.repo';
import type { EnrichOutcome } from '../../models/news/enrichment.rules';
import { finalEnrichmentError } from './enrich-article';

export interface ReenrichChunkDeps {
  reenrichments: Pick<ReenrichmentRepo, 'get' | 'resume' | 'positionOf' | 'record' | 'wait'>;
  /** Enriches one article (enrich-article.ts enrichArticle, stopped by the attempt's end). */
  enrich: (articleId: string) => Promise<EnrichOutcome>;
}

/** The activity attempt running the chunk (activities/attempt.ts). */
export interface ChunkAttempt {
  /** Aborted once the attempt is over; its reason is what to throw. */
  readonly signal: AbortSignal;
  /** The position reached: a retry resumes there. */
  heartbeat(position: number): void;
  /** Keeps the attempt alive while one article's model call runs (minutes at most); returns the stop. */
  keepBeating(): () => void;
}

/** Runs the chunk from `resumeAt` (the position an earlier attempt reported, if any). */
export async function reenrichChunk(deps: ReenrichChunkDeps, input: ReenrichChunkInput & { resumeAt?: number | undefined }, attempt: ChunkAttempt): Promise<ReenrichChunkResult> {
  const { reenrichments } = deps;
  const { signal } = attempt;
  const op = await reenrichments.get(input.operationId);
  // Gone, ended, or abandoned because its start was reported failed although it reached Temporal.
  if (!op || op.state !== 'running') return { state: 'finished' };
  await reenrichments.resume(op._id);
  let at = Math.max(input.resumeAt ?? input.start, await reenrichments.positionOf(op, input.start));
  for (; at < input.end; at += 1) {
    signal.throwIfAborted();
    attempt.heartbeat(at);
    const articleId = op.articleIds[at]!;
    // While the model answers: the heartbeat says the worker lives, and brings a cancellation.
    const stopBeating = attempt.keepBeating();
    let outcome: EnrichOutcome;
    try {
      outcome = await deps.enrich(articleId);
    } catch (err) {
      signal.throwIfAborted(); // cut short by the attempt's end, not a provider's answer
      const final = finalEnrichmentError(err);
      if (!final) throw err;
      await reenrichments.record(op._id, input.start, at, 'failed', { articleId, error: final.message });
      continue;
    } finally {
      stopBeating();
    }
    if (outcome.state === 'waiting') {
      await reenrichments.wait(op._id, new Date(outcome.resumeAt));
      return { state: 'waiting', waitUntil: outcome.resumeAt, next: at };
    }
    await reenrichments.record(op._id, input.start, at, outcome.state === 'gone' ? 'gone' : 'done');
  }
  attempt.heartbeat(at);
  return { state: 'finished' };
}
