/** The Reports section: the support reports (support.manager). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const reportsSection = defineSection({
  id: 'reports',
  path: 'reports',
  permission: 'support.manager',
  messages: { en, pt },
  load: () => import('./ReportsPage'),
});
