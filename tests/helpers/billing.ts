/**
 * Stripe events as Stripe sends them (objects of the library's API version), signed with the
 * `stripe` library's own test-header helper, and delivered to the webhook.
 */
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import request from 'supertest';
import type { Plan } from '../../models/shared/plan.rules';
import { testConfig } from './service';

const prices = () => testConfig().billing.prices;
export const priceOf = (plan: Exclude<Plan, 'starter'>) => prices()[plan];

export const newIds = () => {
  const tag = randomUUID().replace(/-/g, '').slice(0, 14);
  return { customerId: `cus_${tag}`, subscriptionId: `sub_${tag}` };
};

const seconds = (ms: number) => Math.floor(ms / 1000);

export interface StripeEventInit {
  /** Epoch ms; now when not given. */
  created?: number;
  id?: string;
}

export function stripeEvent(type: string, object: Record<string, unknown>, init: StripeEventInit = {}): Stripe.Event {
  return {
    id: init.id ?? `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: seconds(init.created ?? Date.now()),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  } as unknown as Stripe.Event;
}

export interface SubscriptionInit {
  customerId: string;
  subscriptionId: string;
  status: string;
  plan: Exclude<Plan, 'starter'>;
  /** Epoch ms. */
  periodEnd: number;
  cancelAtPeriodEnd?: boolean;
  userId?: string;
}

export function subscriptionObject(s: SubscriptionInit): Record<string, unknown> {
  return {
    id: s.subscriptionId,
    object: 'subscription',
    customer: s.customerId,
    status: s.status,
    cancel_at_period_end: s.cancelAtPeriodEnd ?? false,
    metadata: s.userId ? { userId: s.userId, plan: s.plan } : {},
    items: {
      object: 'list',
      data: [{ id: `si_${s.subscriptionId.slice(4)}`, object: 'subscription_item', current_period_start: seconds(s.periodEnd) - 30 * 86_400, current_period_end: seconds(s.periodEnd), price: { id: priceOf(s.plan), object: 'price' } }],
    },
  };
}

export function invoiceObject(i: { customerId: string; subscriptionId: string; plan: Exclude<Plan, 'starter'>; periodEnd: number; paid: boolean; attemptCount?: number; nextAttempt?: number | null }): Record<string, unknown> {
  return {
    id: `in_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    object: 'invoice',
    customer: i.customerId,
    status: i.paid ? 'paid' : 'open',
    attempt_count: i.attemptCount ?? 1,
    next_payment_attempt: i.nextAttempt === undefined || i.nextAttempt === null ? null : seconds(i.nextAttempt),
    parent: { type: 'subscription_details', subscription_details: { subscription: i.subscriptionId, metadata: {} } },
    lines: {
      object: 'list',
      data: [{ id: 'il_1', object: 'line_item', period: { start: seconds(i.periodEnd) - 30 * 86_400, end: seconds(i.periodEnd) }, pricing: { type: 'price_details', price_details: { price: priceOf(i.plan), product: 'prod_news' } } }],
    },
  };
}

export function checkoutObject(c: { customerId: string; subscriptionId: string; userId: string; plan: Exclude<Plan, 'starter'>; paid?: boolean }): Record<string, unknown> {
  return {
    id: `cs_test_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    object: 'checkout.session',
    mode: 'subscription',
    customer: c.customerId,
    subscription: c.subscriptionId,
    client_reference_id: c.userId,
    payment_status: c.paid === false ? 'unpaid' : 'paid',
    status: 'complete',
    metadata: { userId: c.userId, plan: c.plan },
  };
}

export interface DeliveryOptions {
  secret?: string;
  /** Epoch seconds of the signature. */
  timestamp?: number;
  /** Changes the body after signing. */
  tamper?: (body: string) => string;
  signature?: string | null;
}

/** Signs the event as Stripe would and POSTs it to the webhook. */
export function deliver(callback: Parameters<typeof request>[0], event: Stripe.Event, options: DeliveryOptions = {}) {
  const payload = JSON.stringify(event);
  const header =
    options.signature !== undefined
      ? options.signature
      : Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? testConfig().billing.webhookSecret!, ...(options.timestamp ? { timestamp: options.timestamp } : {}) });
  const req = request(callback).post('/api/subscriptions/webhook').set('Content-Type', 'application/json');
  if (header !== null) req.set('Stripe-Signature', header);
  return req.send(options.tamper ? options.tamper(payload) : payload);
}
