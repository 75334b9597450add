import type { Connection } from 'mongoose';
import type { Plan } from '../news/plan.rules';
import { userModel, type UserDoc } from './user.model';

export function createUserRepo(conn: Connection) {
  const Users = userModel(conn);
  return {
    findById: (id: string) => Users.findById(id).lean<UserDoc>().exec(),

    /** Creates the user when missing and sets the plan (and email when given). */
    async setPlan(id: string, plan: Plan, email?: string): Promise<UserDoc> {
      const doc = await Users.findOneAndUpdate(
        { _id: id },
        { $set: { plan, ...(email ? { email } : {}) } },
        { upsert: true, new: true, setDefaultsOnInsert: true },
      ).lean<UserDoc>();
      return doc!;
    },
  };
}

export type UserRepo = ReturnType<typeof createUserRepo>;
