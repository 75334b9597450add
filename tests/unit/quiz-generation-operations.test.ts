/**
 * Writing a day's quiz, the use cases, with fakes of their dependencies (tests/integration/
 * quiz-generation.test.ts and quiz-week.test.ts prove the wiring): what the model is asked, which
 * answers are kept, and what a missing edition, a refused answer and a failing provider are.
 */
import { LlmError, type LlmRequest } from '../../models/infra/llm';
import type { EditionDoc } from '../../models/quiz/edition.rules';
import type { QuizDraft } from '../../models/quiz/quiz.rules';
import { draftQuiz, EditionMissing, QuizRefused, saveQuizDraft } from '../../operations/quiz/generation';
import { QUIZ_RULES } from '../../models/quiz/quiz.rules';
import { editionText, modelQuiz } from '../helpers/quiz';

const text = editionText('05/03/2031');
const edition = { _id: '2031-03-05-night', date: '2031-03-05', edition: 'night', title: 'Noite de quarta', text } as unknown as EditionDoc;

function fakes(answer: () => Promise<string>, stored: EditionDoc | null = edition) {
  const asked: { req: LlmRequest; signal: AbortSignal | undefined }[] = [];
  const deps = {
    editions: { get: async () => stored },
    llm: {
      async complete(req: LlmRequest, opts?: { signal?: AbortSignal }) {
        asked.push({ req, signal: opts?.signal });
        return { content: await answer(), model: 'quiz-model', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } as never;
      },
    },
    model: 'quiz-model',
  };
  return { deps, asked };
}

const day = { date: '2031-03-05', edition: 'night' as const };

describe('drafting a quiz', () => {
  it('asks the model for the edition’s quiz in the strict format, as the day’s generation, and keeps its checked questions', async () => {
    const f = fakes(async () => modelQuiz(text));
    const signal = new AbortController().signal;
    const draft = await draftQuiz(f.deps, day, signal);
    expect(draft).toMatchObject({ date: '2031-03-05', edition: 'night', editionTitle: 'Noite de quarta', model: 'quiz-model' });
    expect(draft.questions).toHaveLength(QUIZ_RULES.totalQuestions);
    const [{ req, signal: sent }] = f.asked as [(typeof f.asked)[number]];
    expect(sent).toBe(signal);
    expect(req).toMatchObject({ model: 'quiz-model', temperature: 0.4, user: 'quiz-generation:2031-03-05-night', responseFormat: { type: 'json_schema', name: 'edition_quiz', strict: true } });
    expect(req.messages[1]!.content).toContain('O Copom manteve a Selic');
  });

  it('refuses an answer that breaks the checks, saying what was wrong (asking again may help)', async () => {
    const f = fakes(async () => modelQuiz(text, 9));
    const err = await draftQuiz(f.deps, day).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuizRefused);
    expect((err as QuizRefused).problems.join(' ')).toContain('questions');
  });

  it('a day without its edition is EditionMissing, and the model is not asked', async () => {
    const f = fakes(async () => modelQuiz(text), null);
    await expect(draftQuiz(f.deps, day)).rejects.toThrow(new EditionMissing('no edition 2031-03-05-night is stored'));
    expect(f.asked).toEqual([]);
  });

  it('a provider failure is thrown classified', async () => {
    const f = fakes(async () => Promise.reject(new Error('socket hang up')));
    await expect(draftQuiz(f.deps, day)).rejects.toEqual(new LlmError('unavailable', 'AI provider call failed: socket hang up'));
  });
});

it('saving a draft stores the quiz of its day and edition, and gives the one that stands', async () => {
  const inserted: unknown[] = [];
  const quizzes = {
    async insert(fields: Record<string, unknown>) {
      inserted.push(fields);
      return { doc: { _id: 'quiz-1', ...fields }, created: false } as never;
    },
    delete: async () => {
      throw new Error('nothing is deleted without replaces');
    },
  };
  const draft: QuizDraft = { date: '2031-03-05', edition: 'night', editionTitle: 'Noite de quarta', questions: [], model: 'quiz-model' };
  await expect(saveQuizDraft({ quizzes }, { draft, workflowId: 'quiz-generation-2031-03-05-night' })).resolves.toEqual({ quizId: 'quiz-1', created: false });
  expect(inserted[0]).toMatchObject({ quizDate: '2031-03-05-night', postId: '2031-03-05-night', origin: 'generated', workflowId: 'quiz-generation-2031-03-05-night', model: 'quiz-model', minCorrectAnswers: QUIZ_RULES.minCorrectAnswers });
});

describe('saving a regenerated draft (replaces)', () => {
  const draft: QuizDraft = { date: '2031-03-05', edition: 'night', editionTitle: 'Noite de quarta', questions: [], model: 'quiz-model' };
  const workflowId = 'quiz-generation-2031-03-05-night';
  /** A one-quiz store: the quiz of the day and edition, if any. */
  function store(standing: Record<string, unknown> | null) {
    let quiz = standing;
    const calls: string[] = [];
    return {
      calls,
      current: () => quiz,
      quizzes: {
        async delete(id: string) {
          calls.push(`delete ${id}`);
          if (quiz?._id !== id) return false;
          quiz = null;
          return true;
        },
        async insert(fields: Record<string, unknown>) {
          calls.push('insert');
          if (quiz) return { doc: quiz, created: false } as never;
          quiz = { _id: 'new-quiz', ...fields };
          return { doc: quiz, created: true } as never;
        },
      },
    };
  }

  it('deletes the quiz it replaces, then stores the draft in its place', async () => {
    const s = store({ _id: 'old-quiz', origin: 'generated', workflowId });
    await expect(saveQuizDraft(s, { draft, workflowId, replaces: 'old-quiz' })).resolves.toEqual({ quizId: 'new-quiz', created: true });
    expect(s.calls).toEqual(['delete old-quiz', 'insert']);
  });

  it('done again after its insert (a retried activity), finds its own quiz and says created', async () => {
    const s = store({ _id: 'old-quiz', origin: 'manual' });
    await saveQuizDraft(s, { draft, workflowId, replaces: 'old-quiz' });
    await expect(saveQuizDraft(s, { draft, workflowId, replaces: 'old-quiz' })).resolves.toEqual({ quizId: 'new-quiz', created: true });
  });

  it("leaves another writer's quiz that got in between standing (created false)", async () => {
    const s = store({ _id: 'old-quiz', origin: 'generated', workflowId });
    s.quizzes.delete = async (id: string) => {
      s.calls.push(`delete ${id}`);
      return true;
    };
    // The old one is gone, and an admin's hand-written quiz took the day before the insert.
    const racing = store({ _id: 'admins-quiz', origin: 'manual' });
    await expect(saveQuizDraft({ quizzes: { delete: s.quizzes.delete, insert: racing.quizzes.insert } }, { draft, workflowId, replaces: 'old-quiz' })).resolves.toEqual({ quizId: 'admins-quiz', created: false });
  });
});
