/**
 * Evaluation of the news enrichment (operations/news/enrichment.ts) against the hand-labelled articles
 * in tests/fixtures/enrichment/labelled.jsonl: per-field accuracy (primary sector, primary topic,
 * sentiment label), entity precision and recall, how often the first answer was valid, attempts,
 * tokens, cost and latency, for the provider the platform is configured with.
 *
 *   npm run eval:enrichment                     the OpenAI double, in a stack ops/test.ts provisions
 *   OPENAI_API_KEY=sk-… OPENAI_BASE_URL=https://api.openai.com/v1 node --import tsx ops/eval-enrichment.ts
 *
 * Flags: --limit N (first N articles), --concurrency N (default 4), --json (one JSON document on
 * stdout), --verbose (list the misses), --max-input-tokens N (default 6000), --corrections (also the
 * editors' corrections: the labelled examples in the configured database's
 * `news_enrichment_examples`, newest first, after the file's articles), --only-corrections (those
 * alone). The stack `npm run eval:enrichment` provisions has a database of its own, with no
 * corrections: to evaluate a deployment's, run the script against its database
 * (MONGODB_URI=… node --import tsx ops/eval-enrichment.ts --corrections). The model is the
 * configured mini model (AI_MODEL_MINI) unless ENRICH_MODEL is set. Scores are reported, not
 * asserted: the exit code is 0 when every article was answered (even if refused as invalid) and 1
 * when the run could not complete (provider unreachable, credentials refused); 78 for bad config.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, parseConfig, type Config } from '../models/config';
import { createLlmClient, LlmError, type LlmClient, type Usage } from '../models/infra/llm';
import { connectMongo } from '../models/infra/mongo';
import { exampleFixture } from '../models/news/correction.rules';
import { createEnrichmentExampleRepo, type EnrichmentExampleDoc } from '../models/news/enrichment-example.repo';
import { SECTORS, SENTIMENT_LABELS, sentimentLabel, TOPICS, type SentimentLabel } from '../models/news/article.rules';
import { EnrichmentInvalid, requestEnrichment } from '../operations/news/enrichment';
import { costUsd, matchEntities, PROMPT_VERSION, type EntityMatch, type ModelEnrichment } from '../models/news/enrichment.rules';
import { percentile } from './bench/load';

export const FIXTURES = path.resolve(__dirname, '..', 'tests', 'fixtures', 'enrichment', 'labelled.jsonl');

const FixtureLine = z.strictObject({
  id: z.string().min(1),
  title: z.string().min(1),
  subtitle: z.string().nullable(),
  summary: z.string().nullable(),
  text: z.string().min(1),
  labels: z.strictObject({
    primarySector: z.enum(SECTORS),
    primaryTopic: z.enum(TOPICS),
    sentimentLabel: z.enum(SENTIMENT_LABELS),
    entities: z.array(z.strictObject({ name: z.string().min(1), ticker: z.string().nullable(), aliases: z.array(z.string().min(1)).optional() })),
  }),
});
export type FixtureLine = z.output<typeof FixtureLine>;

export interface Outcome {
  id: string;
  /** undefined when the answers were refused on every attempt (EnrichmentInvalid). */
  result: ModelEnrichment | undefined;
  attempts: number;
  usage: Usage;
  latencyMs: number;
  problems: string[];
}

const say = (line: string) => process.stderr.write(`[eval] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function loadFixtures(file: string): FixtureLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => [line, i + 1] as const)
    .filter(([line]) => line.trim())
    .map(([line, n]) => {
      const parsed = FixtureLine.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${file}:${n}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return parsed.data;
    });
}

/**
 * The editors' corrections as lines of the corpus (models/news/correction.rules.ts exampleFixture),
 * each checked as a file line is; one that does not hold (an article with no text) is left out and
 * named.
 */
export function correctionFixtures(examples: readonly EnrichmentExampleDoc[], warn: (line: string) => void = say): FixtureLine[] {
  return examples.flatMap((e) => {
    const parsed = FixtureLine.safeParse(exampleFixture(e));
    if (parsed.success) return [parsed.data];
    warn(`correction of article ${e._id} left out: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return [];
  });
}

