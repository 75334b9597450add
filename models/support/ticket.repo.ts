/**
 * Tickets, messages and their status history. Changes that bulk operations repeat are idempotent
 * by key without transactions (FerretDB v1 has none): the history event is inserted first under a
 * unique key, then the ticket moves only if it still has the event's `from` status. A retry after a
 * crash at any point therefore neither changes the ticket twice nor writes the history twice.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, QueryFilter } from 'mongoose';
import { AppError } from '../errors';
import { insertWithNextId, reserveIds } from '../infra/counters';
import {
  messageModel,
  statusEventModel,
  ticketKey,
  ticketModel,
  type MessageDoc,
  type StatusEventDoc,
  type TicketDoc,
  type TicketRecord,
} from './support.model';
import { canTransition, isReopen, statusAfterAdminReply, type MessageOrigin, type TicketStatus } from './ticket.rules';

export interface NewTicket {
  main: string;
  issue: string;
  description: string;
  email: string;
  newsletter?: string | undefined;
  wantReply?: boolean | undefined;
}

export interface TicketFilters {
  status?: TicketStatus | undefined;
  includeDeleted?: boolean | undefined;
  issue?: string | undefined;
  main?: string | undefined;
  newsletter?: string | undefined;
  email?: string | undefined;
  tag?: number | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  q?: string | undefined;
}

export type ChangeSource = StatusEventDoc['source'];

const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The stored record as the rest of the code sees a ticket: `_id` is the ticket number. */
function toTicket(rec: TicketRecord): TicketDoc {
  const { number, ...rest } = rec;
  return { ...rest, _id: number };
}

