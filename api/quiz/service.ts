/** The Quiz and AI Chat API (spec: quiz-ai-chat-api.md): quiz routes, and the AI area under /ai. */
import type { ServiceDefinition } from '../shared/app';
import { aiEnvelope, quizEnvelope } from '../shared/envelope';
import type { Infra } from '../shared/infra';
import { opsRoutes } from '../shared/ops.routes';

export type QuizDeps = Infra;

export const quizService: ServiceDefinition<QuizDeps> = {
  name: 'quiz',
  title: 'Quiz and AI Chat API',
  version: '0.1.0',
  description: 'Streak-recovery quizzes, and AI chat with tools, agents and MCP context providers under /ai.',
  envelope: quizEnvelope,
  // The AI area formats failures as {success:false, error}.
  envelopeRules: [{ prefix: '/ai', envelope: aiEnvelope }],
  routes: [...opsRoutes<QuizDeps>('quiz')],
};

export const makeQuizDeps = (infra: Infra): QuizDeps => infra;
