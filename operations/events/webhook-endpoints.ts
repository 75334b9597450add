/**
 * An account's webhook endpoints, the use cases (issue 40, part 5: managed by the news API):
 * register one (its URL checked as the sender will check it, its secret returned this once), read
 * and list them (never a secret), change, enable or disable one, remove one, and rotate its secret
 * (the new one returned this once; the old one still signs for 24 hours).
 *
 * A URL is refused when its scheme or form is (webhookUrlRefusal: https only, no credentials,
 * plain http only for the fetcher's allow-listed development hosts) and when its host resolves to
 * an address the sender would refuse (loopback, private, link-local and so the cloud metadata
 * address, …: checkedAddresses). The sender checks again at each delivery, since DNS may change.
 */
import type { LookupAddress } from 'node:dns';
import { AppError, notFound } from '../../models/errors';
import type { WebhookEndpointChanges, WebhookEndpointDoc, WebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import { newWebhookSecret } from '../../models/events/webhook-signing';
import type { WebhookEndpointInput } from '../../models/events/webhook.rules';
import { FetchError } from '../../models/infra/polite-fetch.rules';
import { checkedAddresses, type Lookup } from '../../models/infra/safe-connect';
import { webhookUrlRefusal } from '../../models/infra/webhook-sender';
import { PLAN_LIMITS, planName, type Plan } from '../../models/shared/plan.rules';

export interface WebhookEndpointDeps {
  webhookEndpoints: Pick<WebhookEndpointRepo, 'reserveSlot' | 'releaseSlot' | 'create' | 'getForAccount' | 'listForAccount' | 'update' | 'remove' | 'rotateSecret'>;
  /** The fetcher's allow-list (NEWS_FETCH_ALLOW_HOSTS): development doubles on loopback. */
  allowHosts: readonly string[];
  /** Resolves host names (tests substitute their own; the system's resolver otherwise). */
  lookup?: Lookup | undefined;
  now: () => Date;
}

/** How long registration waits for DNS before refusing the host as unresolvable. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/** An endpoint with its secret in clear: the answer to a creation or a rotation, and only those. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointDoc;
  secret: string;
}

const refusedUrl = (message: string): AppError => new AppError('VALIDATION_FAILED', `The webhook URL is refused: ${message}`, { details: [{ path: 'body.url', message }] });

/**
 * Refuses (400) a URL the sender would not deliver to: its form, then every address its host
 * resolves to. Never echoes the URL's query or credentials (FetchError's messages describe the
 * URL without them).
 */
export async function checkEndpointUrl(deps: Pick<WebhookEndpointDeps, 'allowHosts' | 'lookup'>, raw: string): Promise<LookupAddress[]> {
  const refusal = webhookUrlRefusal(raw, { allowHosts: deps.allowHosts });
  if (refusal) throw refusedUrl(refusal);
  const url = new URL(raw);
  const signal = AbortSignal.timeout(RESOLVE_TIMEOUT_MS);
  try {
    return await checkedAddresses(url, { allowHosts: deps.allowHosts, lookup: deps.lookup, signal });
  } catch (err) {
    if (err instanceof FetchError && err.code === 'refused') throw refusedUrl(`${err.message}; webhooks are delivered to public addresses only`);
    throw refusedUrl(`cannot resolve the host ${url.hostname}`);
  }
}

function tooManyEndpoints(plan: Plan): AppError {
  const n = PLAN_LIMITS[plan].webhookEndpoints;
  return new AppError('CONFLICT', `The ${planName(plan)} plan allows ${n} webhook endpoints: remove one you no longer use, or upgrade the plan`, {
    details: { webhookEndpointsLimit: n },
  });
}

/**
 * Registers an endpoint, enabled, with a new secret returned this once. The URL is checked before
 * anything is written; then a place of the plan's cap is taken atomically (409 when none is left,
 * however many creations race), and given back if the insert fails.
 */
export async function createWebhookEndpoint(deps: WebhookEndpointDeps, accountId: string, plan: Plan, input: WebhookEndpointInput): Promise<EndpointWithSecret> {
  await checkEndpointUrl(deps, input.url);
  if (!(await deps.webhookEndpoints.reserveSlot(accountId, PLAN_LIMITS[plan].webhookEndpoints))) throw tooManyEndpoints(plan);
  const secret = newWebhookSecret();
  try {
    const endpoint = await deps.webhookEndpoints.create({
      accountId,
      url: input.url,
      description: input.description || null,
      eventTypes: input.eventTypes,
      filters: input.filters ?? {},
      secret,
      now: deps.now(),
    });
    return { endpoint, secret };
  } catch (err) {
    await deps.webhookEndpoints.releaseSlot(accountId).catch(() => undefined);
    throw err;
  }
}

export const listWebhookEndpoints = (deps: Pick<WebhookEndpointDeps, 'webhookEndpoints'>, accountId: string): Promise<WebhookEndpointDoc[]> => deps.webhookEndpoints.listForAccount(accountId);

/** One of the account's endpoints; another account's is 404, as an unknown one. */
export async function getWebhookEndpoint(deps: Pick<WebhookEndpointDeps, 'webhookEndpoints'>, accountId: string, id: string): Promise<WebhookEndpointDoc> {
  return (await deps.webhookEndpoints.getForAccount(accountId, id)) ?? notFound('Webhook endpoint');
}

/**
 * Changes an endpoint: a new URL is checked as at registration (400, nothing changed), `state`
 * enables or disables it (the owner's reason; enabling clears a failing streak, so an endpoint the
 * sender disabled can be turned back on once fixed).
 */
export async function changeWebhookEndpoint(deps: WebhookEndpointDeps, accountId: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointDoc> {
  await getWebhookEndpoint(deps, accountId, id);
  if (changes.url !== undefined) await checkEndpointUrl(deps, changes.url);
  const fields: WebhookEndpointChanges = { ...changes, ...(changes.description !== undefined ? { description: changes.description || null } : {}) };
  return (await deps.webhookEndpoints.update(accountId, id, fields, deps.now())) ?? notFound('Webhook endpoint');
}

/** Removes an endpoint of the account (404 for another's or an unknown one). */
export async function removeWebhookEndpoint(deps: Pick<WebhookEndpointDeps, 'webhookEndpoints'>, accountId: string, id: string): Promise<void> {
  if (!(await deps.webhookEndpoints.remove(accountId, id))) notFound('Webhook endpoint');
}

/** A new secret for the endpoint, returned this once; the one it replaces signs for 24 more hours. */
export async function rotateWebhookSecret(deps: Pick<WebhookEndpointDeps, 'webhookEndpoints' | 'now'>, accountId: string, id: string): Promise<EndpointWithSecret> {
  const secret = newWebhookSecret();
  const endpoint = (await deps.webhookEndpoints.rotateSecret(accountId, id, secret, deps.now())) ?? notFound('Webhook endpoint');
  return { endpoint, secret };
}
