/**
 * Plans of the News Intelligence API (spec §2.6, §8). Pure data and functions: used by the API's
 * gating and rate limiting, by billing when a subscription changes a user's plan, and by the CLI.
 */
export const PLANS = ['starter', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const INCLUDE_MODULES = ['sentiment', 'market_impact', 'entities', 'translations', 'scoring', 'classification', 'meta'] as const;
export type IncludeModule = (typeof INCLUDE_MODULES)[number];

export interface PlanLimits {
  /** Requests per minute, per key. */
  perMinute: number;
  /** Requests per calendar month (UTC), live keys only; null is unlimited. */
  perMonth: number | null;
  modules: readonly IncludeModule[];
}

const STARTER_MODULES = ['translations', 'classification', 'meta'] as const;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { perMinute: 100, perMonth: 500_000, modules: STARTER_MODULES },
  pro: { perMinute: 500, perMonth: 3_000_000, modules: INCLUDE_MODULES },
  business: { perMinute: 2_000, perMonth: null, modules: INCLUDE_MODULES },
};

export const isPlan = (v: string): v is Plan => (PLANS as readonly string[]).includes(v);

/** The cheapest plan that includes the module (for "upgrade to …" messages). */
export function minimumPlanFor(module: IncludeModule): Plan {
  return PLANS.find((p) => PLAN_LIMITS[p].modules.includes(module)) ?? 'business';
}
