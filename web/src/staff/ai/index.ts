/** The AI section: the AI registry (ai.edit). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const aiSection = defineSection({
  id: 'ai',
  path: 'ai',
  permission: 'ai.edit',
  messages: { en, pt },
  load: () => import('./AiPage'),
});
