/**
 * The rules of webhook messages (issue 40, part 5): which endpoints an event of the log makes a
 * message for, what the message's body is (Standard Webhooks' `{type, timestamp, data}`, the
 * article as the endpoint's account's plan shows it, as the event stream shows it), what the
 * delivery log keeps of a request, and how long. Pure: workflows may import it.
 */
import { presentArticle, type PresentedArticle } from '../news/article.rules';
import { PLAN_LIMITS, type Plan } from '../shared/plan.rules';
import { eventMatches, type NewsEvent } from './event.rules';
import type { EventType, WebhookFilters } from './webhook.rules';

const DAY_SECONDS = 24 * 3_600;

/** How long the delivery log keeps an attempt, and a message is kept to be replayed (TTL indexes). */
export const DELIVERY_LOG_TTL_SECONDS = 30 * DAY_SECONDS;

/** A message's life: waiting for (another) attempt, delivered, failed for good, or ended unsent (its endpoint disabled or removed). */
export const MESSAGE_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/** `msg_` and 22 base64url characters (newWebhookMessageId). */
export const WEBHOOK_MESSAGE_ID = /^msg_[A-Za-z0-9_-]{22}$/;

/** Endpoints read per page of a fan-out: a page's messages are inserted and started together. */
export const FAN_OUT_PAGE = 200;

/** The key of a test message: one per press of the button, never the same. */
export const testEventKey = (msgId: string): string => `test:${msgId}`;

/** What the fan-out reads of an endpoint. */
export interface SubscribedEndpoint {
  _id: string;
  accountId: string;
  eventTypes: readonly EventType[];
  filters: WebhookFilters;
  state: 'enabled' | 'disabled';
  createdAt: Date;
}

/**
 * Whether an endpoint gets a message for an event: enabled, subscribed to its type, registered
 * before the event was appended (an endpoint made later does not receive the past), and its
 * filters match as a stream's do (event.rules eventMatches: every list given must match one value).
 */
export function endpointWants(endpoint: SubscribedEndpoint, event: Pick<NewsEvent, 'type' | 'article' | 'at'>): boolean {
  if (endpoint.state !== 'enabled') return false;
  if (!endpoint.eventTypes.includes(event.type)) return false;
  if (endpoint.createdAt.getTime() > event.at.getTime()) return false;
  return eventMatches(event, { ...endpoint.filters, breakingOnly: false });
}

/** The body of an article's message (Standard Webhooks' payload shape). */
export interface ArticleMessagePayload {
  type: EventType;
  /** When the event was appended (ISO 8601). */
  timestamp: string;
  /** The article as GET /api/articles/{id} shows it to the account, with every module of its plan. */
  data: PresentedArticle;
}

/** The body of a test message. */
export interface TestMessagePayload {
  type: 'webhook.test';
  timestamp: string;
  data: { endpointId: string; message: string };
}

/** The exact JSON sent for an event to an account on `plan`: serialised once, stored, and signed as it is on every attempt. */
export const articleMessageBody = (event: Pick<NewsEvent, 'type' | 'article' | 'at'>, plan: Plan): string =>
  JSON.stringify({ type: event.type, timestamp: event.at.toISOString(), data: presentArticle(event.article, PLAN_LIMITS[plan].modules) } satisfies ArticleMessagePayload);

export const testMessageBody = (endpointId: string, at: Date): string =>
  JSON.stringify({ type: 'webhook.test', timestamp: at.toISOString(), data: { endpointId, message: 'A test event: your endpoint receives and verifies our webhooks.' } } satisfies TestMessagePayload);

/**
 * The request headers the delivery log keeps: all but the signature (it proves the body to
 * whoever holds the secret, and the log has no use for it; the customer sees that one was sent).
 */
export function loggedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, name.toLowerCase() === 'webhook-signature' ? `(${value.split(' ').length} signature${value.includes(' ') ? 's' : ''})` : value]));
}

/** The longest error message the log keeps. */
export const ATTEMPT_ERROR_MAX = 500;