/** How long the database may take to answer before the run gives up. */
const DATABASE_WAIT_MS = 15_000;

/** The labelled examples of the configured database, newest first. */
async function loadCorrections(config: Config): Promise<FixtureLine[]> {
  const mongo = connectMongo(config);
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${DATABASE_WAIT_MS / 1000} s`)), DATABASE_WAIT_MS);
    });
    const conn = await Promise.race([mongo.ready, timeout]).finally(() => clearTimeout(timer));
    return correctionFixtures(await createEnrichmentExampleRepo(conn).list());
  } finally {
    await mongo.close();
  }
}

/** Provider failures the platform retries (in a Temporal activity) are retried here too, a few times. */
const PROVIDER_TRIES = 4;

async function enrichOne(llm: LlmClient, item: FixtureLine, opts: { model: string; maxInputTokens: number }): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    try {
      const out = await requestEnrichment(
        llm,
        { title: item.title, subtitle: item.subtitle, summary: item.summary, text: item.text, language: 'pt', sourceName: 'Fixture', sourceTier: 1 },
        { ...opts, user: `eval-enrichment:${item.id}` },
      );
      return { id: item.id, result: out.result, attempts: out.attempts, usage: out.usage, latencyMs: performance.now() - started, problems: [] };
    } catch (err) {
      if (err instanceof EnrichmentInvalid) return { id: item.id, result: undefined, attempts: err.attempts, usage: err.usage, latencyMs: performance.now() - started, problems: err.problems };
      if (!(err instanceof LlmError) || !err.retryable || attempt >= PROVIDER_TRIES) throw err;
      const wait = err.options.retryAfterMs ?? 1000 * 2 ** (attempt - 1);
      say(`${item.id}: ${err.message}; trying again in ${Math.round(wait / 100) / 10}s`);
      await sleep(wait);
    }
  }
}

export interface Report {
  provider: string;
  model: string;
  promptVersion: string;
  articles: number;
  /** Where the articles came from: the file's corpus, the editors' corrections. */
  corpus: { fixtures: number; corrections: number };
  answered: number;
  refused: number;
  accuracy: { primarySector: number; primaryTopic: number; sentimentLabel: number; sentimentWithinOne: number };
  entities: { precision: number; recall: number; f1: number; matched: number; predicted: number; labelled: number };
  validFirstAttempt: number;
  meanAttempts: number;
  perArticle: { promptTokens: number; completionTokens: number; costUsd: number; costKnown: boolean };
  totalCostUsd: number;
  latencyMs: { p50: number; p95: number };
  misses: { id: string; field: string; expected: string; got: string }[];
}

const ratio = (n: number, d: number) => (d ? n / d : 0);
/** A corpus line made from an editor's correction (exampleFixture's ids). */
const isCorrection = (id: string) => id.startsWith('correction:');

/** The scores of a run: refused articles count as wrong on every field and as missing their entities. */
export function score(items: FixtureLine[], outcomes: Outcome[], meta: { provider: string; model: string }): Report {
  const byId = new Map(items.map((i) => [i.id, i]));
  let sector = 0;
  let topic = 0;
  let sentiment = 0;
  let sentimentNear = 0;
  const totals: EntityMatch = { matched: 0, predicted: 0, labelled: 0, missed: [], extra: [] };
  const misses: Report['misses'] = [];
  for (const o of outcomes) {
    const labels = byId.get(o.id)!.labels;
    if (!o.result) {
      // A refused article scores nothing: its fields count as wrong and its entities as missed.
      totals.labelled += labels.entities.length;
      misses.push({ id: o.id, field: 'answer', expected: 'valid', got: o.problems.join('; ') });
      continue;
    }
    const c = o.result.classification;
    const label: SentimentLabel = sentimentLabel(o.result.sentiment.score); // as stored (toModules)
    if (c.primarySector === labels.primarySector) sector++;
    else misses.push({ id: o.id, field: 'primarySector', expected: labels.primarySector, got: c.primarySector });
    if (c.primaryTopic === labels.primaryTopic) topic++;
    else misses.push({ id: o.id, field: 'primaryTopic', expected: labels.primaryTopic, got: c.primaryTopic });
    if (label === labels.sentimentLabel) sentiment++;
    else misses.push({ id: o.id, field: 'sentimentLabel', expected: labels.sentimentLabel, got: `${label} (${o.result.sentiment.score})` });
    if (Math.abs(SENTIMENT_LABELS.indexOf(label) - SENTIMENT_LABELS.indexOf(labels.sentimentLabel)) <= 1) sentimentNear++;
    const m = matchEntities(o.result.entities, labels.entities);
    totals.matched += m.matched;
    totals.predicted += m.predicted;
    totals.labelled += m.labelled;
    if (m.missed.length) misses.push({ id: o.id, field: 'entities missed', expected: m.missed.join(', '), got: '' });
    if (m.extra.length) misses.push({ id: o.id, field: 'entities extra', expected: '', got: m.extra.join(', ') });
  }
  const n = outcomes.length;
  const precision = ratio(totals.matched, totals.predicted);
  const recall = ratio(totals.matched, totals.labelled);
  const sum = (f: (o: Outcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
  const cost = outcomes.map((o) => costUsd(o.usage, meta.model));
  const totalCost = cost.reduce((s, c) => s + c.usd, 0);
  const latencies = outcomes.map((o) => o.latencyMs);
  return {
    ...meta,
    promptVersion: PROMPT_VERSION,
    articles: n,
    corpus: { fixtures: outcomes.filter((o) => !isCorrection(o.id)).length, corrections: outcomes.filter((o) => isCorrection(o.id)).length },
    answered: outcomes.filter((o) => o.result).length,
    refused: outcomes.filter((o) => !o.result).length,
    accuracy: { primarySector: ratio(sector, n), primaryTopic: ratio(topic, n), sentimentLabel: ratio(sentiment, n), sentimentWithinOne: ratio(sentimentNear, n) },
    entities: { precision, recall, f1: ratio(2 * precision * recall, precision + recall), matched: totals.matched, predicted: totals.predicted, labelled: totals.labelled },
    validFirstAttempt: ratio(outcomes.filter((o) => o.result && o.attempts === 1).length, n),
    meanAttempts: ratio(sum((o) => o.attempts), n),
    perArticle: {
      promptTokens: ratio(sum((o) => o.usage.promptTokens), n),
      completionTokens: ratio(sum((o) => o.usage.completionTokens), n),
      costUsd: ratio(totalCost, n),
      costKnown: cost.every((c) => c.known),
    },
    totalCostUsd: totalCost,
    latencyMs: { p50: n ? percentile(latencies, 50) : 0, p95: n ? percentile(latencies, 95) : 0 },
    misses,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(r: Report, verbose: boolean): string {
  const of = (x: number) => `${pct(x)} (${Math.round(x * r.articles)}/${r.articles})`;
  const usd = (x: number) => (r.perArticle.costKnown ? `$${x.toFixed(x < 0.01 ? 5 : 2)}` : `unknown (no price for ${r.model})`);
  const rows: [string, string][] = [
    ['provider', r.provider],
    ['model', r.model],
    ['prompt version', r.promptVersion],
    ['articles', `${r.articles} (${r.answered} enriched, ${r.refused} refused as invalid)`],
    ['corpus', `${r.corpus.fixtures} from the file, ${r.corpus.corrections} editors' corrections`],
    ['primarySector accuracy', of(r.accuracy.primarySector)],
    ['primaryTopic accuracy', of(r.accuracy.primaryTopic)],
    ['sentimentLabel accuracy', of(r.accuracy.sentimentLabel)],
    ['sentimentLabel within one step', of(r.accuracy.sentimentWithinOne)],
    ['entity precision', `${pct(r.entities.precision)} (${r.entities.matched}/${r.entities.predicted})`],
    ['entity recall', `${pct(r.entities.recall)} (${r.entities.matched}/${r.entities.labelled})`],
    ['entity F1', pct(r.entities.f1)],
    ['valid JSON on first attempt', of(r.validFirstAttempt)],
    ['mean attempts', r.meanAttempts.toFixed(2)],
    ['tokens in / out per article', `${Math.round(r.perArticle.promptTokens)} / ${Math.round(r.perArticle.completionTokens)}`],
    ['cost per article', usd(r.perArticle.costUsd)],
    ['cost of the run', usd(r.totalCostUsd)],
    ['latency p50 / p95', `${Math.round(r.latencyMs.p50)} ms / ${Math.round(r.latencyMs.p95)} ms`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = ['| metric | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k.padEnd(width)} | ${v} |`)];
  if (verbose && r.misses.length) {
    lines.push('', 'Misses:', ...r.misses.map((m) => `- ${m.id} ${m.field}: ${m.expected}${m.got ? ` → ${m.got}` : ''}`));
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      limit: { type: 'string' },
      concurrency: { type: 'string', default: '4' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'max-input-tokens': { type: 'string', default: '6000' },
      fixtures: { type: 'string', default: FIXTURES },
      corrections: { type: 'boolean', default: false },
      'only-corrections': { type: 'boolean', default: false },
    },
  });
  const positive = (name: string, raw: string | undefined) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`--${name} must be a positive whole number, got ${raw}`);
    return n;
  };
  let config, concurrency, limit, maxInputTokens;
  try {
    config = parseConfig(process.env);
    concurrency = positive('concurrency', values.concurrency);
    limit = values.limit === undefined ? undefined : positive('limit', values.limit);
    maxInputTokens = positive('max-input-tokens', values['max-input-tokens']);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78;
    }
    throw err;
  }
  if (!config.ai.apiKey) {
    process.stderr.write('OPENAI_API_KEY is not set: there is no provider to evaluate (npm run eval:enrichment runs against the OpenAI double)\n');
    return 78;
  }
  const withCorrections = values.corrections || values['only-corrections'];
  let corrections: FixtureLine[] = [];
  if (withCorrections) {
    try {
      corrections = await loadCorrections(config);
    } catch (err) {
      say(`the editors' corrections could not be read: ${(err as Error).message}`);
      return 1;
    }
    say(`${corrections.length} editors' corrections`);
  }
  const all = [...(values['only-corrections'] ? [] : loadFixtures(values.fixtures)), ...corrections];
  const items = all.slice(0, limit ?? all.length);
  const model = process.env.ENRICH_MODEL || config.ai.models.mini;
  // Shown without any user info or query a base URL might carry.
  const base = new URL(config.ai.baseUrl ?? 'https://api.openai.com/v1');
  const provider = `${base.origin}${base.pathname}`;
  const llm = createLlmClient(config);
  const opts = { model, maxInputTokens };
  say(`${items.length} articles, model ${model} at ${provider}, concurrency ${concurrency}`);

  const outcomes: Outcome[] = [];
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        outcomes.push(await enrichOne(llm, item, opts));
        if (outcomes.length % 10 === 0) say(`${outcomes.length}/${items.length}`);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure !== undefined) {
    say(`the run could not complete after ${outcomes.length} of ${items.length} articles: ${(failure as Error).message}`);
    return 1;
  }
  outcomes.sort((a, b) => items.findIndex((i) => i.id === a.id) - items.findIndex((i) => i.id === b.id));
  const report = score(items, outcomes, { provider, model });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : table(report, values.verbose));
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      say(`failed: ${err.stack ?? err.message}`);
      process.exit(1);
    },
  );
}
