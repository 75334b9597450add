/**
 * Webhook messages from the event log (issue 40, part 5; docs/decisions.md "Events out"): when an
 * event is appended, every enabled endpoint subscribed to its type whose filters match gets one
 * message (webhook-message.rules endpointWants), its body the article as the endpoint's account's
 * plan shows it, and one workflow per message delivers it.
 *
 * The activity that appends the event starts the event's fan-out workflow at once
 * (`webhook-fanout-<key>`, started once); the fan-out reads the endpoints a page at a time, stores
 * the page's messages (one per endpoint and event: a repeated page makes none twice) and starts
 * their workflows, then marks the event dispatched. The relay (every minute) starts the fan-out of
 * events appended a while ago and not dispatched: the start after the append was missed (Temporal
 * down, a process that died) or the fan-out failed.
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { EventLogRepo } from '../../models/events/event-log.repo';
import type { WebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import type { WebhookMessageDoc, WebhookMessageRepo } from '../../models/events/webhook-message.repo';
import { articleMessageBody, endpointWants } from '../../models/events/webhook-message.rules';
import { newWebhookMessageId } from '../../models/events/webhook-signing';
import type { UserRepo } from '../../models/users/user.repo';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { webhookFanOutWorkflow } from '../../workflows/events/fanout.workflow';
import { webhookMessageWorkflow } from '../../workflows/events/message.workflow';

/** Workflows started at once by one page (the client's calls in flight). */
const STARTS_IN_FLIGHT = 20;

/** Starting the webhooks' workflows (a Temporal client of the API or the worker's activity). */
export interface WebhookStarts {
  /** Starts the fan-out of each event (once per key; a failed one may be started again). */
  fanOut(eventKeys: readonly string[]): Promise<void>;
  /** Starts the delivery workflow of each message (once per message). */
  messages(msgIds: readonly string[]): Promise<void>;
  /** Starts one more delivery of a message (a replay: one attempt). */
  replay(msgId: string, replayId: string): Promise<void>;
}

async function inBatches<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += STARTS_IN_FLIGHT) await Promise.all(items.slice(i, i + STARTS_IN_FLIGHT).map(each));
}

/** A start refused because the run exists (or, for `once` ids, existed) already is no failure: it is the idempotence. */
async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export function temporalWebhookStarts(client: Client, taskQueuePrefix: string): WebhookStarts {
  const taskQueue = taskQueueName(taskQueuePrefix, TASK_QUEUES.webhooks);
  return {
    fanOut: (keys) =>
      inBatches(keys, (eventKey) =>
        // A fan-out that failed may run again (the relay's); one that completed marked its event.
        startOnce(() => client.workflow.start(webhookFanOutWorkflow, { workflowId: workflowIds.webhookFanOut(eventKey), taskQueue, args: [{ eventKey }], workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' })),
      ),
    messages: (msgIds) =>
      inBatches(msgIds, (msgId) => startOnce(() => client.workflow.start(webhookMessageWorkflow, { workflowId: workflowIds.webhookMessage(msgId), taskQueue, args: [{ msgId }], workflowIdReusePolicy: 'REJECT_DUPLICATE' }))),
    replay: async (msgId, replayId) => {
      await client.workflow.start(webhookMessageWorkflow, { workflowId: workflowIds.webhookReplay(msgId, replayId), taskQueue, args: [{ msgId, replay: true }], workflowIdReusePolicy: 'REJECT_DUPLICATE' });
    },
  };
}

export interface FanOutDeps {
  events: Pick<EventLogRepo, 'byKey' | 'markDispatched'>;
  webhookEndpoints: Pick<WebhookEndpointRepo, 'pageSubscribed'>;
  webhookMessages: Pick<WebhookMessageRepo, 'createMany'>;
  users: Pick<UserRepo, 'plansOf'>;
  starts: Pick<WebhookStarts, 'messages'>;
  now: () => Date;
}

export interface FanOutPage {
  /** Messages this page's endpoints have for the event (made now or before). */
  messages: number;
  /** The last endpoint read, to read on from; null when this was the last page. */
  next: string | null;
}

/**
 * One page of an event's fan-out: the enabled endpoints subscribed to its type after `after`, a
 * message for each that wants it (stored once), and the workflows of those still pending started.
 * An event no longer in the log (expired) has nothing to send.
 */
export async function fanOutPage(deps: FanOutDeps, input: { eventKey: string; after: string | null; limit: number }): Promise<FanOutPage> {
  const event = await deps.events.byKey(input.eventKey);
  if (!event) return { messages: 0, next: null };
  const page = await deps.webhookEndpoints.pageSubscribed(event.type, input.after, input.limit);
  const next = page.length < input.limit ? null : page[page.length - 1]!._id;
  const wanting = page.filter((e) => endpointWants(e, event));
  if (wanting.length === 0) return { messages: 0, next };
  const plans = await deps.users.plansOf([...new Set(wanting.map((e) => e.accountId))]);
  const now = deps.now();
  const bodies = new Map<string, string>();
  const docs: WebhookMessageDoc[] = wanting.map((e) => {
    const plan = plans.get(e.accountId) ?? 'starter';
    const body = bodies.get(plan) ?? articleMessageBody(event, plan);
    bodies.set(plan, body);
    return { _id: newWebhookMessageId(), endpointId: e._id, accountId: e.accountId, eventKey: event.key, type: event.type, body, state: 'pending', attempts: 0, lastAttemptAt: null, createdAt: now };
  });
  const stored = await deps.webhookMessages.createMany(docs);
  await deps.starts.messages(stored.filter((m) => m.state === 'pending').map((m) => m._id));
  return { messages: stored.length, next };
}

/** The event's fan-out is done: the relay leaves it alone from now on. */
export async function markDispatched(deps: Pick<FanOutDeps, 'events' | 'now'>, eventKey: string): Promise<void> {
  await deps.events.markDispatched(eventKey, deps.now());
}

export interface FanOutRelayDeps {
  events: Pick<EventLogRepo, 'undispatched'>;
  starts: Pick<WebhookStarts, 'fanOut'>;
  now: () => Date;
}

/** The relay's run: starts the fan-out of the events appended more than `olderThanMs` ago that are not dispatched. */
export async function relayUndispatched(deps: FanOutRelayDeps, input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
  const keys = await deps.events.undispatched(new Date(deps.now().getTime() - input.olderThanMs), input.limit);
  await deps.starts.fanOut(keys);
  return { forwarded: keys.length };
}
