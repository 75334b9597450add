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
  };
  const draft: QuizDraft = { date: '2031-03-05', edition: 'night', editionTitle: 'Noite de quarta', questions: [], model: 'quiz-model' };
  await expect(saveQuizDraft({ quizzes }, { draft, workflowId: 'quiz-generation-2031-03-05-night' })).resolves.toEqual({ quizId: 'quiz-1', created: false });
  expect(inserted[0]).toMatchObject({ quizDate: '2031-03-05-night', postId: '2031-03-05-night', origin: 'generated', workflowId: 'quiz-generation-2031-03-05-night', model: 'quiz-model', minCorrectAnswers: QUIZ_RULES.minCorrectAnswers });
});
