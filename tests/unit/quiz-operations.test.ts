/**
 * Submitting an answer sheet, with fakes of the quiz repositories (tests/integration/
 * quiz-quizzes.test.ts proves the wiring and the unique index under concurrency): who may submit,
 * what is stored, and what a pass marks.
 */
import type { AttemptDoc } from '../../models/quiz/attempt.repo';
import { submitAnswers, type QuizOperationDeps } from '../../operations/quiz/quizzes';
import type { QuizDoc } from '../../models/quiz/quiz.rules';

const QUIZ: QuizDoc = {
  _id: 'quiz-2031-03-04',
  date: '2031-03-04',
  edition: 'morning',
  quizDate: '2031-03-04',
  postId: 'edition-2031-03-04-morning',
  title: 'Quiz',
  description: 'Dez perguntas',
  minCorrectAnswers: 6,
  questions: Array.from({ length: 10 }, (_, i) => ({ text: `Q${i}`, options: ['a', 'b', 'c', 'd'], correct: i % 4 })),
  origin: 'manual',
  createdAt: new Date('2031-03-04T10:00:00Z'),
} as QuizDoc;

const right = QUIZ.questions.map((q) => q.correct);
const wrong = QUIZ.questions.map((q) => (q.correct + 1) % 4);

/** Fake repositories on a day (noon in São Paulo), with the reader's readings and attempts so far. */
function fakes(on: string, o: { read?: string[]; attempts?: Partial<AttemptDoc>[]; insertLoses?: boolean } = {}) {
  const inserted: Omit<AttemptDoc, '_id'>[] = [];
  const marked: string[] = [];
  const quiz = {
    editions: {},
    readings: { daysRead: async () => o.read ?? [] },
    quizzes: { get: async (id: string) => (id === QUIZ._id ? QUIZ : null) },
    attempts: {
      between: async () => (o.attempts ?? []) as AttemptDoc[],
      insert: async (doc: Omit<AttemptDoc, '_id'>) => {
        if (o.insertLoses) return false;
        inserted.push(doc);
        return true;
      },
    },
    readDays: { mark: async (_user: string, dates: Iterable<string>) => void marked.push(...dates) },
    now: () => new Date(`${on}T12:00:00-03:00`),
  };
  const deps = { quiz, temporal: { client: {} }, config: { quiz: { timeZone: 'America/Sao_Paulo' }, temporal: { taskQueuePrefix: '' } } } as unknown as QuizOperationDeps;
  return { deps, inserted, marked };
}

const submit = (deps: QuizOperationDeps, answers = right) => submitAnswers(deps, { userId: 'reader-1', quizId: QUIZ._id, answers });

describe('submitting an answer sheet', () => {
  it('a pass is stored as the attempt and recovers the day', async () => {
    const f = fakes('2031-03-06');
    const r = await submit(f.deps);
    expect(r).toMatchObject({ passed: true, correctAnswers: 10 });
    expect(f.inserted).toEqual([expect.objectContaining({ userId: 'reader-1', quizId: QUIZ._id, passed: true, streakRecovered: true, correctAnswers: 10, totalQuestions: 10 })]);
    expect(f.marked).toEqual(['2031-03-04']);
  });

  it('a fail is stored and marks nothing', async () => {
    const f = fakes('2031-03-05');
    await expect(submit(f.deps, wrong)).resolves.toMatchObject({ passed: false, correctAnswers: 0 });
    expect(f.inserted).toHaveLength(1);
    expect(f.marked).toEqual([]);
  });

  it.each([
    ['on its own day', '2031-03-04', 'This quiz opens on 2031-03-05'],
    ['after its three days', '2031-03-08', 'This quiz could be taken until 2031-03-07; it can no longer be submitted'],
  ])('is refused %s, and records nothing', async (_when, on, message) => {
    const f = fakes(on);
    await expect(submit(f.deps)).rejects.toMatchObject({ code: 'FORBIDDEN', message });
    expect(f.inserted).toEqual([]);
  });

  it('is refused for a day already read', async () => {
    const f = fakes('2031-03-05', { read: ['2031-03-04'] });
    await expect(submit(f.deps)).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'You already read the edition of 2031-03-04: there is nothing to recover' });
    expect(f.inserted).toEqual([]);
  });

  it('a second attempt is refused; after a pass it marks the day again (healing a mark lost after the attempt was stored)', async () => {
    const f = fakes('2031-03-05', { attempts: [{ quizId: QUIZ._id, date: QUIZ.date, passed: true, streakRecovered: true }] });
    await expect(submit(f.deps)).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'You have already attempted this quiz' });
    expect(f.inserted).toEqual([]);
    expect(f.marked).toEqual(['2031-03-04']);
  });

  it('losing the race to another submission of the same reader is a refusal, with no mark', async () => {
    const f = fakes('2031-03-05', { insertLoses: true });
    await expect(submit(f.deps)).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'You have already attempted this quiz' });
    expect(f.marked).toEqual([]);
  });

  it('an unknown quiz is 404', async () => {
    const f = fakes('2031-03-05');
    await expect(submitAnswers(f.deps, { userId: 'reader-1', quizId: 'nope', answers: right })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
