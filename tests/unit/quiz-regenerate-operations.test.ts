/**
 * Regenerating a quiz (operations/quiz/quizzes.ts regenerateQuiz) with a fake Temporal client: what
 * it asks the generation workflow, and what each outcome means to the admin. The workflow's side is
 * tests/workflows/quiz.workflow.test.ts; the whole on the real stack, tests/integration/quiz-schedule.test.ts.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { QuizDoc } from '../../models/quiz/quiz.rules';
import { QUIZ_FAILURES } from '../../models/quiz/quiz.rules';
import { regenerateQuiz, type QuizOperationDeps } from '../../operations/quiz/quizzes';
import type { QuizGenerationResult } from '../../workflows/quiz/generation.workflow';

const QUIZ = { _id: 'old-quiz', date: '2031-03-04', edition: 'night', quizDate: '2031-03-04-night', origin: 'generated' } as QuizDoc;

function fakes(outcome: QuizGenerationResult | Error) {
  const executed: { workflowId: string; workflowIdConflictPolicy: string; taskQueue: string; args: unknown[] }[] = [];
  const deps = {
    quiz: { quizzes: { get: async (id: string) => (id === QUIZ._id ? QUIZ : null) } },
    temporal: {
      client: {
        workflow: {
          execute: async (_fn: unknown, options: (typeof executed)[number]) => {
            executed.push(options);
            if (outcome instanceof Error) throw outcome;
            return outcome;
          },
        },
      },
    },
    config: { quiz: { timeZone: 'America/Sao_Paulo' }, temporal: { taskQueuePrefix: 'p-' } },
  } as unknown as QuizOperationDeps;
  return { deps, executed };
}

describe('regenerating a quiz', () => {
  it("runs the quiz's generation replacing it, never joining one under way, and answers the new quiz", async () => {
    const f = fakes({ quizDate: '2031-03-04-night', status: 'replaced', quizId: 'new-quiz' });
    await expect(regenerateQuiz(f.deps, 'old-quiz')).resolves.toEqual({
      quizId: 'new-quiz',
      replacedQuizId: 'old-quiz',
      date: '2031-03-04',
      quizDate: '2031-03-04-night',
      edition: 'night',
      workflowId: 'quiz-generation-2031-03-04-night',
    });
    expect(f.executed).toEqual([
      expect.objectContaining({ workflowId: 'quiz-generation-2031-03-04-night', workflowIdConflictPolicy: 'FAIL', taskQueue: 'p-quiz-generation', args: [{ date: '2031-03-04', edition: 'night', replaces: 'old-quiz' }] }),
    ]);
  });

  it('is 404 for an unknown quiz, asking Temporal nothing', async () => {
    const f = fakes({ quizDate: 'x', status: 'replaced', quizId: 'x' });
    await expect(regenerateQuiz(f.deps, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(f.executed).toEqual([]);
  });

  it('is 409 while another generation of the quiz runs (the schedule\'s)', async () => {
    const f = fakes(new WorkflowExecutionAlreadyStartedError('already started', 'quiz-generation-2031-03-04-night', 'quizGenerationWorkflow'));
    await expect(regenerateQuiz(f.deps, 'old-quiz')).rejects.toMatchObject({ code: 'CONFLICT', details: { reason: 'generation_running', workflowId: 'quiz-generation-2031-03-04-night' } });
  });

  it('is 409 when the quiz was replaced meanwhile (another quiz stands)', async () => {
    const f = fakes({ quizDate: '2031-03-04-night', status: 'exists', quizId: 'someone-elses' });
    await expect(regenerateQuiz(f.deps, 'old-quiz')).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/replaced meanwhile \(now someone-elses\)/) });
  });

  it('is 400 when the edition is not stored, and 503 when the provider could not write it (the old quiz stands)', async () => {
    const missing = fakes({ quizDate: '2031-03-04-night', status: 'skipped', failure: QUIZ_FAILURES.editionMissing, reason: 'no edition 2031-03-04-night is stored' });
    await expect(regenerateQuiz(missing.deps, 'old-quiz')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/no edition 2031-03-04-night is stored/) });
    const provider = fakes({ quizDate: '2031-03-04-night', status: 'skipped', failure: 'AI_UNAVAILABLE', reason: 'the model failed every attempt' });
    await expect(regenerateQuiz(provider.deps, 'old-quiz')).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });

  it('is 503 when Temporal cannot be reached', async () => {
    const f = fakes(Object.assign(new Error('14 UNAVAILABLE'), { name: 'ServiceError' }));
    await expect(regenerateQuiz(f.deps, 'old-quiz')).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });
});
