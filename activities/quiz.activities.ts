/**
 * Quiz generation (issue 12): find a quiz, have the model write one from its edition, store it
 * (the use cases: operations/quiz/generation.ts). Each is one Temporal activity, so a
 * failure repeats only its own step: a stored draft is not asked for again, and a model answer
 * that fails the checks is asked for again (retryable), while a missing edition or AI provider
 * ends that quiz's generation with its reason (non-retryable).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import { LlmError, type LlmClient } from '../models/infra/llm';
import type { Edition } from '../models/quiz/calendar.rules';
import { createEditionRepo } from '../models/quiz/edition.repo';
import type { QuizDraft } from '../models/quiz/quiz.rules';
import { draftQuiz, EditionMissing, QuizRefused, saveQuizDraft } from '../operations/quiz/generation';
import { createQuizRepo } from '../models/quiz/quiz.repo';
import { QUIZ_FAILURES } from '../models/quiz/quiz.rules';
import { toApplicationFailure } from './ai.activities';
import type { QuizActivities } from '../workflows/quiz/activities';


export interface QuizActivityDeps {
  conn: Connection;
  llm: LlmClient;
  model: string;
}

export function createQuizActivities(deps: QuizActivityDeps): QuizActivities {
  const quizzes = createQuizRepo(deps.conn);
  const editions = createEditionRepo(deps.conn);
  return {
    /** The quiz of a day and edition, if there is one. */
    async findQuiz(input: { date: string; edition: Edition }): Promise<{ quizId: string } | null> {
      const found = await quizzes.find(input.date, input.edition);
      return found ? { quizId: found._id } : null;
    },

    /** The model's quiz from the edition, checked (operations/quiz/generation.ts). */
    async draftQuiz(input: { date: string; edition: Edition }): Promise<QuizDraft> {
      try {
        return await draftQuiz({ editions, llm: deps.llm, model: deps.model }, input, Context.current().cancellationSignal);
      } catch (err) {
        if (err instanceof EditionMissing) throw ApplicationFailure.create({ type: QUIZ_FAILURES.editionMissing, nonRetryable: true, message: err.message });
        if (err instanceof QuizRefused) {
          const ctx = Context.current();
          ctx.log.warn('model answer refused', { attempt: ctx.info.attempt, problems: err.problems });
          throw ApplicationFailure.create({ type: QUIZ_FAILURES.invalidModelOutput, message: err.message });
        }
        throw err instanceof LlmError ? toApplicationFailure(err) : err;
      }
    },

    /** Stores a draft unless the day and edition has a quiz by now (in place of `replaces`, deleted first); gives the quiz that stands. */
    async saveQuiz(input: { draft: QuizDraft; workflowId: string; replaces?: string }): Promise<{ quizId: string; created: boolean }> {
      return await saveQuizDraft({ quizzes }, input);
    },
  };
}
