/** The activities the subscription workflow calls (activities/billing.activities.ts). */
import type { Plan } from '../../models/shared/plan.rules';

export interface BillingActivities {
  accountOf(customerId: string): Promise<string | null>;
  fetchSubscription(subscriptionId: string): Promise<{ subscriptionId: string; customerId: string; currentPeriodEnd: number | null; plan: Plan | null }>;
  setAccountPlan(input: { userId: string; plan: Plan }): Promise<void>;
}
