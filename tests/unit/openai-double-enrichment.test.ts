/**
 * The OpenAI double's `article_enrichment` task, through the platform's real client: unscripted it
 * answers a valid keyword-rule enrichment of the article in the prompt; scripted steps still come
 * first (an invalid answer, 429, 500), so tests of the callers can drive every path.
 */
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { EnrichmentInvalid, requestEnrichment } from '../../operations/news/enrichment';
import { buildEnrichmentMessages, MODEL_ENRICHMENT_SCHEMA, ModelEnrichment, type EnrichmentInput } from '../../models/news/enrichment.rules';
import { openAiDoubleControl, startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double';

let double: OpenAiDouble;
let llm: LlmClient;

beforeAll(async () => {
  double = await startOpenAiDouble(0);
  llm = createLlmClient({
    ai: {
      baseUrl: double.url,
      apiKey: 'test-key',
      models: { mini: 'gpt-4o-mini', advanced: 'gpt-4o', previous: 'gpt-4-turbo', legacy: 'gpt-3.5-turbo' },
      maxTokens: 4096,
      requestTimeoutMs: 10_000,
      rateLimitPerMinute: 100,
      dailyTokensPerUser: 500_000,
      toolHostAllowlist: [],
      toolCaFile: undefined,
      mcpStdioProviders: {},
    },
  });
});
afterAll(() => double.close());

const article: EnrichmentInput = {
  title: 'URGENTE: Petrobras aprova R$ 15 bilhões em dividendos',
  subtitle: 'Pagamento de proventos sai em dezembro',
  summary: null,
  text: [
    'A Petrobras (PETR4) informou em fato relevante que o conselho aprovou dividendos de R$ 15 bilhões, acima do esperado pelo mercado.',
    'A produção de petróleo no pré-sal bateu recorde no trimestre, e o lucro cresceu 12%, segundo a companhia. A ANP confirmou os números.',
    'Analistas do BTG Pactual dizem que a distribuição reforça a tese de dividendos da estatal.',
  ].join('\n\n'),
  language: 'pt',
  sourceName: 'Valor',
  sourceTier: 1,
};
const opts = (user: string) => ({ model: 'gpt-4o-mini', maxInputTokens: 8_000, user });

describe('the double answers article_enrichment', () => {
  it('with a valid enrichment read from the article by keyword rules', async () => {
    const raw = await llm.complete({
      model: 'gpt-4o-mini',
      messages: buildEnrichmentMessages(article, { maxInputTokens: 8_000 }),
      responseFormat: { type: 'json_schema', name: 'article_enrichment', schema: MODEL_ENRICHMENT_SCHEMA, strict: true },
      user: 'double-enrichment-raw',
    });
    const parsed = ModelEnrichment.safeParse(JSON.parse(raw.content));
    expect(parsed.error).toBeUndefined();
    const e = parsed.data!;
    expect(e.classification).toMatchObject({ primarySector: 'ENE', primaryTopic: 'DIV', isBreaking: true, contentType: 'BREAKING' });
    expect(e.sentiment.score).toBeGreaterThan(0.2);
    expect(e.entities.map((x) => [x.name, x.ticker, x.mentionCount, x.inTitle])).toEqual(
      expect.arrayContaining([
        ['Petrobras', 'PETR4', 3, true], // title, name and ticker,
        ['BTG Pactual', 'BPAC11', 1, false],
        ['ANP', null, 1, false],
      ]),
    );
    expect(e.marketImpact.affectedTickers.sort()).toEqual(['BPAC11', 'PETR4']);
    expect(e.translations).toEqual({
      pt: { title: article.title, subtitle: article.subtitle, summary: null },
      en: { title: `[EN] ${article.title}`, subtitle: `[EN] ${article.subtitle}`, summary: null },
    });
  });

  it('reads banks, Copom and negative words too, and is not breaking without the signs', async () => {
    const { result } = await requestEnrichment(
      llm,
      {
        ...article,
        title: 'Bradesco tem queda no lucro com inadimplência maior',
        subtitle: null,
        text: 'O Bradesco teve prejuízo na carteira de crédito e queda de 20% no lucro. O banco piora a projeção após o Copom manter a Selic.',
      },
      opts('double-enrichment-bank'),
    );
    expect(result.classification).toMatchObject({ primarySector: 'FIN', primaryTopic: 'EARN', isBreaking: false });
    expect(result.sentiment.label).toMatch(/NEGATIVO/);
    expect(result.entities.map((x) => x.name).sort()).toEqual(['Bradesco', 'Copom']);
  });

  it('gives way to a script: an invalid answer is asked for again, then the task answers', async () => {
    const user = 'double-enrichment-scripted';
    await openAiDoubleControl(double.url).script(user, [{ kind: 'reply', content: '{"classification": "FIN"}' }]);
    const out = await requestEnrichment(llm, article, opts(user));
    expect(out.attempts).toBe(2);
    expect(out.result.classification.primarySector).toBe('ENE');
    const sent = await openAiDoubleControl(double.url).requests(user);
    expect(sent[1]!.messages.at(-1)!.content).toMatch(/não foi aceita/);
  });

  it('gives way to scripted invalid answers, 429 and 500', async () => {
    const control = openAiDoubleControl(double.url);
    await control.script('double-enrichment-invalid', [1, 2, 3].map(() => ({ kind: 'reply' as const, content: 'não é JSON' })));
    await expect(requestEnrichment(llm, article, opts('double-enrichment-invalid'))).rejects.toBeInstanceOf(EnrichmentInvalid);
    await control.script('double-enrichment-429', [{ kind: 'error', status: 429, retryAfter: '2' }]);
    await expect(requestEnrichment(llm, article, opts('double-enrichment-429'))).rejects.toMatchObject({ name: 'LlmError', kind: 'rate_limited', options: { retryAfterMs: 2000 } });
    await control.script('double-enrichment-500', [{ kind: 'error', status: 500 }]);
    await expect(requestEnrichment(llm, article, opts('double-enrichment-500'))).rejects.toMatchObject({ name: 'LlmError', kind: 'unavailable' });
  });

  it('leaves other schemas as they were: the simplest value of the schema', async () => {
    const raw = await llm.complete({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Petrobras dividendos' }],
      responseFormat: { type: 'json_schema', name: 'something_else', schema: MODEL_ENRICHMENT_SCHEMA, strict: true },
    });
    expect(JSON.parse(raw.content)).toMatchObject({ classification: { primarySector: 'FIN', primaryTopic: 'M&A' }, entities: [], keywords: [] });
  });
});
