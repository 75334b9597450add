/**
 * An account's API keys, the use cases (spec §3.1, §5; the dashboard and the API share them):
 * create one (its secret returned once, only its hash stored) and revoke one; listing them is
 * the repository's `listForUser`. Requests
 * with a revoked key get 401 at once on the process that revoked it and within the key cache's
 * seconds elsewhere (docs/decisions.md "API keys and plans cached for seconds").
 */
import { AppError, notFound } from '../../errors';
import type { UserRepo } from '../../users/user.repo';
import type { ApiKeyDoc } from '../api-key.model';
import type { ApiKeyRepo } from '../api-key.repo';
import { normaliseScopes, resolveExpiry, type KeyMode, type KeyScope } from '../api-key.rules';

export interface ApiKeyDeps {
  apiKeys: ApiKeyRepo;
  users: Pick<UserRepo, 'ensure'>;
  now: () => Date;
}

export interface NewKey {
  userId: string;
  email: string | undefined;
  name: string;
  mode: KeyMode;
  /** none, 30d, 90d, 1y, or a date YYYY-MM-DD (the end of that day, UTC). */
  expiry: string;
  /** None given means every scope. */
  scopes?: string[] | undefined;
}

/** Creates a key: the record, and the key itself, which is never shown again. */
export async function createApiKey(deps: ApiKeyDeps, input: NewKey): Promise<{ key: string; record: ApiKeyDoc }> {
  let expiresAt: Date | null;
  let scopes: KeyScope[];
  try {
    expiresAt = resolveExpiry(input.expiry, deps.now());
    scopes = normaliseScopes(input.scopes);
  } catch (err) {
    const message = (err as Error).message;
    throw new AppError('VALIDATION_FAILED', message, { details: [{ path: /scope/.test(message) ? 'body.scopes' : 'body.expiry', message }] });
  }
  await deps.users.ensure(input.userId, input.email);
  return await deps.apiKeys.create({ userId: input.userId, name: input.name, mode: input.mode, scopes, expiresAt });
}

/** Revokes one of the account's keys (404 for another account's); revoking twice is harmless. */
export async function revokeApiKey(deps: Pick<ApiKeyDeps, 'apiKeys' | 'now'>, userId: string, keyId: string): Promise<ApiKeyDoc> {
  const key = (await deps.apiKeys.findForUser(userId, keyId)) ?? notFound('API key');
  await deps.apiKeys.revoke(key._id);
  return { ...key, revokedAt: key.revokedAt ?? deps.now() };
}
