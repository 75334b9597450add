/**
 * An account's API keys, the use cases (spec §3.1, §5; the dashboard and the API share them):
 * create one (its secret returned once, only its hash stored) and revoke one; listing them is
 * the repository's `listForUser`. Requests
 * with a revoked key get 401 at once on the process that revoked it and within the key cache's
 * seconds elsewhere (docs/decisions.md "API keys and plans cached for seconds").
 */
import { AppError, notFound } from '../../models/errors';
import { uuidFromRequestKey } from '../../models/infra/idempotency.rules';
import type { UserRepo } from '../../models/users/user.repo';
import type { ApiKeyDoc } from '../../models/news/api-key.model';
import type { ApiKeyRepo } from '../../models/news/api-key.repo';
import { hashApiKey, normaliseScopes, resolveExpiry, type KeyMode, type KeyScope } from '../../models/news/api-key.rules';
import { PLAN_LIMITS, planName, type Plan } from '../../models/shared/plan.rules';

export interface ApiKeyDeps {
  apiKeys: Pick<ApiKeyRepo, 'create' | 'createOnce' | 'findForUser' | 'revoke' | 'countActive' | 'discard'>;
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
  /** The request's Idempotency-Key identity: the key's public id derives from it, so a repeat finds the key. */
  requestKey?: string | undefined;
}

/**
 * What a repeat of a key's creation gets (its secret was shown once, to the first answer, and is
 * not stored anywhere): 409 naming the key made, so that a client that never received the first
 * answer can revoke it and create another.
 */
export function keyAlreadyCreated(record: Pick<ApiKeyDoc, 'keyId' | 'name' | 'displayPrefix'>): AppError {
  return new AppError(
    'CONFLICT',
    `An API key was already created by a request with this Idempotency-Key (id ${record.keyId}, ${record.displayPrefix}…). Its secret is shown only once, in the first answer: ` +
      'if that answer was lost, revoke this key and create another with a new Idempotency-Key.',
    { details: { id: record.keyId, name: record.name, prefix: record.displayPrefix } },
  );
}

function tooManyKeys(plan: Plan): AppError {
  const n = PLAN_LIMITS[plan].activeKeys;
  return new AppError('FORBIDDEN', `The ${planName(plan)} plan allows ${n} active API keys (live and test together): revoke one you no longer use, or upgrade the plan`, {
    details: { activeKeysLimit: n },
  });
}

/**
 * Creates a key: the record, and the key itself, which is never shown again. Under a requestKey
 * (an Idempotency-Key) the key's public id derives from it: a repeat finds the key made and
 * creates none (409, keyAlreadyCreated: the secret cannot be shown again).
 *
 * An account holds at most its plan's number of active keys (403 past it). Without transactions
 * the count is checked before and again after the insert: a key that finds itself past the number
 * (two creations racing for the last place) is discarded before anyone saw it, so the account never
 * keeps more; at worst both racers are refused and one retry succeeds.
 */
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
  const user = await deps.users.ensure(input.userId, input.email);
  const plan = user.plan ?? 'starter';
  const allowed = PLAN_LIMITS[plan].activeKeys;
  const fields = { userId: input.userId, name: input.name, mode: input.mode, scopes, expiresAt };
  let made: { key: string; record: ApiKeyDoc };
  if (!input.requestKey) {
    if ((await deps.apiKeys.countActive(input.userId, deps.now())) >= allowed) throw tooManyKeys(plan);
    made = await deps.apiKeys.create(fields);
  } else {
    const once = await deps.apiKeys.createOnce({ ...fields, keyId: uuidFromRequestKey(input.requestKey, 'api-key') }, async () => {
      if ((await deps.apiKeys.countActive(input.userId, deps.now())) >= allowed) throw tooManyKeys(plan);
    });
    if (once.record.userId !== input.userId) throw new AppError('CONFLICT', 'This Idempotency-Key cannot be used: send a new one');
    if (once.key === null) throw keyAlreadyCreated(once.record);
    made = once;
  }
  if ((await deps.apiKeys.countActive(input.userId, deps.now())) > allowed) {
    await deps.apiKeys.discard(hashApiKey(made.key));
    throw tooManyKeys(plan);
  }
  return made;
}

/** Revokes one of the account's keys (404 for another account's); revoking twice is harmless. */
export async function revokeApiKey(deps: Pick<ApiKeyDeps, 'apiKeys' | 'now'>, userId: string, keyId: string): Promise<ApiKeyDoc> {
  const key = (await deps.apiKeys.findForUser(userId, keyId)) ?? notFound('API key');
  await deps.apiKeys.revoke(key._id);
  return { ...key, revokedAt: key.revokedAt ?? deps.now() };
}
