/**
 * Readers' browsers for breaking alerts by Web Push (issue 40): subscribe one (the subscription a
 * browser's PushManager made), list them, remove one. A subscription comes from a browser, that is
 * from anyone, and the worker will POST to its endpoint: it is refused (400, nothing stored) when
 * the endpoint is not https, names credentials, is not a known push service in production
 * (pushEndpointRefusal), or resolves to a loopback, private or link-local address not on the
 * allow-list (checkedAddresses, the fetcher's SSRF rules); and when its keys cannot be encrypted
 * to (subscriptionKeysRefusal). A reader has at most PUSH_SUBSCRIPTIONS_PER_READER browsers (409).
 */
import { AppError, notFound } from '../../models/errors';
import { FetchError } from '../../models/infra/polite-fetch.rules';
import { checkedAddresses, type Lookup } from '../../models/infra/safe-connect';
import { pushEndpointRefusal, subscriptionKeysRefusal } from '../../models/infra/web-push.rules';
import { pushSubscriptionId, type PushSubscriptionDoc, type PushSubscriptionRepo } from '../../models/news/push-subscription.repo';
import { browserLabel, PUSH_SUBSCRIPTIONS_PER_READER } from '../../models/news/push-subscription.rules';

export interface PushSubscriptionDeps {
  pushSubscriptions: Pick<PushSubscriptionRepo, 'get' | 'insert' | 'refresh' | 'countForUser' | 'listForUser' | 'remove'>;
  /** Undefined when Web Push is not configured here (503). */
  webPush: { publicKey: string; allowHosts: readonly string[]; production: boolean } | undefined;
  lookup?: Lookup | undefined;
  now: () => Date;
}

/** How long a subscription waits for DNS before its host is refused as unresolvable. */
const RESOLVE_TIMEOUT_MS = 5_000;

const refused = (reason: string) => new AppError('VALIDATION_FAILED', `This push subscription is refused: ${reason}`, { details: { field: 'endpoint', reason } });

function configured(deps: Pick<PushSubscriptionDeps, 'webPush'>): NonNullable<PushSubscriptionDeps['webPush']> {
  if (!deps.webPush) throw new AppError('DEPENDENCY_UNAVAILABLE', 'Web Push is not set up on this deployment', { details: { dependency: 'web push' } });
  return deps.webPush;
}

/** Throws 400 when the subscription may not be stored (its endpoint or its keys). */
export async function checkPushSubscription(deps: Pick<PushSubscriptionDeps, 'webPush' | 'lookup'>, subscription: { endpoint: string; keys: { p256dh: string; auth: string } }): Promise<void> {
  const policy = configured(deps);
  const refusal = pushEndpointRefusal(subscription.endpoint, policy);
  if (refusal) throw refused(refusal);
  const keys = subscriptionKeysRefusal(subscription.keys);
  if (keys) throw new AppError('VALIDATION_FAILED', `This push subscription is refused: ${keys}`, { details: { field: 'keys', reason: keys } });
  const url = new URL(subscription.endpoint);
  try {
    await checkedAddresses(url, { allowHosts: policy.allowHosts, lookup: deps.lookup, signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
  } catch (err) {
    if (err instanceof FetchError && err.code === 'refused') throw refused(`${err.message}; push services are on public addresses`);
    throw refused(`cannot resolve the host ${url.hostname}`);
  }
}

const tooMany = () =>
  new AppError('CONFLICT', `At most ${PUSH_SUBSCRIPTIONS_PER_READER} browsers receive alerts: remove one you no longer use`, { details: { pushSubscriptionsLimit: PUSH_SUBSCRIPTIONS_PER_READER } });

/**
 * Stores a browser's subscription for the reader. The same endpoint again is the same browser:
 * its keys and label are refreshed (201 either way, one document). An endpoint stored for another
 * reader moves to this one only with the same keys (the browser, now signed in to this account,
 * handed over its own subscription); other keys are refused (409), so that knowing an endpoint
 * alone takes nobody's browser.
 */
export async function subscribePush(deps: PushSubscriptionDeps, input: { userId: string; endpoint: string; keys: { p256dh: string; auth: string }; userAgent: string | undefined }): Promise<PushSubscriptionDoc> {
  await checkPushSubscription(deps, input);
  const id = pushSubscriptionId(input.endpoint);
  const label = browserLabel(input.userAgent);
  const doc: PushSubscriptionDoc = { _id: id, userId: input.userId, endpoint: input.endpoint, keys: { p256dh: input.keys.p256dh, auth: input.keys.auth }, label, createdAt: deps.now(), lastSuccessAt: null };
  if (!(await deps.pushSubscriptions.insert(doc))) {
    const stored = await deps.pushSubscriptions.get(id);
    if (!stored) return await subscribePush(deps, input); // removed meanwhile: insert again
    const sameKeys = stored.keys.p256dh === doc.keys.p256dh && stored.keys.auth === doc.keys.auth;
    if (stored.userId === input.userId) {
      return (await deps.pushSubscriptions.refresh(id, stored, { userId: input.userId, keys: doc.keys, label })) ?? doc;
    }
    if (!sameKeys) throw new AppError('CONFLICT', 'This push endpoint is subscribed with other keys', { details: { field: 'endpoint' } });
    // Counted before the move (the previous reader keeps the browser when this one is full).
    if ((await deps.pushSubscriptions.countForUser(input.userId)) >= PUSH_SUBSCRIPTIONS_PER_READER) throw tooMany();
    const moved = await deps.pushSubscriptions.refresh(id, stored, { userId: input.userId, keys: doc.keys, label });
    if (!moved) throw new AppError('CONFLICT', 'This push subscription changed meanwhile: try again');
    return moved;
  }
  // Counted after the insert: two racing subscriptions cannot both pass the cap.
  if ((await deps.pushSubscriptions.countForUser(input.userId)) > PUSH_SUBSCRIPTIONS_PER_READER) {
    await deps.pushSubscriptions.remove(input.userId, id);
    throw tooMany();
  }
  return doc;
}

/** The reader's browsers, oldest first. */
export async function listPushSubscriptions(deps: Pick<PushSubscriptionDeps, 'pushSubscriptions'>, userId: string): Promise<PushSubscriptionDoc[]> {
  return await deps.pushSubscriptions.listForUser(userId, PUSH_SUBSCRIPTIONS_PER_READER);
}

/** Removes one of the reader's browsers (404 for another reader's or an unknown one: nothing changes). */
export async function unsubscribePush(deps: Pick<PushSubscriptionDeps, 'pushSubscriptions'>, userId: string, id: string): Promise<PushSubscriptionDoc> {
  return (await deps.pushSubscriptions.remove(userId, id)) ?? notFound('push subscription');
}
