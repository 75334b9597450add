/** The Operations section: platform operations (platform.ops). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const opsSection = defineSection({
  id: 'ops',
  path: 'ops',
  permission: 'platform.ops',
  messages: { en, pt },
  load: () => import('./OpsPage'),
});
