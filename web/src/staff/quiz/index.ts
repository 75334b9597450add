/** The Quiz section: quiz administration (quiz.admin). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const quizSection = defineSection({
  id: 'quiz',
  path: 'quiz',
  permission: 'quiz.admin',
  messages: { en, pt },
  load: () => import('./QuizPage'),
});
