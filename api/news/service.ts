/** The News Intelligence API (spec: news-intelligence-api.md). */
import type { ServiceDefinition } from '../shared/app';
import { newsEnvelope } from '../shared/envelope';
import type { Infra } from '../shared/infra';
import { opsRoutes } from '../shared/ops.routes';

export type NewsDeps = Infra;

export const newsService: ServiceDefinition<NewsDeps> = {
  name: 'news',
  title: 'News Intelligence API',
  version: '0.1.0',
  description: 'Articles, search, entities, preferences and a personalised feed behind tiered API keys.',
  envelope: newsEnvelope,
  routes: [...opsRoutes<NewsDeps>('news')],
};

export const makeNewsDeps = (infra: Infra): NewsDeps => infra;
