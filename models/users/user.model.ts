/**
 * Users of the platform, keyed by the id the identity provider puts in the token's `sub`. The plan
 * decides what a user's news API keys may do; billing changes it when a subscription does.
 *
 * `email` is a proven address (a mailed sign-in code came back, or the identity provider's token
 * carried it); an address typed on WhatsApp is kept apart as `unverifiedEmail` until proven
 * (email.rules.ts: users WhatsApp made before that rule hold it as `email`, told apart by id).
 */
import { type Connection, type Model, Schema } from 'mongoose';
import { PLANS, type Plan } from '../shared/plan.rules';

export interface UserDoc {
  _id: string;
  email?: string;
  /** When a sign-in code mailed to `email` first came back. */
  emailVerifiedAt?: Date;
  /** An address the user typed (a WhatsApp sign-up) and never proved: it claims nothing. */
  unverifiedEmail?: string;
  name?: string;
  plan: Plan;
  createdAt: Date;
  updatedAt: Date;
}

const UserSchema = new Schema<UserDoc>(
  {
    _id: { type: String, required: true },
    email: { type: String, lowercase: true, trim: true },
    emailVerifiedAt: { type: Date },
    unverifiedEmail: { type: String, lowercase: true, trim: true },
    name: { type: String, trim: true },
    plan: { type: String, enum: PLANS, required: true, default: 'starter' },
  },
  { collection: 'users', timestamps: true, versionKey: false },
);
UserSchema.index({ email: 1 }, { sparse: true });

export function userModel(conn: Connection): Model<UserDoc> {
  return (conn.models.User as Model<UserDoc> | undefined) ?? conn.model<UserDoc>('User', UserSchema);
}
