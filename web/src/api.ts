/**
 * The dashboard's calls to its own API (same origin, session cookie). Requests that change
 * something carry the session's CSRF token; failures come back in the news envelope.
 */
import type { NotificationSettings } from '../../models/news/preferences.rules';
let csrfToken = '';

export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** The envelope's `details` (a 409's `reason`, a 400's fields…), as the API sent them. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  message?: string;
  error?: string;
  code?: string;
  details?: unknown;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(method === 'GET' ? {} : { 'X-CSRF-Token': csrfToken }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  let json: Envelope<T> | undefined;
  try {
    json = (await res.json()) as Envelope<T>;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json?.success) throw new ApiError(res.status, json?.error ?? res.statusText, json?.code, json?.details);
  return json.data as T;
}

// What the API answers (api/web/*.routes.ts).
export interface SessionView {
  user: { id: string; email: string; plan: 'starter' | 'pro' | 'business' };
  csrfToken: string;
  expiresAt: string;
  /** An active staff member: the header offers the staff console. */
  staff: boolean;
}

export interface SignedOut {
  user: null;
  csrfToken: null;
  expiresAt: null;
  staff: false;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  mode: 'live' | 'test';
  scopes: string[];
  expiresAt: string | null;
  lastUsedAt: string | null;
  status: 'active' | 'expired' | 'revoked';
  createdAt: string;
}

export interface Usage {
  plan: string;
  month: { month: string; limit: number | null; used: number; remaining: number | null; resetsAt: string };
  perMinuteLimit: number;
  /** The account's minute, all keys together. */
  minute: { limit: number; used: number; remaining: number; resetsAt: string };
  /** Test keys' requests today (UTC). */
  sandbox: { limit: number; used: number; remaining: number; resetsAt: string };
  activeKeysLimit: number;
  days: { date: string; total: number; perKey: Record<string, number> }[];
  keys: { id: string; name: string; prefix: string; mode: 'live' | 'test' }[];
}

export interface Subscription {
  status: string;
  plan: 'starter' | 'pro' | 'business';
  subscribedPlan: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  graceEndsAt: string | null;
  customerId: string | null;
}

export interface PlanInfo {
  plan: 'starter' | 'pro' | 'business';
  name: string;
  monthlyPriceBRL: number;
  perMinute: number;
  perMonth: number | null;
  modules: string[];
}

export interface Billing {
  subscription: Subscription;
  plans: PlanInfo[];
  billingConfigured: boolean;
}

export interface Preferences {
  sectors: string[];
  sectorWeights: Record<string, number>;
  topics: string[];
  topicWeights: Record<string, number>;
  watchlistCompanies: string[];
  watchlistTickers: string[];
  keywords: string[];
  keywordWeights: Record<string, number>;
  notificationSettings: NotificationSettings;
  relevanceSettings: Record<string, number | boolean>;
}

export interface EntityOption {
  id: string;
  name: string;
  ticker: string | null;
  type: string;
}

export interface Reading {
  streak: { current: number; longest: number; lastReadDate: string | null; today: string; missedRecoverable: { date: string; quizDates: string[] }[] };
  quizzes: { id: string; title: string; quizDate: string; edition: string; alreadyAttempted: boolean; attemptResult: { passed: boolean; correctAnswers: number } | null; availableUntil: string; canSubmit: boolean }[];
  rules: { maxDaysRecovery: number; minCorrectAnswers: number; totalQuestions: number };
}

/** GET /api/account/push: Web Push's public key and the account's subscribed browsers. */
export interface PushSubscriptionView {
  id: string;
  label: string;
  service: string;
  endpoint: string;
  createdAt: string;
  lastSuccessAt: string | null;
}
export interface AccountPush {
  configured: boolean;
  publicKey: string | null;
  limit: number;
  subscriptions: PushSubscriptionView[];
}

export interface WhatsAppLink {
  configured: boolean;
  linked: boolean;
  phone: string | null;
  linkedAt: string | null;
}

/** A webhook endpoint (GET /api/account/webhooks/endpoints): never its secret. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  eventTypes: ('article.published' | 'article.breaking' | 'webhook.test')[];
  filters: { sectors?: string[]; topics?: string[]; tickers?: string[]; entityIds?: string[] };
  state: 'enabled' | 'disabled';
  /** gone: the receiver answered 410; failing: every delivery failed for five days; owner: disabled by the account. */
  disabledReason: 'gone' | 'failing' | 'owner' | null;
  failingSince: string | null;
  secretCreatedAt: string;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One attempt to deliver a message (GET /api/account/webhooks/endpoints/{id}/deliveries): the headers sent without the signature. */
export interface WebhookDelivery {
  id: string;
  /** The message: the webhook-id header the receiver saw. */
  msgId: string;
  attempt: number;
  replay: boolean;
  url: string;
  requestHeaders: Record<string, string>;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The first 4 KiB of the answer's body. */
  responseBody: string;
  at: string;
}

export interface WebhookDeliveriesPage {
  deliveries: WebhookDelivery[];
  next: string | null;
}

/** The answer to a registration or a rotation: the one time the signing secret is shown. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

/** A 400's field details, as the API sends them (api/shared/errors.ts zodIssues). */
export const fieldIssues = (details: unknown): { path: string; message: string }[] =>
  Array.isArray(details) ? details.filter((d): d is { path: string; message: string } => typeof d?.path === 'string' && typeof d?.message === 'string') : [];
