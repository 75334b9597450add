/** The Support desk section: the support queue and a ticket's view (support.agent). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const supportSection = defineSection({
  id: 'support',
  path: 'support',
  permission: 'support.agent',
  messages: { en, pt },
  load: () => import('./SupportPage'),
});
