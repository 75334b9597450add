/**
 * Writing a day's quiz (issue 12), the use cases the quiz generation workflow's activities run:
 * the model drafts one from the stored edition (10 questions, 4 options, one correct, quoted
 * evidence, all checked), and the draft is stored unless the day and edition has a quiz by now.
 * Each is one step, so a failure repeats only its own: a stored draft is not asked for again.
 */
import { classifyLlmError, type LlmClient } from '../../models/infra/llm';
import { quizDateOf, type Edition } from '../../models/quiz/calendar.rules';
import type { EditionRepo } from '../../models/quiz/edition.repo';
import { editionId } from '../../models/quiz/edition.rules';
import type { QuizRepo } from '../../models/quiz/quiz.repo';
import { MODEL_QUIZ_SCHEMA, QUIZ_RULES, quizDescription, quizPrompt, quizTitle, readModelQuiz, type QuizDraft } from '../../models/quiz/quiz.rules';


export interface QuizDraftDeps {
  editions: Pick<EditionRepo, 'get'>;
  llm: Pick<LlmClient, 'complete'>;
  /** The model that writes quizzes. */
  model: string;
}

/** No edition is stored for the day asked: nothing to write a quiz from (asking again will not help). */
export class EditionMissing extends Error {
  override name = 'EditionMissing';
}

/** The model's quiz broke the checks (another answer may pass them). */
export class QuizRefused extends Error {
  override name = 'QuizRefused';
  constructor(readonly problems: string[]) {
    super(`the model's quiz was refused: ${problems.join('; ')}`);
  }
}

/**
 * The model's quiz from the edition, checked. Throws EditionMissing, QuizRefused, and the
 * provider's failure as an LlmError (classified: models/infra/llm.ts).
 */
export async function draftQuiz(deps: QuizDraftDeps, input: { date: string; edition: Edition }, signal?: AbortSignal): Promise<QuizDraft> {
  const edition = await deps.editions.get(input.date, input.edition);
  if (!edition) throw new EditionMissing(`no edition ${editionId(input.date, input.edition)} is stored`);
  const prompt = quizPrompt(edition);
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
      signal ? { signal } : {},
    );
    content = reply.content;
  } catch (err) {
    throw classifyLlmError(err);
  }
  const read = readModelQuiz(content, edition.text);
  if ('problems' in read) throw new QuizRefused(read.problems);
  return { date: input.date, edition: input.edition, editionTitle: edition.title, questions: read.questions, model: deps.model };
}

/**
 * Stores a draft unless the day and edition has a quiz by now; gives the quiz that stands. With
 * `replaces` (a regeneration) that quiz is deleted first, so the draft takes its place; done again
 * (the activity retried after the insert), it finds its own quiz, made under its workflow id, and
 * says created. Another writer's quiz that got in between stands (`created` false).
 */
export async function saveQuizDraft(
  deps: { quizzes: Pick<QuizRepo, 'insert' | 'delete'> },
  input: { draft: QuizDraft; workflowId: string; replaces?: string | undefined },
): Promise<{ quizId: string; created: boolean }> {
  const { draft } = input;
  if (input.replaces !== undefined) await deps.quizzes.delete(input.replaces);
  const { doc, created } = await deps.quizzes.insert({
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
  // Runs of one quiz's generation never overlap (its workflow id): a quiz of this id made after the deletion is this run's.
  const ours = input.replaces !== undefined && !created && doc.origin === 'generated' && doc.workflowId === input.workflowId && doc._id !== input.replaces;
  return { quizId: doc._id, created: created || ours };
}
