/** The activities the quiz generation workflows call (implemented by activities/quiz.activities.ts). */
import type { Edition } from '../../models/quiz/calendar.rules';
import type { QuizDraft } from '../../models/quiz/quiz.rules';

export interface QuizActivities {
  findQuiz(input: { date: string; edition: Edition }): Promise<{ quizId: string } | null>;
  draftQuiz(input: { date: string; edition: Edition }): Promise<QuizDraft>;
  /** `replaces`: the quiz the draft takes the place of (a regeneration), deleted first. */
  saveQuiz(input: { draft: QuizDraft; workflowId: string; replaces?: string }): Promise<{ quizId: string; created: boolean }>;
}
