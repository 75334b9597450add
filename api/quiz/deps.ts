/** What the quiz + AI service's routes use, built once per process. */
import { createAiRegistryRepo, type AiRegistryRepo } from '../../models/ai/registry.repo';
import { createAiUsageRepo, type AiUsageRepo } from '../../models/ai/usage.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { createOutbound, type Outbound } from '../../models/infra/outbound';
import { createEditionRepo, type EditionRepo } from '../../models/quiz/edition.repo';
import { createAttemptRepo, type AttemptDoc, type AttemptRepo } from '../../models/quiz/attempt.repo';
import { createQuizRepo, type QuizRepo } from '../../models/quiz/quiz.repo';
import { createReadDaysRepo, type ReadDaysRepo } from '../../models/quiz/read-days.repo';
import { createReadingRepo, type ReadingDoc, type ReadingRepo } from '../../models/quiz/reading.repo';
import type { Edition } from '../../models/quiz/calendar.rules';
import type { Infra } from '../shared/infra';
import { createMongoLimiter, type Limiter } from '../shared/rate-limit';

export interface AiServices {
  llm: LlmClient;
  registry: AiRegistryRepo;
  usage: AiUsageRepo;
  limiter: Limiter;
  outbound: Outbound;
}

export interface QuizServices {
  editions: EditionRepo;
  readings: ReadingRepo;
  quizzes: QuizRepo;
  attempts: AttemptRepo;
  /** Each reader's days read or recovered, as streaks read them. */
  readDaysRepo: ReadDaysRepo;
  /** Records a reading and marks its day (again, when it was recorded before: a retry heals a lost mark). */
  recordReading(userId: string, date: string, edition: Edition): Promise<{ doc: ReadingDoc; created: boolean }>;
  /** Marks a day a passed quiz recovered (after its attempt is stored; again on a retry). */
  markRecovered(userId: string, date: string): Promise<void>;
  /** The days a reader read an edition or recovered by passing its quiz (what streaks count). */
  readDays(userId: string): Promise<Set<string>>;
  /** What a reader did on the days from `from` to `to`: the days read or recovered, and the attempts made. */
  daysBetween(userId: string, from: string, to: string): Promise<{ read: Set<string>; attempts: AttemptDoc[] }>;
  /** The clock "today" is read from (tests set a day of their own). */
  now: () => Date;
}

function createQuizServices(conn: Infra['mongo']['conn']): QuizServices {
  const readings = createReadingRepo(conn);
  const attempts = createAttemptRepo(conn);
  const readDaysRepo = createReadDaysRepo(conn);
  return {
    editions: createEditionRepo(conn),
    readings,
    quizzes: createQuizRepo(conn),
    attempts,
    readDaysRepo,
    async recordReading(userId, date, edition) {
      const recorded = await readings.record(userId, date, edition, 'read');
      await readDaysRepo.mark(userId, [date]);
      return recorded;
    },
    markRecovered: (userId, date) => readDaysRepo.mark(userId, [date]),
    async readDays(userId) {
      const kept = await readDaysRepo.of(userId);
      if (kept?.complete) return new Set(kept.days);
      // Days recorded before the reader's document existed: gathered once from the history. Marks
      // made meanwhile are ORs into the same document, so none is lost.
      const [read, recovered] = await Promise.all([readings.daysRead(userId), attempts.recoveredDays(userId)]);
      const all = new Set([...read, ...recovered, ...(kept?.days ?? [])]);
      await readDaysRepo.mark(userId, all, { complete: true });
      return all;
    },
    async daysBetween(userId, from, to) {
      const [read, made] = await Promise.all([readings.daysRead(userId, { from, to }), attempts.between(userId, from, to)]);
      return { read: new Set([...read, ...made.filter((a) => a.streakRecovered).map((a) => a.date)]), attempts: made };
    },
    now: () => new Date(),
  };
}

export interface QuizDeps extends Infra {
  ai: AiServices;
  quiz: QuizServices;
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
    quiz: createQuizServices(mongo.conn),
  };
}
