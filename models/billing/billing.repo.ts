/**
 * Billing's records (issue 13):
 * - `billing_customers`: the Stripe customer of an account, `_id` = the account (user) id, so an
 *   account has one customer however many checkouts start at once; `customerId` is unique too,
 *   so a Stripe customer belongs to one account (the webhook's way back to the account).
 * - `stripe_events`: every verified webhook event, `_id` = Stripe's event id, stored once, with
 *   when it was handed to its subscription workflow (a delivery that could not be handed over is
 *   handed over by Stripe's next delivery of it).
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import type { BillingEvent } from './subscription.rules';

export interface BillingCustomerDoc {
  _id: string;
  customerId: string;
  email: string | null;
  createdAt: Date;
}

export interface StripeEventDoc {
  _id: string;
  type: string;
  /** Stripe's `created`. */
  created: Date;
  customerId: string | null;
  livemode: boolean;
  receivedAt: Date;
  /** When the subscription workflow was sent the event; null until then. */
  forwardedAt: Date | null;
  /** Why the event needs no workflow (a type we do not use, no customer). */
  ignored: string | null;
  /** What the subscription workflow is sent (null when ignored). */
  summary: BillingEvent | null;
  deliveries: number;
}

export function createBillingRepo(conn: Connection) {
  const customers = () => collectionOf<BillingCustomerDoc>(conn, 'billing_customers');
  const events = () => collectionOf<StripeEventDoc>(conn, 'stripe_events');
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () =>
    (indexed ??= buildIndexesRacing(() =>
      Promise.all([
        customers().createIndex({ customerId: 1 }, { unique: true, name: 'customer_unique' }),
        events().createIndex({ customerId: 1, created: -1 }, { name: 'customer_created' }),
        // The relay's question: what is not handed over yet, oldest first.
        events().createIndex({ forwardedAt: 1, receivedAt: 1 }, { name: 'forwarded_received' }),
      ]),
    ).catch((err) => {
      indexed = undefined;
      throw err;
    }));
  return {
    ensureIndexes,
    customerOf: async (userId: string) => await customers().findOne({ _id: userId }),
    accountOf: async (customerId: string) => {
      await ensureIndexes();
      return (await customers().findOne({ customerId }, { projection: { _id: 1 } }))?._id ?? null;
    },
    /** Links the account to a Stripe customer unless it has one already; gives the one that stands. */
    async linkCustomer(userId: string, customerId: string, email: string | null): Promise<BillingCustomerDoc> {
      await ensureIndexes();
      try {
        const doc = { _id: userId, customerId, email, createdAt: new Date() };
        await writeRacingOnUniqueKey(() => customers().insertOne(doc));
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await customers().findOne({ _id: userId });
        if (!existing) throw err; // the customer id is another account's: not ours to take
        return existing;
      }
    },

    /**
     * Stores a verified event once. Gives the stored record: `fresh` for the first delivery;
     * a redelivery counts itself and gives the record as it is.
     */
    async record(doc: Omit<StripeEventDoc, 'receivedAt' | 'forwardedAt' | 'deliveries'>): Promise<{ fresh: boolean; stored: StripeEventDoc }> {
      await ensureIndexes();
      const stored: StripeEventDoc = { ...doc, receivedAt: new Date(), forwardedAt: null, deliveries: 1 };
      try {
        await events().insertOne(stored);
        return { fresh: true, stored };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const again = await events().findOneAndUpdate({ _id: doc._id }, { $inc: { deliveries: 1 } }, { returnDocument: 'after' });
        return { fresh: false, stored: again ?? stored };
      }
    },
    markForwarded: async (eventId: string) => {
      await events().updateOne({ _id: eventId, forwardedAt: null }, { $set: { forwardedAt: new Date() } });
    },
    event: async (eventId: string) => await events().findOne({ _id: eventId }),
    /** Events for a workflow, not handed over, received before `before`; oldest first. */
    pending: async (before: Date, limit: number) => {
      await ensureIndexes();
      return await events()
        .find({ forwardedAt: null, receivedAt: { $lt: before }, summary: { $ne: null } }, { sort: { forwardedAt: 1, receivedAt: 1 }, limit, batchSize: limit })
        .toArray();
    },
  };
}

export type BillingRepo = ReturnType<typeof createBillingRepo>;
