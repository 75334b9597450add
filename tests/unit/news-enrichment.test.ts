/**
 * The enrichment model call and its rules: asking again after an unusable answer, provider errors
 * passed through, the prompt's token budget, the stored modules and the strict schema; entity
 * matching, the labelled fixtures and the evaluation's scores. The LLM is a fake that answers from a
 * queue.
 */
import { MODULE_SCHEMAS } from '../../models/news/article.rules';
import { EnrichmentInvalid, requestEnrichment } from '../../operations/news/enrichment';
import { cachedFor } from '../../models/news/entity-catalogue';
import {
  b3Ticker,
  buildEnrichmentMessages,
  buildEnrichmentPrompt,
  comparableName,
  costUsd,
  countTokens,
  matchEntities,
  MODEL_ENRICHMENT_SCHEMA,
  type ModelEnrichment,
  promptTokens,
  readModelEnrichment,
  TIER_CREDIBILITY,
  toModules,
  TRUNCATION_MARKER,
  type EnrichmentInput,
} from '../../models/news/enrichment.rules';
import { LlmError, type LlmClient, type LlmRequest, type LlmResponse } from '../../models/infra/llm';
import { FIXTURES, loadFixtures, score } from '../../ops/eval-enrichment';
import { strictSchemaProblem } from '../doubles/openai-double';

const input: EnrichmentInput = {
  title: 'Petrobras anuncia R$ 15 bilhões em dividendos',
  subtitle: 'Pagamento sai em dezembro',
  summary: 'A estatal aprovou a distribuição após lucro acima do esperado.',
  text: 'A Petrobras (PETR4) aprovou nesta quinta-feira o pagamento de dividendos.\n\nO conselho de administração aprovou a proposta.',
  language: 'pt',
  sourceName: 'Valor',
  sourceTier: 1,
};

const valid: ModelEnrichment = {
  classification: { primarySector: 'ENE', secondarySectors: ['ENE', 'FIN', 'FIN'], primaryTopic: 'DIV', topics: ['DIV', 'EARN'], contentType: 'NEWS', urgencyLevel: 'HIGH', isBreaking: false },
  sentiment: { score: 0.15, label: 'POSITIVO', confidence: 0.8 },
  marketImpact: { level: 'MEDIUM', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.7, affectedTickers: ['petr4', 'B3: PETR3', 'NYSE:PBR', 'PETR4'] },
  entities: [
    { name: 'Petrobras', type: 'COMPANY', ticker: 'PETR4', cnpj: '33.000.167/0001-01', mentionCount: 2, inTitle: true, sentiment: 0.4 },
    { name: 'petrobras', type: 'COMPANY', ticker: null, cnpj: null, mentionCount: 1, inTitle: false, sentiment: 0.4 },
    { name: 'Conselho', type: 'INSTITUTION', ticker: 'n/a', cnpj: '11.111.111/1111-11', mentionCount: 1, inTitle: false, sentiment: 0 },
  ],
  translations: {
    pt: { title: input.title, subtitle: input.subtitle, summary: input.summary },
    en: { title: 'Petrobras announces R$ 15 billion in dividends', subtitle: '  ', summary: 'The state company approved the payout.' },
  },
  scores: { relevance: 80, credibility: 70, depth: 40, timeliness: 90, originality: 60 },
  keywords: ['dividendos', 'Dividendos', ' petrobras ', ''],
};

const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });

/** An LLM that answers from a queue (a string is the content; an Error is thrown) and keeps the requests. */
function fakeLlm(answers: (string | Error)[]) {
  const requests: LlmRequest[] = [];
  const llm: LlmClient = {
    configured: true,
    async complete(req): Promise<LlmResponse> {
      requests.push(structuredClone(req));
      const next = answers.shift();
      if (next === undefined) throw new Error('no more answers');
      if (next instanceof Error) throw next;
      return { content: next, toolCalls: [], usage: usage(1000, 200), finishReason: 'stop', model: 'gpt-4o-mini-2024-07-18' };
    },
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error('not used');
    },
  };
  return { llm, requests };
}

const opts = { model: 'gpt-4o-mini', maxInputTokens: 8_000 };

