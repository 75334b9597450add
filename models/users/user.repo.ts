import type { Connection } from 'mongoose';
import type { Plan } from '../shared/plan.rules';
import { userModel, type UserDoc } from './user.model';
import { verifiedEmailOf } from './email.rules';
import { isDuplicateKey } from '../infra/mongo';

/** Users looked at per address: one proven holder, and the few that typed it on WhatsApp. */
const SAME_ADDRESS_LIMIT = 100;

export function createUserRepo(conn: Connection) {
  const Users = userModel(conn);
  return {
    findById: (id: string) => Users.findById(id).lean<UserDoc>().exec(),

    /** The proven address of each of these users that has one (readers' mail goes nowhere else). */
    async verifiedEmails(ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const users = await Users.find({ _id: { $in: ids } }, { email: 1, emailVerifiedAt: 1, unverifiedEmail: 1 }).lean<UserDoc[]>();
      return new Map(users.flatMap((u) => (verifiedEmailOf(u) ? [[u._id, verifiedEmailOf(u)!] as const] : [])));
    },

    /** The plan of each of these users that exists (webhook messages show articles as the account's plan does). */
    async plansOf(ids: string[]): Promise<Map<string, Plan>> {
      if (ids.length === 0) return new Map();
      const users = await Users.find({ _id: { $in: ids } }, { plan: 1 }).lean<UserDoc[]>();
      return new Map(users.map((u) => [u._id, u.plan] as const));
    },

    /**
     * The oldest user whose address this is, proven (addresses are stored lower-cased): never one
     * that only typed it on WhatsApp (email.rules.ts), whether it holds it as `unverifiedEmail`
     * or, made before that rule, as `email`.
     */
    async findByVerifiedEmail(email: string): Promise<UserDoc | null> {
      const holders = await Users.find({ email }).sort({ createdAt: 1, _id: 1 }).limit(SAME_ADDRESS_LIMIT).lean<UserDoc[]>();
      return holders.find((u) => verifiedEmailOf(u) === email) ?? null;
    },

    /**
     * The user, created when missing, with `email` proven now (a sign-in code mailed to it came
     * back): it is the user's address from then on, `emailVerifiedAt` the first time it was proven.
     */
    async markEmailVerified(id: string, email: string, now: Date): Promise<UserDoc> {
      const upsert = () =>
        Users.findOneAndUpdate(
          { _id: id },
          { $set: { email }, $min: { emailVerifiedAt: now }, $setOnInsert: { plan: 'starter' } },
          { upsert: true, returnDocument: 'after' },
        ).lean<UserDoc>();
      try {
        return (await upsert())!;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return (await upsert())!; // created meanwhile by another request: now an update
      }
    },

    /**
     * The user a WhatsApp sign-up makes (Starter), created once: the typed address is kept as
     * unproven, so it names nobody's account. Repeatable (the id is derived from phone and address).
     */
    async ensureWhatsAppSignUp(id: string, input: { name: string; email: string }): Promise<void> {
      try {
        await Users.updateOne({ _id: id }, { $setOnInsert: { unverifiedEmail: input.email, name: input.name, plan: 'starter' } }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // made meanwhile by a retry
      }
    },

    /** The user, created on the Starter plan when missing (the plan is billing's to change). */
    async ensure(id: string, email?: string): Promise<UserDoc> {
      const existing = await Users.findById(id).lean<UserDoc>();
      if (existing) return existing;
      try {
        return (await Users.create({ _id: id, plan: 'starter', ...(email ? { email } : {}) })).toObject();
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return (await Users.findById(id).lean<UserDoc>())!; // created meanwhile by another request
      }
    },

    /** Creates the user when missing and sets the plan (and email when given). */
    async setPlan(id: string, plan: Plan, email?: string): Promise<UserDoc> {
      const doc = await Users.findOneAndUpdate(
        { _id: id },
        { $set: { plan, ...(email ? { email } : {}) } },
        { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true },
      ).lean<UserDoc>();
      return doc!;
    },
  };
}

export type UserRepo = ReturnType<typeof createUserRepo>;