export function createTicketRepo(conn: Connection) {
  const Tickets = ticketModel(conn);
  const Messages = messageModel(conn);
  const Events = statusEventModel(conn);

  // Every write and lookup of one ticket filters on its `_id` alone: the one filter FerretDB v1
  // answers without scanning the collection (see TicketRecord).
  const byId = (id: number) => ({ _id: ticketKey(id) });
  const load = async (id: number) => {
    const rec = await Tickets.findOne(byId(id)).lean<TicketRecord>().exec();
    return rec ? toTicket(rec) : null;
  };

  function filterQuery(f: TicketFilters): QueryFilter<TicketRecord> {
    const q: QueryFilter<TicketRecord> = {};
    if (f.status) q.status = f.status;
    else if (!f.includeDeleted) q.status = { $ne: 'deleted' };
    if (f.issue) q.issue = f.issue;
    if (f.main) q.main = f.main;
    if (f.newsletter) q.newsletter = f.newsletter;
    if (f.email) q.email = f.email.toLowerCase();
    if (f.tag !== undefined) q.tags = f.tag;
    if (f.from || f.to) q.createdAt = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lte: f.to } : {}) };
    if (f.q) q.description = { $regex: escapeRegex(f.q), $options: 'i' };
    return q;
  }

  /**
   * Moves a ticket to `to`, recording who and when. Race- and repeat-safe with inserts only (the
   * one write FerretDB v1 makes atomic): each change claims the ticket's next status version with a
   * unique (ticketId, version) history event, so of two concurrent changes from the same state only
   * one applies; the event also carries the change's unique `dedupeKey`, so a bulk operation that
   * repeats a change after a crash finds its event and at most completes it. The ticket is then
   * moved to that version by the event's owner alone.
   */
  async function changeStatus(
    ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion'> & Partial<Pick<TicketDoc, 'reopenCount'>>,
    to: TicketStatus,
    by: string,
    source: ChangeSource,
    dedupeKey: string = randomUUID(),
    options: { bypassTransitions?: boolean } = {},
  ): Promise<{ changed: boolean; from: TicketStatus }> {
    const earlier = await Events.findById(dedupeKey).lean<StatusEventDoc>();
    if (earlier) {
      await apply(earlier);
      return { changed: true, from: earlier.from ?? to };
    }
    const from = ticket.status;
    if (from === to) return { changed: false, from };
    if (!options.bypassTransitions && !canTransition(from, to)) {
      throw new AppError('CONFLICT', `A ticket cannot go from ${from} to ${to}`, { details: { from, to } });
    }
    const event: StatusEventDoc = { _id: dedupeKey, ticketId: ticket._id, version: ticket.statusVersion ?? 0, from, to, by, at: new Date(), source };
    try {
      await Events.create(event);
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      const mine = await Events.findById(dedupeKey).lean<StatusEventDoc>();
      if (!mine) return { changed: false, from }; // another change took this version first
      await apply(mine);
      return { changed: true, from };
    }
    // Our event claimed the version the ticket was read at, so the ticket is still there: what was
    // read is current and need not be read again.
    await apply(event, ticket.reopenCount === undefined ? undefined : { statusVersion: event.version, reopenCount: ticket.reopenCount });
    return { changed: true, from };
  }

  /**
   * Moves the ticket to the state after `event`, if it is still at the event's version. Only the
   * event's owner moves the ticket from that version (the event is unique per version), so reading
   * the version and then writing by `_id` is enough; every value written follows from the event and
   * that read, so an owner repeating the move (a retried activity) writes the same values again.
   */
  async function apply(
    event: Pick<StatusEventDoc, 'ticketId' | 'version' | 'from' | 'to' | 'at'>,
    known?: Pick<TicketRecord, 'statusVersion' | 'reopenCount'>,
  ): Promise<void> {
    const current = known ?? (await Tickets.findOne(byId(event.ticketId), { statusVersion: 1, reopenCount: 1 }).lean<Pick<TicketRecord, 'statusVersion' | 'reopenCount'>>());
    if (!current || current.statusVersion !== event.version) return;
    const set: Partial<TicketRecord> = { status: event.to, statusVersion: event.version + 1, updatedAt: event.at };
    if (event.to === 'resolved') set.resolvedAt = event.at;
    if (event.to === 'deleted') Object.assign(set, { deletedAt: event.at, statusBeforeDelete: event.from });
    if (event.from === 'deleted') Object.assign(set, { deletedAt: null, statusBeforeDelete: null });
    if (event.from !== null && isReopen(event.from, event.to)) set.reopenCount = (current.reopenCount ?? 0) + 1;
    await Tickets.updateOne(byId(event.ticketId), { $set: set });
  }

  return {
    changeStatus,

    async create(input: NewTicket, by: string): Promise<TicketDoc> {
      const now = new Date();
      const doc = await insertWithNextId(conn, 'tickets', 'tickets', (id) => Tickets.create({
        _id: ticketKey(id),
        number: id,
        main: input.main,
        issue: input.issue,
        description: input.description,
        email: input.email,
        newsletter: input.newsletter ?? null,
        wantReply: input.wantReply ?? true,
        status: 'open',
        statusVersion: 1,
        createdAt: now,
        updatedAt: now,
      }), 'number');
      const ticket = toTicket(doc.toObject());
      await Events.create({ _id: `create:${ticket._id}`, ticketId: ticket._id, version: 0, from: null, to: 'open', by, at: now, source: 'create' });
      return ticket;
    },

    findById: load,

    async list(f: TicketFilters, page: number, limit: number): Promise<{ items: TicketDoc[]; total: number }> {
      const q = filterQuery(f);
      const [items, total] = await Promise.all([
        Tickets.find(q)
          .sort({ createdAt: -1, number: -1 })
          .skip((page - 1) * limit)
          .limit(limit)
          .lean<TicketRecord[]>(),
        Tickets.countDocuments(q),
      ]);
      return { items: items.map(toTicket), total };
    },

    /** Ids matching filters, for bulk selection (at most `max`). */
    async idsMatching(f: TicketFilters, max: number): Promise<number[]> {
      const rows = await Tickets.find(filterQuery(f), { number: 1 }).sort({ number: 1 }).limit(max).lean<{ number: number }[]>();
      return rows.map((r) => r.number);
    },

    async updateFields(id: number, fields: Partial<Pick<TicketDoc, 'issue' | 'main' | 'newsletter' | 'replied'>>): Promise<void> {
      if (Object.keys(fields).length === 0) return;
      await Tickets.updateOne(byId(id), { $set: { ...fields, updatedAt: new Date() } });
    },

    async restore(ticket: TicketDoc, by: string): Promise<TicketStatus> {
      if (ticket.status !== 'deleted') throw new AppError('CONFLICT', 'Only a deleted ticket can be restored');
      const back = ticket.statusBeforeDelete ?? 'open';
      const { changed } = await changeStatus(ticket, back, by, 'restore', undefined, { bypassTransitions: true });
      if (!changed) throw new AppError('CONFLICT', 'The ticket changed meanwhile; try again');
      return back;
    },

    history: (ticketId: number) => Events.find({ ticketId }).sort({ version: 1 }).lean<StatusEventDoc[]>().exec(),

    messages: (ticketId: number) => Messages.find({ ticketId }).sort({ createdAt: 1, _id: 1 }).lean<MessageDoc[]>().exec(),

    messageBelongs: async (ticketId: number, messageId: number) => (await Messages.exists({ _id: messageId, ticketId })) !== null,

    /**
     * Adds a message. With a `dedupeKey` (bulk operations) a repeat adds nothing. An admin reply
     * records the first admin reply and moves an open ticket to in_progress.
     */
    async addMessage(
      ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion'>,
      m: { conteudo: string; remetente: string; origem: MessageOrigin; dedupeKey?: string },
      source: ChangeSource = 'message',
    ): Promise<{ message: MessageDoc; added: boolean }> {
      let message: MessageDoc;
      let added = true;
      try {
        message = (
          await insertWithNextId(conn, 'ticket_messages', 'ticket_messages', (id) =>
            Messages.create({ _id: id, ticketId: ticket._id, conteudo: m.conteudo, remetente: m.remetente, origem: m.origem, dedupeKey: m.dedupeKey ?? `msg:${id}` }),
          )
        ).toObject();
      } catch (err) {
        if (!isDuplicate(err) || !m.dedupeKey) throw err;
        message = (await Messages.findOne({ dedupeKey: m.dedupeKey }).lean<MessageDoc>())!;
        added = false;
      }
      const dedupeKey = message.dedupeKey;
      const at = message.createdAt;
      const current = await Tickets.findOne(byId(ticket._id), { firstAdminReplyAt: 1 }).lean<Pick<TicketRecord, 'firstAdminReplyAt'>>();
      const firstReply = m.origem === 'admin' && !current?.firstAdminReplyAt;
      await Tickets.updateOne(byId(ticket._id), { $set: { lastMessageAt: at, updatedAt: new Date(), ...(firstReply ? { firstAdminReplyAt: at } : {}) } });
      if (m.origem === 'admin') {
        const next = statusAfterAdminReply(ticket.status);
        if (next !== ticket.status) await changeStatus(ticket, next, m.remetente, source, `${dedupeKey}:status`);
      }
      return { message, added };
    },

    async addTag(ticketId: number, tagId: number): Promise<void> {
      await Tickets.updateOne(byId(ticketId), { $addToSet: { tags: tagId }, $set: { updatedAt: new Date() } });
    },

    async removeTag(ticketId: number, tagId: number): Promise<boolean> {
      const current = await Tickets.findOne(byId(ticketId), { tags: 1 }).lean<Pick<TicketRecord, 'tags'>>();
      if (!current?.tags.includes(tagId)) return false;
      await Tickets.updateOne(byId(ticketId), { $pull: { tags: tagId }, $set: { updatedAt: new Date() } });
      return true;
    },

    async dropTagEverywhere(tagId: number): Promise<void> {
      await Tickets.updateMany({ tags: tagId }, { $pull: { tags: tagId } });
    },

    /**
     * Inserts many tickets at once (seeding, benchmarks, tests), in the given status (default
     * open) and creation time (default now); every other field takes its default. No history.
     */
    async insertMany(rows: (NewTicket & { status?: TicketStatus; createdAt?: Date })[]): Promise<number[]> {
      const first = await reserveIds(conn, 'tickets', rows.length);
      const now = new Date();
      const docs = rows.map((r, i) => ({
        ...r,
        newsletter: r.newsletter ?? null,
        wantReply: r.wantReply ?? true,
        status: r.status ?? 'open',
        statusVersion: 1,
        createdAt: r.createdAt ?? now,
        updatedAt: r.createdAt ?? now,
        _id: ticketKey(first + i),
        number: first + i,
      }));
      await Tickets.insertMany(docs, { ordered: false });
      return docs.map((d) => d.number);
    },
  };
}

export type TicketRepo = ReturnType<typeof createTicketRepo>;
