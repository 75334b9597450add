/**
 * One long-lived workflow per Stripe customer (`subscription-<customerId>`; issue 13, spec §3.2,
 * docs/decisions.md "Billing"). The webhook signals each verified Stripe event to it with
 * signal-with-start; it applies them in order of arrival with the state machine of
 * models/billing/subscription.rules.ts (duplicates and stale or late events change nothing), and
 * keeps the account's plan equal to what the subscription pays for:
 *
 * - Pro or Business while the subscription is active (or trialing);
 * - past_due: the paid plan until the grace period ends (a durable timer), then Starter unless a
 *   payment succeeds first;
 * - canceled: the paid plan until the end of the period paid for, then Starter.
 *
 * Its state is readable with the `subscription` query (GET /api/subscriptions/me and the Temporal
 * UI). It continues as new, carrying the state, before its history grows large.
 */
import { condition, continueAsNew, defineQuery, defineSignal, isCancellation, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BillingActivities } from './activities';
import { applyEvent, initialState, learnPeriod, nextChangeAt, planAt, viewOf, type BillingEvent, type SubscriptionState, type SubscriptionView } from '../../models/billing/subscription.rules';
import { pauseAfterGivingUpMs, RETRY, withNonRetryable } from '../retry-policies';

type Activities = BillingActivities;

// Database work: a bounded number of tries. An outage longer than them delays the plan change,
// never loses it: the workflow notes the failure and tries again after a pause (or at the next event).
const { accountOf, setAccountPlan } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.short,
});

// Asking Stripe for the period Checkout does not carry: worth a few tries, not worth waiting on.
const { fetchSubscription } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: withNonRetryable(RETRY.quick, ['BillingNotConfigured']),
});

export const stripeEventSignal = defineSignal<[BillingEvent]>('stripeEvent');
export const subscriptionQuery = defineQuery<SubscriptionView>('subscription');

export interface SubscriptionWorkflowInput {
  customerId: string;
  /** How long a past_due subscription keeps its paid plan (BILLING_GRACE_DAYS). */
  graceMs: number;
  /** Events applied per run before continuing as new (a run's history stays small). */
  maxEventsPerRun?: number;
  /** Carried over by continue-as-new. */
  state?: SubscriptionState;
}

export const DEFAULT_MAX_EVENTS_PER_RUN = 500;

export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<never> {
  const state = input.state ?? initialState(input.customerId);
  const maxEvents = input.maxEventsPerRun ?? DEFAULT_MAX_EVENTS_PER_RUN;
  const inbox: BillingEvent[] = [];
  let received = 0;
  /** Plan writes in a row whose activities gave up after their retries. */
  let givenUp = 0;
  setHandler(stripeEventSignal, (event) => {
    inbox.push(event);
  });
  setHandler(subscriptionQuery, () => viewOf(state, Date.now(), input.graceMs));

  for (;;) {
    while (inbox.length > 0) {
      const event = inbox.shift()!;
      received += 1;
      const outcome = applyEvent(state, event);
      log.info('stripe event', { eventId: event.id, type: event.type, outcome, status: state.status });
      if (outcome === 'applied' && event.wantsPeriod && state.subscriptionId && state.currentPeriodEnd === null) {
        try {
          const fetched = await fetchSubscription(state.subscriptionId);
          if (!learnPeriod(state, fetched)) log.warn('the subscription Stripe gave back is not this customer\'s; period left unknown', { subscriptionId: state.subscriptionId });
        } catch (err) {
          log.warn('could not ask Stripe for the subscription; its period stays unknown until the next invoice', { error: (err as Error).message });
        }
      }
    }

    if (state.status !== 'none') {
      try {
        await applyPlan();
        givenUp = 0;
      } catch (err) {
        if (isCancellation(err)) throw err;
        // Retried to the end (the database away for long): the plan stays as it was, and is set
        // again after a pause, or at the next event, whichever comes first.
        givenUp += 1;
        log.warn('the account plan could not be set; trying again later', { customerId: state.customerId, error: (err as Error).message, pauseMs: pauseAfterGivingUpMs(givenUp) });
      }
    }

    if (inbox.length === 0 && (received >= maxEvents || workflowInfo().continueAsNewSuggested)) {
      await continueAsNew<typeof subscriptionWorkflow>({ ...input, state });
    }
    const changeAt = nextChangeAt(state, Date.now(), input.graceMs);
    const retryAt = givenUp > 0 ? Date.now() + pauseAfterGivingUpMs(givenUp) : null;
    const wakeAt = changeAt === null ? retryAt : retryAt === null ? changeAt : Math.min(changeAt, retryAt);
    if (wakeAt === null) await condition(() => inbox.length > 0);
    else await condition(() => inbox.length > 0, Math.max(1, wakeAt - Date.now()));
  }

  /** Keeps the account's plan what the subscription pays for now. */
  async function applyPlan(): Promise<void> {
    // The account Stripe's objects name (our Checkout writes it), else our link made at checkout.
    state.userId ??= await accountOf(state.customerId);
    const plan = planAt(state, Date.now(), input.graceMs);
    if (!state.userId) log.warn('no account is linked to this Stripe customer; its plan cannot be set', { customerId: state.customerId });
    else if (plan !== state.appliedPlan) {
      await setAccountPlan({ userId: state.userId, plan });
      log.info('account plan set', { userId: state.userId, plan, status: state.status });
      state.appliedPlan = plan;
    }
  }
}
