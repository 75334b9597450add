/**
 * Delivering webhook messages (issue 40, part 5; docs/decisions.md "Events out"), the use cases:
 * one attempt of a message (signed anew: a fresh timestamp, the message's id, every secret that
 * signs now), recorded in the delivery log, the endpoint's failing streak kept; disabling an
 * endpoint (410 Gone, or five days of failures, then its owner mailed once); and what the news API
 * (and later the dashboard) offers: the delivery log, a replay of one message, a test event.
 *
 * The schedule (when to try again, when to give up, when to disable) is webhookMessageWorkflow's,
 * from webhook.rules; these functions do what it decides.
 */
import { randomBytes } from 'node:crypto';
import { AppError, dependencyUnavailable, notFound } from '../../models/errors';
import type { WebhookAttemptDoc, WebhookAttemptRepo } from '../../models/events/webhook-attempt.repo';
import type { WebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import type { WebhookMessageDoc, WebhookMessageRepo } from '../../models/events/webhook-message.repo';
import { ATTEMPT_ERROR_MAX, loggedHeaders, testEventKey, testMessageBody, type MessageState } from '../../models/events/webhook-message.rules';
import { newWebhookMessageId, webhookHeaders } from '../../models/events/webhook-signing';
import { DISABLE_AFTER_FAILING_MS, outcomeOf } from '../../models/events/webhook.rules';
import type { Mailer } from '../../models/infra/mail';
import { describeUrl } from '../../models/infra/polite-fetch.rules';
import type { WebhookSender } from '../../models/infra/webhook-sender';
import type { UserRepo } from '../../models/users/user.repo';
import type { AttemptReport } from '../../workflows/events/activities';
import type { WebhookStarts } from './webhook-fanout';

export interface DeliveryDeps {
  webhookMessages: Pick<WebhookMessageRepo, 'get' | 'recordAttempt' | 'finish'>;
  webhookEndpoints: Pick<WebhookEndpointRepo, 'forDelivery' | 'recordFailure' | 'recordSuccess'>;
  webhookAttempts: Pick<WebhookAttemptRepo, 'record'>;
  sender: Pick<WebhookSender, 'send'>;
  now: () => Date;
}

/**
 * One attempt to deliver a message. A message whose endpoint was removed or disabled is ended
 * unsent (`cancelled`), unless it is a replay, which only skips. Every attempt made is in the
 * delivery log, whatever came of it.
 */
export async function deliverAttempt(deps: DeliveryDeps, input: { msgId: string; replay?: boolean }): Promise<AttemptReport> {
  const message = await deps.webhookMessages.get(input.msgId);
  if (!message) return { kind: 'skipped', reason: 'message-gone' };
  const now = deps.now();
  const found = await deps.webhookEndpoints.forDelivery(message.endpointId, now);
  const endpoint = found?.endpoint;
  const secrets = found?.secrets ?? [];
  if (!endpoint || secrets.length === 0 || endpoint.state !== 'enabled') {
    if (!input.replay) await deps.webhookMessages.finish(message._id, 'cancelled');
    return { kind: 'skipped', reason: endpoint && secrets.length > 0 ? 'endpoint-disabled' : 'endpoint-gone' };
  }
  const headers = webhookHeaders({ msgId: message._id, timestamp: now, body: message.body, secrets });
  const sent = await deps.sender.send(endpoint.url, headers, message.body);
  const outcome = outcomeOf(sent.status);
  await deps.webhookAttempts.record({
    msgId: message._id,
    endpointId: endpoint._id,
    accountId: message.accountId,
    attempt: message.attempts + 1,
    replay: input.replay === true,
    url: endpoint.url,
    requestHeaders: loggedHeaders(headers),
    status: sent.status,
    durationMs: sent.durationMs,
    responseBody: sent.responseBody,
    error: sent.error?.slice(0, ATTEMPT_ERROR_MAX) ?? null,
    at: now,
  });
  // A replay that fails leaves the message as it was (failed for good stays failed).
  const state: MessageState = outcome === 'delivered' ? 'delivered' : input.replay ? message.state : outcome === 'disable' ? 'failed' : 'pending';
  await deps.webhookMessages.recordAttempt(message._id, state, now);
  let failingSince: Date | null = null;
  // A success ends a failing streak; an endpoint read with none has nothing to clear (a write saved per delivery).
  if (outcome === 'delivered') {
    if (endpoint.failingSince !== null) await deps.webhookEndpoints.recordSuccess(endpoint._id);
  }
  else failingSince = await deps.webhookEndpoints.recordFailure(endpoint._id, now);
  return {
    kind: 'sent',
    endpointId: endpoint._id,
    status: sent.status,
    ...(sent.retryAfterMs === undefined ? {} : { retryAfterMs: sent.retryAfterMs }),
    failingSince: failingSince?.toISOString() ?? null,
    at: now.toISOString(),
  };
}

/** Ends a message without another attempt (its schedule is exhausted: `failed`). */
export async function finishMessage(deps: Pick<DeliveryDeps, 'webhookMessages'>, input: { msgId: string; state: MessageState }): Promise<void> {
  await deps.webhookMessages.finish(input.msgId, input.state);
}

export interface DisableDeps {
  webhookEndpoints: Pick<WebhookEndpointRepo, 'getById' | 'disable' | 'claimOwnerMail' | 'releaseOwnerMail'>;
  users: Pick<UserRepo, 'verifiedEmails'>;
  mailer: Pick<Mailer, 'send'>;
  /** The sender of transactional mail (MAIL_FROM) and the domain of its Message-IDs. */
  mail: { from: string; domain: string };
  now: () => Date;
}

/** The owner's mail: what happened, since when, and how to turn the endpoint back on. */
function disabledMail(endpoint: { _id: string; url: string; failingSince: Date | null }): { subject: string; text: string } {
  const where = describeUrl(endpoint.url);
  const days = Math.round(DISABLE_AFTER_FAILING_MS / 86_400_000);
  const since = endpoint.failingSince ? ` since ${endpoint.failingSince.toISOString()}` : '';
  return {
    subject: `Webhook endpoint disabled: ${where}`,
    text: [
      `Every delivery to your webhook endpoint ${endpoint._id} (${where}) has failed${since}, for ${days} days, so we have disabled it: no more events are sent to it.`,
      '',
      'The delivery log (GET /api/webhooks/endpoints/{id}/deliveries) shows what the endpoint answered.',
      'Once it answers again, enable it (PATCH /api/webhooks/endpoints/{id} with {"state":"enabled"}); messages it missed can be replayed.',
    ].join('\n'),
  };
}

/**
 * Disables an endpoint for `reason`. One disabled for failing has its owner (the account's proven
 * address) mailed once per disabling: the right to mail is taken first (claimOwnerMail), given
 * back when the mail server could not take it (the activity is retried).
 */
export async function disableEndpoint(deps: DisableDeps, input: { endpointId: string; reason: 'gone' | 'failing' }): Promise<{ disabled: boolean; mailed: boolean }> {
  const now = deps.now();
  const disabled = await deps.webhookEndpoints.disable(input.endpointId, input.reason, now);
  if (input.reason !== 'failing') return { disabled, mailed: false };
  const endpoint = await deps.webhookEndpoints.getById(input.endpointId);
  if (!endpoint || endpoint.disabledReason !== 'failing') return { disabled, mailed: false };
  const to = (await deps.users.verifiedEmails([endpoint.accountId])).get(endpoint.accountId);
  if (!to || !(await deps.webhookEndpoints.claimOwnerMail(endpoint._id, now))) return { disabled, mailed: false };
  try {
    await deps.mailer.send({
      to,
      from: deps.mail.from,
      messageId: `<webhook-disabled.${endpoint._id}.${(endpoint.failingSince ?? now).getTime()}@${deps.mail.domain}>`,
      headers: { 'Auto-Submitted': 'auto-generated' },
      ...disabledMail(endpoint),
    });
  } catch (err) {
    await deps.webhookEndpoints.releaseOwnerMail(endpoint._id, now);
    throw err;
  }
  return { disabled, mailed: true };
}

// ---- What the news API (and the dashboard) offers ------------------------------------------------

export interface WebhookDeliveryDeps {
  webhookEndpoints: Pick<WebhookEndpointRepo, 'getForAccount'>;
  webhookMessages: Pick<WebhookMessageRepo, 'getForEndpoint' | 'create' | 'finish'>;
  webhookAttempts: Pick<WebhookAttemptRepo, 'listForEndpoint'>;
  starts: Pick<WebhookStarts, 'messages' | 'replay'>;
  now: () => Date;
}

/** The most attempts one page of the delivery log holds. */
export const DELIVERIES_PAGE_MAX = 100;

export interface DeliveriesPage {
  attempts: WebhookAttemptDoc[];
  /** The cursor of the next page (`before`), null on the last. */
  next: string | null;
}

async function endpointOf(deps: Pick<WebhookDeliveryDeps, 'webhookEndpoints'>, accountId: string, endpointId: string) {
  return (await deps.webhookEndpoints.getForAccount(accountId, endpointId)) ?? notFound('Webhook endpoint');
}

/** The endpoint's delivery log, newest first, a page of at most `limit` (1–100) after `before`. */
export async function listDeliveries(deps: WebhookDeliveryDeps, accountId: string, endpointId: string, page: { limit: number; before?: string | undefined }): Promise<DeliveriesPage> {
  await endpointOf(deps, accountId, endpointId);
  const limit = Math.min(Math.max(1, Math.floor(page.limit)), DELIVERIES_PAGE_MAX);
  const attempts = await deps.webhookAttempts.listForEndpoint(endpointId, { limit: limit + 1, before: page.before });
  const shown = attempts.slice(0, limit);
  return { attempts: shown, next: attempts.length > limit ? shown[shown.length - 1]!._id : null };
}

const refusedWhileDisabled = (): AppError => new AppError('CONFLICT', 'The webhook endpoint is disabled: enable it first (PATCH with {"state":"enabled"})');

/**
 * One more delivery of a message to its endpoint, whatever became of it (delivered, failed for
 * good): the same webhook-id and body, signed anew, one attempt, in the delivery log. Another
 * account's endpoint or message, or a message of another endpoint: 404. A disabled endpoint: 409.
 */
export async function replayMessage(deps: WebhookDeliveryDeps, accountId: string, endpointId: string, msgId: string): Promise<{ msgId: string; endpointId: string; replayId: string }> {
  const endpoint = await endpointOf(deps, accountId, endpointId);
  const message = (await deps.webhookMessages.getForEndpoint(accountId, endpointId, msgId)) ?? notFound('Webhook message');
  if (endpoint.state !== 'enabled') throw refusedWhileDisabled();
  const replayId = randomBytes(6).toString('base64url');
  try {
    await deps.starts.replay(message._id, replayId);
  } catch (err) {
    throw dependencyUnavailable('temporal', err);
  }
  return { msgId: message._id, endpointId, replayId };
}

/** A `webhook.test` message to the endpoint, whatever event types it subscribes to, delivered as any other. A disabled endpoint: 409. */
export async function sendTestEvent(deps: WebhookDeliveryDeps, accountId: string, endpointId: string): Promise<WebhookMessageDoc> {
  const endpoint = await endpointOf(deps, accountId, endpointId);
  if (endpoint.state !== 'enabled') throw refusedWhileDisabled();
  const now = deps.now();
  const msgId = newWebhookMessageId();
  const message: WebhookMessageDoc = { _id: msgId, endpointId, accountId, eventKey: testEventKey(msgId), type: 'webhook.test', body: testMessageBody(endpointId, now), state: 'pending', attempts: 0, lastAttemptAt: null, createdAt: now };
  await deps.webhookMessages.create(message);
  try {
    await deps.starts.messages([msgId]);
  } catch (err) {
    await deps.webhookMessages.finish(msgId, 'cancelled');
    throw dependencyUnavailable('temporal', err);
  }
  return message;
}
