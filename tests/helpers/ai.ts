/** The quiz+AI service in-process against the real stack, the OpenAI double, and per-test users. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createQuizService, makeQuizDeps, type QuizDeps } from '../../api/quiz/service';
import type { Config } from '../../models/config';
import { openAiDoubleControl } from '../doubles/openai-double';
import { startTestService, testConfig, tokenFor, type TestService } from './service';

export type AiService = TestService<QuizDeps>;

export async function startAiService(config?: Config): Promise<AiService> {
  return await startTestService(createQuizService, (i) => makeQuizDeps(i), config ? { config } : {});
}

export function provider() {
  const url = testConfig().ai.baseUrl;
  if (!url) throw new Error('OPENAI_BASE_URL is not set: run through npm test');
  return openAiDoubleControl(url);
}

/** A fresh user (its own rate-limit window and double script) with a token, and an e-mail when given. */
export async function aiUser(permissions = ['ai.view'], email?: string): Promise<{ id: string; auth: string }> {
  const id = `u-${randomUUID().slice(0, 8)}`;
  return { id, auth: `Bearer ${await tokenFor(id, permissions, email)}` };
}

export function post(svc: AiService, path: string, auth: string, body: unknown) {
  return request(svc.callback).post(path).set('Authorization', auth).send(body as object);
}
