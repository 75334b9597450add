import type { Connection } from 'mongoose';
import type { Plan } from '../news/plan.rules';
import { userModel, type UserDoc } from './user.model';
import { isDuplicateKey } from '../infra/mongo';

export function createUserRepo(conn: Connection) {
  const Users = userModel(conn);
  return {
    findById: (id: string) => Users.findById(id).lean<UserDoc>().exec(),

    /** The oldest user with this address (addresses are stored lower-cased), if any. */
    findByEmail: (email: string) => Users.findOne({ email }).sort({ createdAt: 1 }).lean<UserDoc>().exec(),

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