describe('requestEnrichment', () => {
  it('returns a valid first answer with its usage, the provider model and the prompt version', async () => {
    const { llm, requests } = fakeLlm([JSON.stringify(valid)]);
    const out = await requestEnrichment(llm, input, opts);
    expect(out).toMatchObject({ attempts: 1, usage: usage(1000, 200), model: 'gpt-4o-mini-2024-07-18', promptVersion: expect.stringMatching(/^enrich-/) });
    expect(out.result.classification.primaryTopic).toBe('DIV');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.responseFormat).toEqual({ type: 'json_schema', name: 'article_enrichment', schema: MODEL_ENRICHMENT_SCHEMA, strict: true });
    expect(requests[0]!.user).toBe('news-enrichment');
  });

  it('asks again after an answer that is not JSON, showing the answer and what was wrong; usage is summed', async () => {
    const { llm, requests } = fakeLlm(['Claro! Aqui está a análise: {', JSON.stringify(valid)]);
    const out = await requestEnrichment(llm, input, opts);
    expect(out.attempts).toBe(2);
    expect(out.usage).toEqual(usage(2000, 400));
    const second = requests[1]!.messages;
    expect(second).toHaveLength(4);
    expect(second[2]).toEqual({ role: 'assistant', content: 'Claro! Aqui está a análise: {' });
    expect(second[3]!.content).toMatch(/not JSON/);
  });

  it('gives up after maxValidationAttempts answers that break the schema, with the cost and the problems', async () => {
    const bad = JSON.stringify({ ...valid, sentiment: { ...valid.sentiment, score: 3 } });
    const { llm, requests } = fakeLlm([bad, bad, bad, JSON.stringify(valid)]);
    const err = await requestEnrichment(llm, input, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnrichmentInvalid);
    expect(err).toMatchObject({ name: 'EnrichmentInvalid', attempts: 3, usage: usage(3000, 600) });
    expect((err as EnrichmentInvalid).problems.join()).toMatch(/sentiment\.score/);
    expect(requests).toHaveLength(3);
    expect(requests[2]!.messages.at(-1)!.content).toMatch(/sentiment\.score/);
  });

  it('honours a smaller maxValidationAttempts', async () => {
    const { llm } = fakeLlm(['nope', JSON.stringify(valid)]);
    await expect(requestEnrichment(llm, input, { ...opts, maxValidationAttempts: 1 })).rejects.toMatchObject({ attempts: 1 });
  });

  it('lets LlmError through untouched (the activity retries it)', async () => {
    const limited = new LlmError('rate_limited', 'AI provider is rate limiting us', { status: 429, retryAfterMs: 2000 });
    const { llm } = fakeLlm([limited]);
    await expect(requestEnrichment(llm, input, opts)).rejects.toBe(limited);
    const later = new LlmError('unavailable', 'AI provider answered 500', { status: 500 });
    const second = fakeLlm(['not json', later]);
    await expect(requestEnrichment(second.llm, input, opts)).rejects.toBe(later);
  });

  it('sends the prompt its caller built and counted (buildEnrichmentPrompt) instead of building it again', async () => {
    const prompt = buildEnrichmentPrompt(input, { maxInputTokens: opts.maxInputTokens });
    const { llm, requests } = fakeLlm(['not json', JSON.stringify(valid)]);
    const out = await requestEnrichment(llm, { ...input, title: 'ignored: the messages given are sent' }, { ...opts, messages: prompt.messages });
    expect(out.attempts).toBe(2);
    expect(requests[0]!.messages).toEqual(prompt.messages);
    // The correction goes after them on the second attempt; the caller's list is left as it was.
    expect(requests[1]!.messages.slice(0, 2)).toEqual(prompt.messages);
    expect(requests[1]!.messages).toHaveLength(4);
    expect(prompt.messages).toHaveLength(2);
  });

  it('stops between attempts once cancelled', async () => {
    const controller = new AbortController();
    const { llm, requests } = fakeLlm(['not json', JSON.stringify(valid)]);
    const complete = llm.complete.bind(llm);
    llm.complete = async (req, o) => {
      const res = await complete(req, o);
      controller.abort();
      return res;
    };
    await expect(requestEnrichment(llm, input, { ...opts, signal: controller.signal })).rejects.toMatchObject({ name: 'LlmError', kind: 'timeout' });
    expect(requests).toHaveLength(1);
  });
});

