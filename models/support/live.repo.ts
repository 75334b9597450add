/**
 * What the support desk's live updates read and write (issue 38): the tickets changed since a
 * moment (the tickets are the event log: every change sets `updatedAt`), and who is on which
 * ticket (`support_presence`, entries that expire). Works the same on FerretDB and MongoDB: plain
 * indexed reads, no change streams.
 */
import type { Connection } from 'mongoose';
import { isDuplicateKey, READ_TIME_LIMIT_MS, writeRacingOnUniqueKey } from '../infra/mongo';
import { presenceId, type PresenceEntry, type PresenceState, type TicketChange } from './live.rules';
import { presenceModel, ticketModel, type PresenceDoc, type TicketDoc } from './support.model';

type ChangeRow = Pick<TicketDoc, '_id' | 'status' | 'updatedAt' | 'lastMessageAt' | 'tags'> & { assignee?: string | null };

const toChange = (t: ChangeRow): TicketChange => ({
  id: t._id,
  status: t.status,
  // Read defensively: tickets stored before assignment existed have no such field.
  ...(t.assignee !== undefined ? { assignee: t.assignee } : {}),
  updatedAt: t.updatedAt,
  lastMessageAt: t.lastMessageAt ?? null,
  tags: t.tags ?? [],
});

const toEntry = (p: PresenceDoc): PresenceEntry => ({ ticketId: p.ticketId, email: p.email, state: p.state, expiresAt: p.expiresAt });

export function createLiveRepo(conn: Connection) {
  const Tickets = ticketModel(conn);
  const Presence = presenceModel(conn);

  return {
    /**
     * The tickets changed after `since` (updatedAt > since), oldest change first, at most `limit`;
     * one ticket's alone with `ticketId`. Served by the index {updatedAt: 1, _id: 1}.
     */
    async changedSince(since: Date, options: { limit: number; ticketId?: number | undefined }): Promise<TicketChange[]> {
      const filter = { updatedAt: { $gt: since }, ...(options.ticketId !== undefined ? { _id: options.ticketId } : {}) };
      const rows = await Tickets.find(filter, { status: 1, assignee: 1, updatedAt: 1, lastMessageAt: 1, tags: 1 })
        .sort({ updatedAt: 1, _id: 1 })
        .limit(options.limit)
        .setOptions({ maxTimeMS: READ_TIME_LIMIT_MS })
        .lean<ChangeRow[]>()
        .exec();
      return rows.map(toChange);
    },

    /** Whether a ticket exists (deleted ones too: staff may look at them). */
    ticketExists: async (ticketId: number): Promise<boolean> => (await Tickets.exists({ _id: ticketId })) !== null,

    /** Every unexpired entry (expiresAt > now), at most `limit`, by ticket. */
    async activePresence(now: Date, limit: number): Promise<PresenceEntry[]> {
      const rows = await Presence.find({ expiresAt: { $gt: now } })
        .sort({ ticketId: 1, expiresAt: 1 })
        .limit(limit)
        .setOptions({ maxTimeMS: READ_TIME_LIMIT_MS })
        .lean<PresenceDoc[]>()
        .exec();
      return rows.map(toEntry);
    },

    /** A ticket's unexpired entries. */
    async presenceOn(ticketId: number, now: Date): Promise<PresenceEntry[]> {
      const rows = await Presence.find({ ticketId, expiresAt: { $gt: now } }).setOptions({ maxTimeMS: READ_TIME_LIMIT_MS }).lean<PresenceDoc[]>().exec();
      return rows.map(toEntry);
    },

    /** Says (again) that `email` is on the ticket in `state` until `expiresAt`: one upsert. */
    async putPresence(ticketId: number, email: string, state: PresenceState, expiresAt: Date): Promise<void> {
      const _id = presenceId(ticketId, email);
      const write = (upsert: boolean) => writeRacingOnUniqueKey(() => Presence.updateOne({ _id }, { $set: { ticketId, email, state, expiresAt } }, { upsert }));
      try {
        await write(true);
      } catch (err) {
        // Two heartbeats of one person upserting at once: the loser finds the entry and updates it.
        if (!isDuplicateKey(err)) throw err;
        await write(false);
      }
    },

    /** `email` left the ticket. */
    async removePresence(ticketId: number, email: string): Promise<void> {
      await Presence.deleteOne({ _id: presenceId(ticketId, email) });
    },
  };
}

export type LiveRepo = ReturnType<typeof createLiveRepo>;
