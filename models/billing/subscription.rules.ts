/**
 * The subscription state machine (issue 13; spec §3.2; docs/decisions.md "Billing"). Pure and
 * deterministic: the subscription workflow runs it on every Stripe event it is sent, and the
 * unit tests run it on its own.
 *
 * Statuses are Stripe's. Stripe does not promise order or single delivery, so:
 * - an event id already applied changes nothing (duplicate);
 * - an event older (by Stripe's `created`) than the newest one applied changes nothing (stale);
 * - `canceled` and `incomplete_expired` are final for a subscription: nothing said about that
 *   subscription afterwards (a late `updated`, a late payment) brings it back;
 * - events of the same second apply in arrival order.
 *
 * What the account may do follows {@link planAt}: the subscription's plan while it is paid for,
 * during the grace period of a past_due subscription, and until the end of the paid period of a
 * canceled one; Starter otherwise.
 */
import type { Plan } from '../shared/plan.rules';

export const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The Stripe events the workflow applies (spec §3.2, plus the subscription's creation). */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;
export type HandledEvent = (typeof HANDLED_EVENTS)[number];
export const isHandledEvent = (type: string): type is HandledEvent => (HANDLED_EVENTS as readonly string[]).includes(type);

const FINAL: readonly SubscriptionStatus[] = ['canceled', 'incomplete_expired'];
const PAID: readonly SubscriptionStatus[] = ['active', 'trialing'];

/** What an event says about the subscription, taken from the Stripe object it carries. */
export interface SubscriptionFacts {
  status?: SubscriptionStatus;
  plan?: Plan | null;
  /** Epoch ms. */
  currentPeriodEnd?: number | null;
  cancelAtPeriodEnd?: boolean;
}

export interface PaymentFailure {
  /** Epoch ms (the event's time). */
  at: number;
  invoiceId: string;
  attemptCount: number;
  /** When Stripe tries again (epoch ms), if it will. */
  nextAttemptAt: number | null;
  message: string | null;
}

/** A Stripe event reduced to what the workflow needs (what the webhook signals). */
export interface BillingEvent {
  id: string;
  type: HandledEvent;
  /** Stripe's `created`, epoch ms. */
  created: number;
  customerId: string;
  subscriptionId: string | null;
  /** The account named by the Stripe object (checkout's client_reference_id, the subscription's metadata). */
  userId: string | null;
  facts: SubscriptionFacts;
  /** invoice.payment_failed */
  failure?: PaymentFailure;
  /** checkout.session.completed: Checkout does not say the period; the workflow asks Stripe. */
  wantsPeriod?: boolean;
}

export interface SubscriptionState {
  customerId: string;
  userId: string | null;
  subscriptionId: string | null;
  status: SubscriptionStatus | 'none';
  /** The paid plan of the subscription (null when Stripe's price is not one of ours). */
  plan: Plan | null;
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
  /** When the subscription became past_due (epoch ms), while it is. */
  pastDueSince: number | null;
  lastPaymentFailure: PaymentFailure | null;
  /** `created` of the newest event applied (epoch ms). */
  asOf: number;
  /** The plan last written to the account. */
  appliedPlan: Plan | null;
  /** Ids of the latest events seen (duplicates are recognised among them). */
  recentEventIds: string[];
  eventsApplied: number;
}

/** How many event ids are remembered: Stripe redelivers for three days, far fewer events per customer. */
export const REMEMBERED_EVENT_IDS = 500;

export function initialState(customerId: string): SubscriptionState {
  return {
    customerId,
    userId: null,
    subscriptionId: null,
    status: 'none',
    plan: null,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    pastDueSince: null,
    lastPaymentFailure: null,
    asOf: 0,
    appliedPlan: null,
    recentEventIds: [],
    eventsApplied: 0,
  };
}

export type Outcome = 'applied' | 'duplicate' | 'stale' | 'final' | 'other subscription';

const isFinal = (s: SubscriptionState['status']) => (FINAL as readonly string[]).includes(s);
const isLive = (s: SubscriptionState['status'] | undefined) => s !== undefined && s !== 'none' && !isFinal(s);

function remember(state: SubscriptionState, id: string): void {
  state.recentEventIds.push(id);
  if (state.recentEventIds.length > REMEMBERED_EVENT_IDS) state.recentEventIds.splice(0, state.recentEventIds.length - REMEMBERED_EVENT_IDS);
}

/** The status the event moves the subscription to (undefined: it does not say). */
function statusAfter(state: SubscriptionState, ev: BillingEvent): SubscriptionStatus | undefined {
  switch (ev.type) {
    case 'invoice.payment_failed':
      // A first payment that fails leaves the subscription incomplete (Stripe's rule); a renewal's makes it past_due.
      return state.status === 'incomplete' || state.status === 'none' ? 'incomplete' : 'past_due';
    case 'invoice.payment_succeeded':
    case 'checkout.session.async_payment_succeeded':
      return 'active';
    default:
      return ev.facts.status;
  }
}

/** Applies one event in place; says what it did. */
export function applyEvent(state: SubscriptionState, ev: BillingEvent): Outcome {
  if (state.recentEventIds.includes(ev.id)) return 'duplicate';
  remember(state, ev.id);
  const next = statusAfter(state, ev);
  if (ev.subscriptionId && state.subscriptionId && ev.subscriptionId !== state.subscriptionId) {
    // Another subscription of the customer: it takes over when the current one has ended, or when
    // it is newer and live (the customer subscribed again); an old one's news is history.
    const takesOver = !isLive(state.status) || (ev.created >= state.asOf && isLive(next));
    if (!takesOver) return 'other subscription';
    Object.assign(state, { ...initialState(state.customerId), userId: state.userId, appliedPlan: state.appliedPlan, recentEventIds: state.recentEventIds, eventsApplied: state.eventsApplied, lastPaymentFailure: null });
  }
  if (isFinal(state.status)) return 'final';
  if (ev.created < state.asOf) return 'stale';

  state.asOf = ev.created;
  state.eventsApplied += 1;
  if (ev.subscriptionId) state.subscriptionId = ev.subscriptionId;
  if (ev.userId && !state.userId) state.userId = ev.userId;
  const { facts } = ev;
  if (facts.plan) state.plan = facts.plan;
  if (facts.currentPeriodEnd) {
    // A subscription object says its period as it is; an invoice only ever extends it.
    const snapshot = ev.type.startsWith('customer.subscription.');
    state.currentPeriodEnd = snapshot ? facts.currentPeriodEnd : Math.max(state.currentPeriodEnd ?? 0, facts.currentPeriodEnd);
  }
  if (facts.cancelAtPeriodEnd !== undefined) state.cancelAtPeriodEnd = facts.cancelAtPeriodEnd;
  if (ev.failure) state.lastPaymentFailure = ev.failure;
  if (next) {
    if (next === 'past_due') state.pastDueSince ??= ev.created;
    else state.pastDueSince = null;
    state.status = next;
  }
  return 'applied';
}

/** Fills the period end Checkout does not carry, from the subscription fetched from Stripe. */
export function learnPeriod(state: SubscriptionState, fetched: { subscriptionId: string; customerId: string; currentPeriodEnd: number | null; plan: Plan | null }): boolean {
  if (fetched.subscriptionId !== state.subscriptionId || fetched.customerId !== state.customerId) return false;
  if (fetched.currentPeriodEnd) state.currentPeriodEnd = Math.max(state.currentPeriodEnd ?? 0, fetched.currentPeriodEnd);
  state.plan ??= fetched.plan;
  return true;
}

/** The plan the account has at `now` (epoch ms). */
export function planAt(state: SubscriptionState, now: number, graceMs: number): Plan {
  const paid = state.plan ?? 'starter';
  if ((PAID as readonly string[]).includes(state.status)) return paid;
  if (state.status === 'past_due') return now < (state.pastDueSince ?? now) + graceMs ? paid : 'starter';
  if (state.status === 'canceled') return now < (state.currentPeriodEnd ?? 0) ? paid : 'starter';
  return 'starter';
}

/** When {@link planAt} will next change by itself (the grace period's or the paid period's end). */
export function nextChangeAt(state: SubscriptionState, now: number, graceMs: number): number | null {
  const at =
    state.status === 'past_due' && state.pastDueSince !== null
      ? state.pastDueSince + graceMs
      : state.status === 'canceled' && state.currentPeriodEnd !== null
        ? state.currentPeriodEnd
        : null;
  return at !== null && at > now ? at : null;
}

/** What the subscription endpoint and the Temporal UI's query show. */
export interface SubscriptionView {
  customerId: string;
  subscriptionId: string | null;
  status: SubscriptionStatus | 'none';
  /** The plan the account has now. */
  plan: Plan;
  /** The plan paid for (null when none). */
  subscribedPlan: Plan | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** While past_due: when the account drops to Starter unless a payment succeeds. */
  graceEndsAt: string | null;
  lastPaymentFailure: { at: string; invoiceId: string; attemptCount: number; nextAttemptAt: string | null; message: string | null } | null;
  eventsApplied: number;
  asOf: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function viewOf(state: SubscriptionState, now: number, graceMs: number): SubscriptionView {
  const f = state.lastPaymentFailure;
  return {
    customerId: state.customerId,
    subscriptionId: state.subscriptionId,
    status: state.status,
    plan: planAt(state, now, graceMs),
    subscribedPlan: state.plan,
    currentPeriodEnd: iso(state.currentPeriodEnd),
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    graceEndsAt: state.status === 'past_due' && state.pastDueSince !== null ? iso(state.pastDueSince + graceMs) : null,
    lastPaymentFailure: f ? { at: iso(f.at)!, invoiceId: f.invoiceId, attemptCount: f.attemptCount, nextAttemptAt: iso(f.nextAttemptAt), message: f.message } : null,
    eventsApplied: state.eventsApplied,
    asOf: state.asOf ? iso(state.asOf) : null,
  };
}