describe('the prompt', () => {
  const paragraph = (i: number) => `Parágrafo ${i}: a companhia informou que a produção de petróleo no pré-sal avançou ${i}% no trimestre, segundo o relatório enviado à CVM.`;
  const long = Array.from({ length: 400 }, (_, i) => paragraph(i + 1)).join('\n\n');

  it('keeps a text that fits whole, inside the article tags', () => {
    const messages = buildEnrichmentMessages(input, { maxInputTokens: 8_000 });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[1]!.content).toContain(`<texto>\n${input.text}\n</texto>`);
    expect(messages[1]!.content).not.toContain(TRUNCATION_MARKER);
    expect(messages[0]!.content).toMatch(/FIN: financeiro/);
    expect(messages[0]!.content).toMatch(/nunca invente/);
  });

  it('cuts a long text at a paragraph end to fit maxInputTokens, and marks the cut', () => {
    for (const maxInputTokens of [2_500, 4_000, 9_000]) {
      const messages = buildEnrichmentMessages({ ...input, text: long }, { maxInputTokens });
      const tokens = promptTokens(messages);
      expect(tokens).toBeLessThanOrEqual(maxInputTokens);
      expect(tokens).toBeGreaterThan(maxInputTokens - 100); // one paragraph is about 40 tokens: little room is wasted
      const text = /<texto>\n([\s\S]*)\n<\/texto>/.exec(messages[1]!.content as string)![1]!;
      expect(text.endsWith(`.\n\n${TRUNCATION_MARKER}`)).toBe(true);
      expect(long.startsWith(text.slice(0, -TRUNCATION_MARKER.length).trimEnd())).toBe(true);
    }
  });

  it('cuts at a word when not even the first paragraph fits', () => {
    const oneParagraph = long.replace(/\n\n/g, ' ');
    const messages = buildEnrichmentMessages({ ...input, text: oneParagraph }, { maxInputTokens: 3_000 });
    expect(promptTokens(messages)).toBeLessThanOrEqual(3_000);
    const text = /<texto>\n([\s\S]*)\n<\/texto>/.exec(messages[1]!.content as string)![1]!;
    expect(text).toMatch(/\S\n\n\[… texto cortado/);
    expect(oneParagraph.startsWith(text.slice(0, -TRUNCATION_MARKER.length).trimEnd())).toBe(true);
  });

  it('gives the messages with their tokens, counted while fitting the text (no second count)', () => {
    for (const [text, maxInputTokens] of [[input.text, 8_000], [long, 2_500], [long.replace(/\n\n/g, ' '), 3_000]] as const) {
      const prompt = buildEnrichmentPrompt({ ...input, text }, { maxInputTokens });
      expect(prompt.messages).toEqual(buildEnrichmentMessages({ ...input, text }, { maxInputTokens }));
      expect(prompt.tokens).toBe(promptTokens(prompt.messages));
    }
  });

  it('refuses a budget that cannot hold the instructions', () => {
    expect(() => buildEnrichmentMessages(input, { maxInputTokens: 200 })).toThrow(RangeError);
  });

  it('counts tokens with o200k_base, special-token text included', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('tells the model the source and its usual sector, but not the tier', () => {
    const user = buildEnrichmentMessages({ ...input, defaultSector: 'MAT', subtitle: null }, { maxInputTokens: 8_000 })[1]!.content as string;
    expect(user).toContain('<fonte>Valor</fonte>');
    expect(user).toContain('<subtitulo>(nenhum)</subtitulo>');
    expect(user).toMatch(/costuma cobrir o setor MAT/);
    expect(user).not.toMatch(/tier|nível/i);
  });
});

describe('the answer', () => {
  it('sends a JSON schema strict mode accepts', () => {
    expect(strictSchemaProblem(MODEL_ENRICHMENT_SCHEMA)).toBeUndefined();
    expect(JSON.stringify(MODEL_ENRICHMENT_SCHEMA)).not.toMatch(/"(minimum|maximum|maxItems|\$schema)"/);
    // The bounds left out of the schema are in the descriptions and checked after parsing.
    expect(JSON.stringify(MODEL_ENRICHMENT_SCHEMA)).toMatch(/de -1 a 1/);
  });

  it('reads fenced JSON, and names what breaks the schema', () => {
    expect(readModelEnrichment('```json\n' + JSON.stringify(valid) + '\n```')).toHaveProperty('result');
    const tooMany = readModelEnrichment(JSON.stringify({ ...valid, keywords: Array.from({ length: 16 }, (_, i) => `k${i}`), scores: { ...valid.scores, depth: 101 } }));
    expect(tooMany).toEqual({ problems: [expect.stringMatching(/^scores\.depth: /), expect.stringMatching(/^keywords: /)] });
    expect(readModelEnrichment(JSON.stringify({ ...valid, entities: [{ ...valid.entities[0], mentionCount: 0 }] }))).toHaveProperty('problems');
  });

  it('becomes modules that MODULE_SCHEMAS accepts, the score deciding the sentiment label', () => {
    const { base, modules, mentions } = toModules(valid, { sourceTier: 2, wordCount: 812.4, readingTimeMinutes: 4, paywall: true });
    for (const [name, data] of Object.entries(modules)) expect(MODULE_SCHEMAS[name as keyof typeof MODULE_SCHEMAS].safeParse(data).error).toBeUndefined();
    expect(Object.keys(modules).sort()).toEqual(['classification', 'market_impact', 'meta', 'scoring', 'sentiment', 'translations']);
    expect(modules.sentiment).toEqual({ score: 0.15, label: 'NEUTRO', confidence: 0.8 });
    expect(modules.market_impact.affectedTickers).toEqual(['PETR4', 'PETR3']);
    expect(modules.classification).toEqual({ secondarySectors: ['FIN'], secondaryTopics: ['EARN'], keywords: ['dividendos', 'petrobras'] });
    expect(modules.translations.en.subtitle).toBeNull();
    expect(modules.meta).toEqual({ sourceTier: 2, paywall: true, wordCount: 812, readingTimeMinutes: 4 });
    expect(base).toEqual({ primarySector: 'ENE', primaryTopic: 'DIV', contentType: 'NEWS', urgencyLevel: 'HIGH', isBreaking: false, baseScore: modules.scoring.overall });
    expect(mentions).toEqual([
      { name: 'Petrobras', type: 'COMPANY', ticker: 'PETR4', cnpj: '33.000.167/0001-01', mentionCount: 3, inTitle: true, sentiment: 0.4 },
      { name: 'Conselho', type: 'INSTITUTION', ticker: null, cnpj: null, mentionCount: 1, inTitle: false, sentiment: 0 },
    ]);
  });

  it('scores overall as the weighted mean, credibility blended with the source tier', () => {
    const at = (sourceTier: 1 | 2 | 3) => toModules(valid, { sourceTier, wordCount: 0, readingTimeMinutes: 0, paywall: false }).modules.scoring;
    expect(at(1)).toEqual({ relevance: 80, credibility: (70 + TIER_CREDIBILITY[1]) / 2, depth: 40, timeliness: 90, originality: 60, overall: Math.round(0.35 * 80 + 0.2 * 80 + 0.15 * 40 + 0.15 * 90 + 0.15 * 60) });
    expect(at(1).overall - at(3).overall).toBe(4);
  });

  it('knows a B3 ticker', () => {
    expect(['VALE3', 'bpac11', 'B3:ITUB4', 'AAPL34'].map(b3Ticker)).toEqual(['VALE3', 'BPAC11', 'ITUB4', 'AAPL34']);
    expect(['PBR', 'PETR', 'NYSE:VALE', '', null].map(b3Ticker)).toEqual([null, null, null, null, null]);
  });
});

describe('costUsd', () => {
  it('prices known models per million tokens, dated snapshots as their model', () => {
    expect(costUsd(usage(1_000_000, 1_000_000), 'gpt-4o-mini')).toEqual({ usd: 0.75, known: true });
    expect(costUsd(usage(2_000, 500), 'gpt-4o-mini-2024-07-18').usd).toBeCloseTo(0.0006, 10);
    expect(costUsd(usage(1_000_000, 0), 'gpt-4.1').usd).toBe(2);
    expect(costUsd(usage(1_000_000, 0), 'gpt-4.1-mini').usd).toBe(0.4);
    expect(costUsd(usage(0, 1_000_000), 'gpt-4.1-nano').usd).toBe(0.4);
    expect(costUsd(usage(0, 1_000_000), 'gpt-4o').usd).toBe(10);
  });

  it('flags an unknown model at zero cost instead of guessing', () => {
    expect(costUsd(usage(1_000, 1_000), 'llama-3.1-70b')).toEqual({ usd: 0, known: false });
    expect(costUsd(usage(1_000, 1_000), 'gpt-4o-audio-preview')).toEqual({ usd: 0, known: false });
  });
});

describe('matchEntities', () => {
  const labels = [
    { name: 'Petrobras', ticker: 'PETR4' },
    { name: 'Banco Central', ticker: null, aliases: ['BC'] },
    { name: 'Renato Lacerda', ticker: null },
  ];

  it('matches by issuer when both have a ticker, else by folded name or alias, one to one', () => {
    const m = matchEntities(
      [
        { name: 'Petróleo Brasileiro S.A.', type: 'COMPANY', ticker: 'PETR3' },
        { name: 'PETR4', type: 'TICKER', ticker: null },
        { name: 'bc', type: 'INSTITUTION', ticker: null },
        { name: 'Banco Central', type: 'INSTITUTION', ticker: null },
        { name: 'Pré-sal', type: 'LOCATION', ticker: null },
        { name: 'Lacerda', type: 'PERSON', ticker: null },
      ],
      labels,
    );
    expect(m).toEqual({ matched: 2, predicted: 4, labelled: 3, missed: ['Renato Lacerda'], extra: ['Banco Central', 'Lacerda'] });
  });

  it('does not match a wrong ticker by name', () => {
    expect(matchEntities([{ name: 'Petrobras', type: 'COMPANY', ticker: 'VALE3' }], labels).matched).toBe(0);
    expect(matchEntities([{ name: 'Petrobras', type: 'COMPANY', ticker: null }], labels).matched).toBe(1);
  });

  it('folds accents, case, punctuation and S.A.', () => {
    expect(['Vale S.A.', 'Itaú-Unibanco', "Rede D’Or"].map(comparableName)).toEqual(['vale', 'itau unibanco', 'rede d or']);
  });
});

describe('the labelled fixtures and their scoring (ops/eval-enrichment.ts)', () => {
  const items = loadFixtures(FIXTURES);

  it('holds at least 60 well-formed articles whose labelled names appear in them', () => {
    expect(items.length).toBeGreaterThanOrEqual(60);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    for (const item of items) {
      const article = [item.title, item.subtitle, item.summary, item.text].join('\n');
      const paragraphs = item.text.split('\n\n').length;
      expect({ id: item.id, paragraphs: paragraphs >= 3 && paragraphs <= 6 }).toEqual({ id: item.id, paragraphs: true });
      for (const e of item.labels.entities) for (const name of [e.name, ...(e.aliases ?? [])]) expect({ id: item.id, name, found: article.includes(name) }).toEqual({ id: item.id, name, found: true });
    }
  });

  it('scores answers equal to the labels as perfect, and a refused article as wrong', () => {
    const middle = { MUITO_NEGATIVO: -0.8, NEGATIVO: -0.4, NEUTRO: 0, POSITIVO: 0.4, MUITO_POSITIVO: 0.8 } as const;
    const answer = (item: (typeof items)[number]): ModelEnrichment => ({
      ...valid,
      classification: { ...valid.classification, primarySector: item.labels.primarySector, primaryTopic: item.labels.primaryTopic },
      sentiment: { ...valid.sentiment, score: middle[item.labels.sentimentLabel] },
      entities: item.labels.entities.map((e) => ({ name: e.name, type: 'COMPANY', ticker: e.ticker, cnpj: null, mentionCount: 1, inTitle: false, sentiment: 0 })),
    });
    const some = items.slice(0, 4);
    const perfect = score(some, some.map((i) => ({ id: i.id, result: answer(i), attempts: 1, usage: usage(1_000, 200), latencyMs: 100, problems: [] })), { provider: 'p', model: 'gpt-4o-mini' });
    expect(perfect).toMatchObject({
      articles: 4,
      accuracy: { primarySector: 1, primaryTopic: 1, sentimentLabel: 1, sentimentWithinOne: 1 },
      entities: { precision: 1, recall: 1 },
      validFirstAttempt: 1,
      perArticle: { promptTokens: 1_000, completionTokens: 200, costKnown: true },
      misses: [],
    });
    const refused = score(some, some.map((i, n) => (n === 0 ? { id: i.id, result: undefined, attempts: 3, usage: usage(3_000, 600), latencyMs: 300, problems: ['x'] } : { id: i.id, result: answer(i), attempts: 2, usage: usage(2_000, 400), latencyMs: 200, problems: [] })), { provider: 'p', model: 'gpt-4o-mini' });
    expect(refused).toMatchObject({ refused: 1, accuracy: { primarySector: 0.75 }, validFirstAttempt: 0, meanAttempts: 2.25, entities: { precision: 1 } });
    expect(refused.entities.recall).toBeLessThan(1);
  });
});

describe('the entity catalogue a worker keeps (entity-catalogue.ts cachedFor)', () => {
  it('loads once for callers at the same moment, keeps the value for the TTL, then loads again', async () => {
    let clock = 1_000;
    let loads = 0;
    const get = cachedFor(60_000, async () => ++loads, () => clock);
    expect(await Promise.all([get(), get(), get()])).toEqual([1, 1, 1]);
    clock += 60_000;
    expect(await get()).toBe(1);
    clock += 1;
    expect(await get()).toBe(2);
    expect(loads).toBe(2);
  });

  it('does not keep a load that failed: the next caller loads again', async () => {
    const clock = 0;
    let calls = 0;
    const get = cachedFor(
      60_000,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
        return 'catalogue';
      },
      () => clock,
    );
    await expect(get()).rejects.toThrow('database away');
    await new Promise((r) => setImmediate(r));
    expect(await get()).toBe('catalogue');
    expect(await get()).toBe('catalogue');
    expect(calls).toBe(2);
  });
});
