/** What the quiz + AI service's routes use, built once per process. */
import { createAiRegistryRepo, type AiRegistryRepo } from '../../models/ai/registry.repo';
import { createAiUsageRepo, type AiUsageRepo } from '../../models/ai/usage.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { createOutbound, type Outbound } from '../../models/infra/outbound';
import { createEditionRepo } from '../../models/quiz/edition.repo';
import { createAttemptRepo } from '../../models/quiz/attempt.repo';
import { createQuizRepo } from '../../models/quiz/quiz.repo';
import type { QuizStore } from '../../models/quiz/operations/reader-days';
import { createReadDaysRepo } from '../../models/quiz/read-days.repo';
import { createReadingRepo } from '../../models/quiz/reading.repo';
import type { Infra } from '../shared/infra';
import { createMongoLimiter, type Limiter } from '../shared/rate-limit';

export interface AiServices {
  llm: LlmClient;
  registry: AiRegistryRepo;
  usage: AiUsageRepo;
  limiter: Limiter;
  outbound: Outbound;
}

export function createQuizStore(conn: Infra['mongo']['conn']): QuizStore {
  return {
    editions: createEditionRepo(conn),
    readings: createReadingRepo(conn),
    quizzes: createQuizRepo(conn),
    attempts: createAttemptRepo(conn),
    readDays: createReadDaysRepo(conn),
    now: () => new Date(),
  };
}

export interface QuizDeps extends Infra {
  ai: AiServices;
  quiz: QuizStore;
}

export function makeQuizDeps(infra: Infra, overrides: Partial<AiServices> = {}): QuizDeps {
  const { config, mongo } = infra;
  return {
    ...infra,
    ai: {
      llm: createLlmClient(config),
      registry: createAiRegistryRepo(mongo.conn),
      usage: createAiUsageRepo(mongo.conn),
      limiter: createMongoLimiter(mongo.ready, config.mongo.db, {
        name: 'ai-user',
        points: config.ai.rateLimitPerMinute,
        durationSec: 60,
        syncMs: config.rateLimit.syncMs,
        message: `Rate limit exceeded: ${config.ai.rateLimitPerMinute} AI requests per minute`,
      }),
      outbound: createOutbound(config),
      ...overrides,
    },
    quiz: createQuizStore(mongo.conn),
  };
}
