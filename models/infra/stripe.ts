/**
 * The Stripe client of the APIs and the billing worker: Stripe itself, or stripe-mock (Stripe's own
 * mock of its API) when STRIPE_API_URL points to one. Undefined when no key is configured.
 */
import Stripe from 'stripe';
import type { Config } from '../config';
import { AppError, dependencyUnavailable } from '../errors';

export type StripeClient = Stripe;

export function createStripe(config: Pick<Config, 'billing'>): Stripe | undefined {
  const stripe = config.billing.stripe;
  if (!stripe) return undefined;
  const url = stripe.apiUrl ? new URL(stripe.apiUrl) : undefined;
  return new Stripe(stripe.secretKey, {
    // The library's own retries (with idempotency keys on POSTs) ride out a blip of Stripe's.
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'newsletter-platform' },
    ...(url ? { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), protocol: url.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}

/** A Stripe client, or 503 naming billing when none is configured. */
export function requireStripe(stripe: Stripe | undefined): Stripe {
  if (!stripe) throw new AppError('DEPENDENCY_UNAVAILABLE', 'Billing is not configured on this deployment (no Stripe key)', { details: { dependency: 'stripe' } });
  return stripe;
}

/** Stripe keys and secrets as they may appear in an error message (stripe-mock echoes the key). */
const SECRET_LIKE = /\b(sk|rk|pk)_(test|live)_[A-Za-z0-9]+|\bwhsec_[A-Za-z0-9_-]+/g;
export const redactStripeSecrets = (text: string) => text.replace(SECRET_LIKE, '[redacted]');

/**
 * Stripe failures as the API answers them: Stripe unreachable, failing, limiting us or refusing
 * our key is a 503 (the client may retry; the operator sees the cause in the log); anything else
 * Stripe refuses is our request's fault, a 500. Messages are logged without keys.
 */
export function stripeFailure(err: unknown): Error {
  if (err instanceof Stripe.errors.StripeError) {
    const message = redactStripeSecrets(`Stripe: ${err.type}: ${err.message}`);
    if (
      err instanceof Stripe.errors.StripeConnectionError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeRateLimitError ||
      err instanceof Stripe.errors.StripeAuthenticationError ||
      err instanceof Stripe.errors.StripePermissionError ||
      (err.statusCode ?? 0) >= 500
    ) {
      return dependencyUnavailable('stripe', new Error(message));
    }
    return new Error(`Stripe refused the request: ${message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** A Stripe call, its failures as the API answers them ({@link stripeFailure}). */
export async function callStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw stripeFailure(err);
  }
}
