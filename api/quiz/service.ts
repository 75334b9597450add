/** The Quiz and AI Chat API (spec: quiz-ai-chat-api.md): quiz routes, and the AI area under /ai. */
import type { Config } from '../../models/config';
import type { ServiceDefinition } from '../shared/app';
import { aiEnvelope, quizEnvelope } from '../shared/envelope';
import { opsRoutes } from '../shared/ops.routes';
import { chatRoutes } from '../ai/chat.routes';
import { registryRoutes } from '../ai/registry.routes';
import type { QuizDeps } from './deps';
import { editionRoutes } from './editions.routes';
import { quizRoutes } from './quizzes.routes';
import { readingRoutes } from './readings.routes';
import { scheduleRoutes } from './schedule.routes';
import { quizDescription, quizTags } from './reference';

export { makeQuizDeps, type QuizDeps } from './deps';

export function createQuizService(config: Config): ServiceDefinition<QuizDeps> {
  const limits = { models: config.ai.models, maxTokens: config.ai.maxTokens };
  return {
    name: 'quiz',
    title: 'Quiz and AI Chat API',
    version: '0.1.0',
    description: quizDescription,
    tagDescriptions: quizTags,
    envelope: quizEnvelope,
    // The AI area formats failures as {success:false, error}.
    envelopeRules: [{ prefix: '/ai', envelope: aiEnvelope }],
    // The schedule's fixed paths before quizRoutes' /quiz/admin/:id.
    routes: [...readingRoutes, ...editionRoutes, ...scheduleRoutes, ...quizRoutes, ...chatRoutes(limits), ...registryRoutes(limits), ...opsRoutes<QuizDeps>('quiz')],
  };
}
