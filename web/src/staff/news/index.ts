/** The News section: news administration: sources, articles, curation (news.admin). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const newsSection = defineSection({
  id: 'news',
  path: 'news',
  permission: 'news.admin',
  messages: { en, pt },
  load: () => import('./NewsPage'),
});
