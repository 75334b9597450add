/**
 * What the quiz + AI service's routes use, built once per process: the quiz store
 * (api/shared/bundles.ts), the daily quiz schedule's port, and the AI services.
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { dependencyUnavailable } from '../../models/errors';
import { createAiRegistryRepo, type AiRegistryRepo } from '../../models/ai/registry.repo';
import { createAiUsageRepo, type AiUsageRepo } from '../../models/ai/usage.repo';
import { createLlmClient, type LlmClient } from '../../models/infra/llm';
import { createOutbound, type Outbound } from '../../models/infra/outbound';
import type { QuizSchedulePort } from '../../operations/quiz/schedule';
import { quizScheduleId } from '../../workflows/ids';
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
  /** The daily quiz generation schedule (operations/quiz/schedule.ts). */
  quizSchedule: QuizSchedulePort;
}

/** How long one call about the schedule may take: Temporal away is a 503 in seconds, not after the client's retries. */
const SCHEDULE_CALL_MS = 3_000;

const CLOSED = new Set(['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED']);

/** The port over the deployment's daily quiz schedule (its handle) and the runs it started. */
export function quizSchedulePort(infra: Pick<Infra, 'config' | 'temporal'>): QuizSchedulePort {
  const { client, connection } = infra.temporal;
  const scheduleId = quizScheduleId(infra.config.temporal.taskQueuePrefix);
  const handle = client.schedule.getHandle(scheduleId);
  // The deadline bounds the call; the timer bounds the wait for it too (a first call on a lazy
  // connection to an unreachable server was seen to take 5 s with a 3 s deadline).
  const bounded = async <T>(call: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        connection.withDeadline(Date.now() + SCHEDULE_CALL_MS, call),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(dependencyUnavailable('temporal')), SCHEDULE_CALL_MS + 100);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    scheduleId,
    describe: () => bounded(() => handle.describe()),
    pause: (note) => bounded(() => handle.pause(note)),
    unpause: (note) => bounded(() => handle.unpause(note)),
    trigger: (overlap) => bounded(() => handle.trigger(overlap)),
    async run(workflowId, runId) {
      const run = client.workflow.getHandle(workflowId, runId, { followRuns: false });
      try {
        const described = await bounded(() => run.describe());
        const state = { status: described.status.name, closedAt: described.closeTime };
        // Only a closed run has a result or a failure to read (not one continued as new, or running).
        if (!CLOSED.has(described.status.name)) return state;
        try {
          return { ...state, result: await bounded(() => run.result()) };
        } catch (err) {
          if (err instanceof WorkflowFailedError) return { ...state, failure: err.cause?.message ?? err.message };
          throw err;
        }
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
    },
  };
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
    quizSchedule: quizSchedulePort(infra),
  };
}
