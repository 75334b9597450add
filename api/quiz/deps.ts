/** What the quiz + AI service's routes use, built once per process: the quiz store (api/shared/bundles.ts) and the AI services. */
import { createAiRegistryRepo, type AiRegistryRepo } from '../../models/ai/registry.repo';
import { createAiUsageRepo, type AiUsageRepo } from '../../models/ai/usage.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { createOutbound, type Outbound } from '../../models/infra/outbound';
import { quizBundle, windowLimiter, type QuizBundle } from '../shared/bundles';
import type { Infra } from '../shared/infra';
import type { Limiter } from '../shared/rate-limit';

export interface AiServices {
  llm: LlmClient;
  registry: AiRegistryRepo;
  usage: AiUsageRepo;
  limiter: Limiter;
  outbound: Outbound;
}

export interface QuizDeps extends Infra, QuizBundle {
  ai: AiServices;
}

export function makeQuizDeps(infra: Infra, overrides: Partial<AiServices> = {}): QuizDeps {
  const { config, mongo } = infra;
  return {
    ...infra,
    ai: {
      llm: createLlmClient(config),
      registry: createAiRegistryRepo(mongo.conn),
      usage: createAiUsageRepo(mongo.conn),
      limiter: windowLimiter(infra, {
        name: 'ai-user',
        points: config.ai.rateLimitPerMinute,
        durationSec: 60,
        message: `Rate limit exceeded: ${config.ai.rateLimitPerMinute} AI requests per minute`,
      }),
      outbound: createOutbound(config),
      ...overrides,
    },
    ...quizBundle(infra),
  };
}
