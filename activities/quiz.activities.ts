/**
 * Quiz generation (issue 12): find a quiz, have the model write one from its edition, store it.
 * Each is one Temporal activity, so a failure repeats only its own step: a stored draft is not
 * asked for again, and a model answer that fails the checks is asked for again (retryable), while
 * a missing edition or AI provider ends that quiz's generation with its reason (non-retryable).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import { classifyLlmError, type LlmClient } from '../models/infra/llm';
import type { Edition } from '../models/quiz/calendar.rules';
import { createEditionRepo } from '../models/quiz/edition.repo';
import { editionId } from '../models/quiz/edition.rules';
import { createQuizRepo } from '../models/quiz/quiz.repo';
import { MODEL_QUIZ_SCHEMA, QUIZ_FAILURES, QUIZ_RULES, quizDescription, quizPrompt, quizTitle, readModelQuiz, type QuizQuestion } from '../models/quiz/quiz.rules';
import { quizDateOf } from '../models/quiz/calendar.rules';
import { toApplicationFailure } from './ai.activities';

export interface QuizActivityDeps {
  conn: Connection;
  llm: LlmClient;
  model: string;
}

export interface QuizDraft {
  date: string;
  edition: Edition;
  editionTitle: string;
  questions: QuizQuestion[];
  model: string;
}

export function createQuizActivities(deps: QuizActivityDeps) {
  const quizzes = createQuizRepo(deps.conn);
  const editions = createEditionRepo(deps.conn);
  return {
    /** The quiz of a day and edition, if there is one. */
    async findQuiz(input: { date: string; edition: Edition }): Promise<{ quizId: string } | null> {
      const found = await quizzes.find(input.date, input.edition);
      return found ? { quizId: found._id } : null;
    },

    /** The model's quiz from the edition, checked (10 questions, 4 options, one correct, quoted evidence). */
    async draftQuiz(input: { date: string; edition: Edition }): Promise<QuizDraft> {
      const edition = await editions.get(input.date, input.edition);
      if (!edition) {
        throw ApplicationFailure.create({ type: QUIZ_FAILURES.editionMissing, nonRetryable: true, message: `no edition ${editionId(input.date, input.edition)} is stored` });
      }
      const prompt = quizPrompt(edition);
      const ctx = Context.current();
      let content: string;
      try {
        const reply = await deps.llm.complete(
          {
            model: deps.model,
            messages: [
              { role: 'system', content: prompt.system },
              { role: 'user', content: prompt.user },
            ],
            temperature: 0.4,
            responseFormat: { type: 'json_schema', name: 'edition_quiz', schema: MODEL_QUIZ_SCHEMA as unknown as Record<string, unknown>, strict: true },
            // Who the call is for, as the provider sees it (and how the test double scripts it).
            user: `quiz-generation:${quizDateOf(input.date, input.edition)}`,
          },
          { signal: ctx.cancellationSignal },
        );
        content = reply.content;
      } catch (err) {
        throw toApplicationFailure(classifyLlmError(err));
      }
      const read = readModelQuiz(content, edition.text);
      if ('problems' in read) {
        ctx.log.warn('model answer refused', { attempt: ctx.info.attempt, problems: read.problems });
        throw ApplicationFailure.create({ type: QUIZ_FAILURES.invalidModelOutput, message: `the model's quiz was refused: ${read.problems.join('; ')}` });
      }
      return { date: input.date, edition: input.edition, editionTitle: edition.title, questions: read.questions, model: deps.model };
    },

    /** Stores a draft unless the day and edition has a quiz by now; gives the quiz that stands. */
    async saveQuiz(input: { draft: QuizDraft; workflowId: string }): Promise<{ quizId: string; created: boolean }> {
      const { draft } = input;
      const { doc, created } = await quizzes.insert({
        date: draft.date,
        edition: draft.edition,
        quizDate: quizDateOf(draft.date, draft.edition),
        postId: editionId(draft.date, draft.edition),
        title: quizTitle(draft.date, draft.edition),
        description: quizDescription(draft.editionTitle),
        minCorrectAnswers: QUIZ_RULES.minCorrectAnswers,
        questions: draft.questions,
        origin: 'generated',
        workflowId: input.workflowId,
        model: draft.model,
      });
      return { quizId: doc._id, created };
    },
  };
}
