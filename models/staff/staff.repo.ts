/**
 * Staff members and their audit log (issue 38), in two collections:
 * - `staff_members`: one per member, `_id` the normalised e-mail address; `version` counts its
 *   writes, and every change is conditional on the version read (a change that lost a race to
 *   another one is told so and reads again);
 * - `staff_audit`: append-only, one document inserted per change, `_id` time-ordered
 *   (operations/staff/members.ts auditEntryId), read newest first by `_id`.
 * Every write is one single-document atomic write: no transaction is needed (the last-owner rule is
 * held by counting after the write: operations/staff/members.ts). No index but `_id` is needed: the
 * staff is small (STAFF_MAX) and the audit log is read by `_id`.
 */
import type { Connection } from 'mongoose';
import { collectionOf, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import { OWNER, type AuditAction, type StaffRole, type StaffState, type StaffStatus } from './staff.rules';

export interface StaffMemberDoc {
  /** The normalised e-mail address. */
  _id: string;
  roles: StaffRole[];
  status: StaffStatus;
  /** Who invited the member (a member's address, or `cli`, `seed`). */
  invitedBy: string;
  invitedAt: Date;
  /** When the address signed in with a mailed code after the invitation; null while invited. */
  activatedAt: Date | null;
  updatedAt: Date;
  version: number;
}

export interface StaffAuditDoc {
  /** operations/staff/members.ts auditEntryId: time-ordered. */
  _id: string;
  at: Date;
  /** Who did it: a member's address, or `cli`, `seed`. */
  actor: string;
  action: AuditAction;
  /** The member it was done to (its address); null for a console change. */
  member: string | null;
  before: StaffState | null;
  after: StaffState | null;
  /** A console change: the operation (`PUT /support/{id}/assignee`), its path parameters, and what was sent (staff.rules.ts auditedChange). */
  operation?: string;
  target?: Record<string, string | number>;
  change?: string | null;
}

export function createStaffRepo(conn: Connection) {
  const members = () => collectionOf<StaffMemberDoc>(conn, 'staff_members');
  const audit = () => collectionOf<StaffAuditDoc>(conn, 'staff_audit');

  return {
    findMember: (email: string) => members().findOne({ _id: email }),

    /** Every member, by address (at most `limit`). */
    listMembers: (limit: number) => members().find({}).sort({ _id: 1 }).limit(limit).toArray(),

    countMembers: () => members().countDocuments({}),

    /** Active owners: those the last-owner rule keeps at least one of. */
    countActiveOwners: () => members().countDocuments({ roles: OWNER, status: 'active' }),

    /** Adds a member: false when the address is a member already. */
    async insertMember(doc: StaffMemberDoc): Promise<boolean> {
      try {
        await writeRacingOnUniqueKey(() => members().insertOne(doc));
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Sets the roles of the member as it was read (`version`); null when it changed or went meanwhile. */
    setRoles: (email: string, version: number, roles: StaffRole[], now: Date) =>
      members().findOneAndUpdate({ _id: email, version }, { $set: { roles, updatedAt: now }, $inc: { version: 1 } }, { returnDocument: 'after' }),

    /** Removes the member as it was read (`version`); false when it changed or went meanwhile. */
    removeMember: async (email: string, version: number): Promise<boolean> => (await members().deleteOne({ _id: email, version })).deletedCount === 1,

    /**
     * Puts back what a write took away, whatever was written since (the last-owner rule undoing a
     * write that left no owner): the roles and status of `before` on the member, or the member
     * itself when it was removed.
     */
    async restoreMember(before: StaffMemberDoc, now: Date): Promise<void> {
      const back = { roles: before.roles, status: before.status, activatedAt: before.activatedAt, updatedAt: now };
      // Updated when it is there, inserted again when it was removed (a racing insert: update it).
      for (let attempt = 0; attempt < 3; attempt += 1) {
        if ((await members().updateOne({ _id: before._id }, { $set: back, $inc: { version: 1 } })).matchedCount === 1) return;
        try {
          await writeRacingOnUniqueKey(() => members().insertOne({ ...before, ...back, version: before.version + 1 }));
          return;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      throw new Error(`staff member ${before._id} could not be restored`);
    },

    /** Makes an invited member active; returns the member as it was (null when it was not invited). */
    activate: (email: string, now: Date) =>
      members().findOneAndUpdate({ _id: email, status: 'invited' }, { $set: { status: 'active', activatedAt: now, updatedAt: now }, $inc: { version: 1 } }, { returnDocument: 'before' }),

    /** Appends an entry to the audit log. */
    async record(entry: StaffAuditDoc): Promise<void> {
      await writeRacingOnUniqueKey(() => audit().insertOne(entry));
    },

    /** Audit entries older than `before` (an entry's id; the newest without it), newest first. */
    auditPage: (input: { before?: string | undefined; limit: number }) =>
      audit()
        .find(input.before === undefined ? {} : { _id: { $lt: input.before } })
        .sort({ _id: -1 })
        .limit(input.limit)
        .toArray(),
  };
}

export type StaffRepo = ReturnType<typeof createStaffRepo>;
