/**
 * Applies an import: reads its JSON lines from MinIO in batches, validates them, links entities
 * and inserts the articles; a URL already stored (by any import, or earlier in this one) is a
 * duplicate, decided by the unique index on the normalised URL, so imports may run side by side.
 * Runs inside the news import workflow's activity. A run repeated from the last saved batch
 * derives the same ids (import, line), so it stores nothing twice and counts the same.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Storage } from '../../models/infra/storage';
import type { ArticleRepo } from '../../models/news/article.repo';
import type { ArticleDoc } from '../../models/news/article.rules';
import { IMPORT_ENRICH_MAX, ZERO_COUNTS, type ImportCounts, type ImportDoc, type ImportRepo } from '../../models/news/import.repo';
import { articleIdFor, buildArticle, ImportLine, type EntityDictionary } from '../../models/news/ingest.rules';
import { publishEvents, type PublishDeps } from '../events/publish';

/** Lines per batch: counts are saved (and the activity heartbeats) after each. */
export const IMPORT_BATCH_LINES = 1_000;

export interface IngestDeps {
  imports: Pick<ImportRepo, 'get' | 'start' | 'progress' | 'finish'>;
  articles: Pick<ArticleRepo, 'insertNew'>;
  /** The news event log: the fresh articles an import inserts are appended there (operations/events/publish.ts). */
  events: PublishDeps['events'];
  /** The entity catalogue as import links mentions to it, read once per run (loadDictionary). */
  dictionary: (signal?: AbortSignal) => Promise<EntityDictionary>;
  storage: Storage;
  /** Called after every batch (the activity heartbeats with it). */
  onBatch?: (counts: ImportCounts) => void;
  /**
   * The activity attempt's end (activities/attempt.ts): once aborted, the import stops before its
   * next batch (what is saved stays, and the next attempt resumes from it), and the entity read
   * in flight is stopped by the driver.
   */
  signal?: AbortSignal;
}

function zodMessage(err: unknown): string {
  if (err instanceof SyntaxError) return `not JSON: ${err.message}`;
  const issues = (err as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (issues) return issues.slice(0, 3).map((i) => `${i.path.join('.') || 'line'}: ${i.message}`).join('; ');
  return (err as Error).message;
}

async function* batches(stream: Readable, skip: number, size: number): AsyncGenerator<{ line: number; text: string }[]> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  let batch: { line: number; text: string }[] = [];
  for await (const text of rl) {
    n++;
    if (n <= skip) continue;
    batch.push({ line: n, text });
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/**
 * A breaking article published longer ago than this when it is imported is archive, not news: its
 * readers get no alert (an import of last year's news must not page anyone).
 */
export const ALERT_MAX_AGE_MS = 24 * 3_600_000;

/** Runs (or resumes) one import to the end; returns its final counts. */
export async function runImport(deps: IngestDeps, importId: string): Promise<ImportCounts> {
  const { imports } = deps;
  const record = await imports.get(importId);
  if (!record) throw new Error(`import ${importId} does not exist`);
  if (record.state === 'completed' || record.state === 'failed') return pick(record);
  await imports.start(importId, record.startedAt ?? new Date());
  const counts: ImportCounts = pick(record);
  // A local copy: a MinIO stream left waiting while a long batch is written gets cut ("aborted").
  const dir = await mkdtemp(path.join(tmpdir(), 'news-import-'));
  const file = path.join(dir, 'lines.jsonl');
  try {
    deps.signal?.throwIfAborted();
    await deps.storage.client.fGetObject(deps.storage.bucket, record.objectKey, file);
    await applyLines(deps, imports, record, createReadStream(file), counts);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await imports.finish(importId, 'completed', new Date());
  return counts;
}

/** Applies the lines after `counts.linesDone`, batch by batch, saving counts after each. */
async function applyLines(deps: IngestDeps, imports: IngestDeps['imports'], record: ImportDoc, stream: Readable, counts: ImportCounts): Promise<void> {
  const { articles } = deps;
  const dict = await deps.dictionary(deps.signal);
  const errors = [...record.errors];
  let enrichAsked = record.enrichIds?.length ?? 0;
  for await (const batch of batches(stream, counts.linesDone, IMPORT_BATCH_LINES)) {
    deps.signal?.throwIfAborted();
    const now = new Date();
    const docs: ArticleDoc[] = [];
    const wantsEnrichment = new Set<string>();
    for (const { line, text } of batch) {
      if (!text.trim()) continue; // blank lines are not articles
      let parsed: ImportLine;
      try {
        parsed = ImportLine.parse(JSON.parse(text));
      } catch (err) {
        counts.invalid++;
        errors.push({ line, error: zodMessage(err) });
        continue;
      }
      const built = buildArticle(articleIdFor(record._id, line), parsed, dict, now);
      if (parsed.enrich) wantsEnrichment.add(built.doc._id);
      counts.unlinkedMentions += built.unlinked;
      docs.push(built.doc);
    }
    const { inserted, duplicates, insertedIds } = await articles.insertNew(docs);
    counts.inserted += inserted;
    counts.duplicates += duplicates;
    counts.linesDone = batch[batch.length - 1]!.line;
    const fresh = new Set(insertedIds);
    const recent = docs.filter((d) => fresh.has(d._id) && now.getTime() - d.publishedAt.getTime() <= ALERT_MAX_AGE_MS);
    const alertable = recent.filter((d) => d.isBreaking);
    // News, not archive: the articles published within the day are events. Before the batch's
    // progress is saved: a repeated batch counts its own earlier inserts as inserted
    // (insertNew), and appending them again finds them in the log.
    await publishEvents(deps, recent);
    const room = IMPORT_ENRICH_MAX - enrichAsked;
    const toEnrich = docs.filter((d) => wantsEnrichment.has(d._id) && fresh.has(d._id)).slice(0, Math.max(0, room)).map((d) => d._id);
    enrichAsked += toEnrich.length;
    await imports.progress(record._id, counts, errors, alertable.map((d) => d._id), toEnrich);
    deps.onBatch?.({ ...counts });
  }
}

const pick = (r: ImportDoc): ImportCounts => ({
  linesDone: r.linesDone ?? ZERO_COUNTS.linesDone,
  inserted: r.inserted ?? 0,
  duplicates: r.duplicates ?? 0,
  invalid: r.invalid ?? 0,
  unlinkedMentions: r.unlinkedMentions ?? 0,
});
