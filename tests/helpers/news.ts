/** The news service in-process, and accounts with API keys on a given plan. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeNewsDeps, newsService, type NewsDeps } from '../../api/news/service';
import type { KeyMode, KeyScope } from '../../models/news/api-key.rules';
import type { Plan } from '../../models/news/plan.rules';
import { startTestService, testConfig, tokenFor, type TestService } from './service';

export type NewsService = TestService<NewsDeps>;

export const startNewsService = (env: Record<string, string> = {}) => startTestService(newsService, makeNewsDeps, { config: testConfig(env) });

/** A new account on `plan` with one key (live, all scopes unless said). */
export async function accountWithKey(
  svc: NewsService,
  plan: Plan,
  options: { mode?: KeyMode; scopes?: KeyScope[]; expiresAt?: Date | null } = {},
): Promise<{ userId: string; key: string; keyId: string; jwt: string }> {
  const userId = `news-${plan}-${randomUUID().slice(0, 8)}`;
  await svc.deps.users.setPlan(userId, plan);
  const { key, record } = await svc.deps.apiKeys.create({ userId, name: 'test', mode: options.mode ?? 'live', scopes: options.scopes ?? ['*'], expiresAt: options.expiresAt ?? null });
  return { userId, key, keyId: record.keyId, jwt: await tokenFor(userId, [], `${userId}@example.com`) };
}

export const withKey = (svc: NewsService, key: string, path: string) => request(svc.callback).get(path).set('X-API-Key', key);
