/**
 * Plans of the News Intelligence API (spec §2.6, §8). Pure data and functions: used by the API's
 * gating and rate limiting, by billing when a subscription changes a user's plan, and by the CLI.
 */
export const PLANS = ['starter', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const INCLUDE_MODULES = ['sentiment', 'market_impact', 'entities', 'translations', 'scoring', 'classification', 'meta'] as const;
export type IncludeModule = (typeof INCLUDE_MODULES)[number];

export interface PlanLimits {
  /**
   * Requests per minute of the account, whichever of its keys (live and test) sends them: the
   * spec's "per key" limit, held per account so that more keys are not more volume (issue 35).
   */
  perMinute: number;
  /** Requests per calendar month (UTC), live keys only; null is unlimited. */
  perMonth: number | null;
  /** Keys the account may hold at once (active: neither revoked nor expired), live and test together. */
  activeKeys: number;
  /** Webhook endpoints the account may register (enabled and disabled together). */
  webhookEndpoints: number;
  modules: readonly IncludeModule[];
  /** Event streams (GET /api/stream) one key may hold open at once, across every API process. */
  streamsPerKey: number;
  /** …and all the account's keys together: more keys do not multiply the account's streams. */
  streamsPerAccount: number;
}

const STARTER_MODULES = ['translations', 'classification', 'meta'] as const;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { perMinute: 100, perMonth: 500_000, activeKeys: 5, webhookEndpoints: 5, modules: STARTER_MODULES, streamsPerKey: 2, streamsPerAccount: 4 },
  pro: { perMinute: 500, perMonth: 3_000_000, activeKeys: 20, webhookEndpoints: 20, modules: INCLUDE_MODULES, streamsPerKey: 10, streamsPerAccount: 30 },
  business: { perMinute: 2_000, perMonth: null, activeKeys: 100, webhookEndpoints: 100, modules: INCLUDE_MODULES, streamsPerKey: 50, streamsPerAccount: 200 },
};

export const isPlan = (v: string): v is Plan => (PLANS as readonly string[]).includes(v);

/** The plans that include the module, cheapest first (what the API reference says of each module). */
export const plansWith = (module: IncludeModule): Plan[] => PLANS.filter((p) => PLAN_LIMITS[p].modules.includes(module));

/** The cheapest plan that includes the module (for "upgrade to …" messages). */
export function minimumPlanFor(module: IncludeModule): Plan {
  return PLANS.find((p) => PLAN_LIMITS[p].modules.includes(module)) ?? 'business';
}

/** List prices in BRL per key-plan per month (the pricing page's numbers; `calculate_price` uses them). */
export const PLAN_MONTHLY_PRICE_BRL: Record<Plan, number> = { starter: 99, pro: 399, business: 1_499 };
/** Yearly billing: twelve months for the price of ten. */
export const YEARLY_MONTHS_CHARGED = 10;

export interface PriceQuote {
  plan: Plan;
  quantity: number;
  billingPeriod: 'monthly' | 'yearly';
  currency: 'BRL';
  unitPrice: number;
  subtotal: number;
  discount: number;
  total: number;
}

/** A price for `quantity` subscriptions of a plan (amounts in BRL, two decimals). */
export function quotePrice(plan: Plan, quantity: number, billingPeriod: 'monthly' | 'yearly'): PriceQuote {
  const monthly = PLAN_MONTHLY_PRICE_BRL[plan];
  const unitPrice = billingPeriod === 'monthly' ? monthly : monthly * 12;
  const subtotal = unitPrice * quantity;
  const total = billingPeriod === 'monthly' ? subtotal : monthly * YEARLY_MONTHS_CHARGED * quantity;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { plan, quantity, billingPeriod, currency: 'BRL', unitPrice: round(unitPrice), subtotal: round(subtotal), discount: round(subtotal - total), total: round(total) };
}

const PLAN_NAMES: Record<Plan, string> = { starter: 'Starter', pro: 'Pro', business: 'Business' };
/** The plan as customers read it. */
export const planName = (p: Plan) => PLAN_NAMES[p];
