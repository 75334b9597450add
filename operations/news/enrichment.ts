/**
 * The enrichment model call: asks the configured LLM for an article's enrichment in the strict
 * JSON format of enrichment.rules.ts, and asks again (with what was wrong) when the answer is not
 * JSON or breaks the schema's checks. Provider failures (LlmError) are not handled here: the caller
 * is a Temporal activity, which retries the retryable kinds with back-off.
 */
import { LlmError, emptyUsage, type ChatMessage, type LlmClient, type Usage } from '../../models/infra/llm';
import {
  buildEnrichmentMessages,
  correctionMessage,
  ENRICHMENT_FORMAT_NAME,
  MODEL_ENRICHMENT_SCHEMA,
  PROMPT_VERSION,
  readModelEnrichment,
  type EnrichmentInput,
  type ModelEnrichment,
} from '../../models/news/enrichment.rules';

/** The model's answers broke the format on every attempt; carries what the attempts cost. */
export class EnrichmentInvalid extends Error {
  override name = 'EnrichmentInvalid';
  constructor(
    readonly attempts: number,
    readonly usage: Usage,
    /** What was wrong with the last answer. */
    readonly problems: string[],
  ) {
    super(`the model's enrichment was refused ${attempts} times: ${problems.join('; ')}`);
  }
}

export interface EnrichmentOptions {
  model: string;
  /** Budget of the whole prompt (instructions and article); the main text is cut to fit. */
  maxInputTokens: number;
  /** Answers asked for at most, counting the first (default 3). */
  maxValidationAttempts?: number;
  /** Room for the answer (default 4,000 tokens: 30 entities and two translations fit well within). */
  maxOutputTokens?: number;
  /** Default 0: classification should not vary from one call to the next. */
  temperature?: number;
  /** Sent as `user` (abuse monitoring; the OpenAI double keys its scripts by it). Default 'news-enrichment'. */
  user?: string;
  /**
   * The prompt, when the caller has built it from the same input and `maxInputTokens` already
   * (buildEnrichmentPrompt, to reserve its tokens): not built and counted a second time.
   */
  messages?: readonly ChatMessage[];
  signal?: AbortSignal;
}

export interface EnrichmentOutcome {
  result: ModelEnrichment;
  /** Summed over the attempts. */
  usage: Usage;
  attempts: number;
  /** The model that answered, as the provider names it. */
  model: string;
  promptVersion: string;
}

const addUsage = (a: Usage, b: Usage): Usage => ({ promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, totalTokens: a.totalTokens + b.totalTokens });

export async function requestEnrichment(llm: LlmClient, input: EnrichmentInput, opts: EnrichmentOptions): Promise<EnrichmentOutcome> {
  const maxAttempts = Math.max(1, opts.maxValidationAttempts ?? 3);
  const messages: ChatMessage[] = opts.messages ? [...opts.messages] : buildEnrichmentMessages(input, { maxInputTokens: opts.maxInputTokens });
  let usage = emptyUsage();
  let problems: string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    // Cancelled between attempts: the same error the client gives for a cancelled request.
    if (opts.signal?.aborted) throw new LlmError('timeout', 'AI request was cancelled');
    const reply = await llm.complete(
      {
        model: opts.model,
        messages,
        temperature: opts.temperature ?? 0,
        maxTokens: opts.maxOutputTokens ?? 4_000,
        responseFormat: { type: 'json_schema', name: ENRICHMENT_FORMAT_NAME, schema: MODEL_ENRICHMENT_SCHEMA, strict: true },
        user: opts.user ?? 'news-enrichment',
      },
      opts.signal ? { signal: opts.signal } : {},
    );
    usage = addUsage(usage, reply.usage);
    const read = readModelEnrichment(reply.content);
    if ('result' in read) return { result: read.result, usage, attempts: attempt, model: reply.model || opts.model, promptVersion: PROMPT_VERSION };
    problems = read.problems;
    messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: correctionMessage(problems, reply.finishReason) });
  }
  throw new EnrichmentInvalid(maxAttempts, usage, problems);
}
