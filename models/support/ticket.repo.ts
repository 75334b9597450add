/**
 * Tickets, messages and their status history. Changes that bulk operations repeat are idempotent
 * by key without transactions (FerretDB v1 has none): the history event is inserted first under a
 * unique key, then the ticket moves only if it still has the event's `from` status. A retry after a
 * crash at any point therefore neither changes the ticket twice nor writes the history twice.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, QueryFilter } from 'mongoose';
import { AppError } from '../errors';
import { nextId, reserveIds } from '../infra/counters';
import {
  messageModel,
  statusEventModel,
  ticketModel,
  type MessageDoc,
  type StatusEventDoc,
  type TicketDoc,
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

export function createTicketRepo(conn: Connection) {
  const Tickets = ticketModel(conn);
  const Messages = messageModel(conn);
  const Events = statusEventModel(conn);

  function filterQuery(f: TicketFilters): QueryFilter<TicketDoc> {
    const q: QueryFilter<TicketDoc> = {};
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
   * Moves a ticket to `to`, recording who and when. Idempotent for a given `dedupeKey`. Returns
   * whether this call (or an earlier one with the same key) applied the change.
   */
  async function changeStatus(
    ticket: Pick<TicketDoc, '_id' | 'status'>,
    to: TicketStatus,
    by: string,
    source: ChangeSource,
    dedupeKey: string = randomUUID(),
  ): Promise<{ changed: boolean; from: TicketStatus }> {
    let event: Pick<StatusEventDoc, 'from' | 'to'>;
    try {
      if (ticket.status === to) return { changed: false, from: ticket.status };
      if (!canTransition(ticket.status, to)) {
        throw new AppError('CONFLICT', `A ticket cannot go from ${ticket.status} to ${to}`, { details: { from: ticket.status, to } });
      }
      event = { from: ticket.status, to };
      await Events.create({ ticketId: ticket._id, from: ticket.status, to, by, at: new Date(), source, dedupeKey });
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      // Recorded by an earlier attempt: finish what it started.
      const earlier = await Events.findOne({ dedupeKey }).lean<StatusEventDoc>();
      if (!earlier) throw err;
      event = earlier;
    }
    const now = new Date();
    const reopen = event.from !== null && isReopen(event.from, event.to);
    const set: Partial<TicketDoc> = { status: event.to, updatedAt: now };
    if (event.to === 'resolved') set.resolvedAt = now;
    if (event.to === 'deleted') {
      set.deletedAt = now;
      set.statusBeforeDelete = event.from;
    }
    // Only from the recorded `from`: a repeat finds the ticket already moved and changes nothing.
    await Tickets.updateOne({ _id: ticket._id, status: event.from ?? ticket.status }, { $set: set, ...(reopen ? { $inc: { reopenCount: 1 } } : {}) });
    return { changed: true, from: event.from ?? ticket.status };
  }

  return {
    changeStatus,

    async create(input: NewTicket, by: string): Promise<TicketDoc> {
      const id = await nextId(conn, 'tickets');
      const now = new Date();
      const doc = await Tickets.create({
        _id: id,
        main: input.main,
        issue: input.issue,
        description: input.description,
        email: input.email,
        newsletter: input.newsletter ?? null,
        wantReply: input.wantReply ?? true,
        status: 'open',
        createdAt: now,
        updatedAt: now,
      });
      await Events.create({ ticketId: id, from: null, to: 'open', by, at: now, source: 'create', dedupeKey: `create:${id}` });
      return doc.toObject();
    },

    findById: (id: number) => Tickets.findById(id).lean<TicketDoc>().exec(),

    async list(f: TicketFilters, page: number, limit: number): Promise<{ items: TicketDoc[]; total: number }> {
      const q = filterQuery(f);
      const [items, total] = await Promise.all([
        Tickets.find(q)
          .sort({ createdAt: -1, _id: -1 })
          .skip((page - 1) * limit)
          .limit(limit)
          .lean<TicketDoc[]>(),
        Tickets.countDocuments(q),
      ]);
      return { items, total };
    },

    /** Ids matching filters, for bulk selection (at most `max`). */
    async idsMatching(f: TicketFilters, max: number): Promise<number[]> {
      const rows = await Tickets.find(filterQuery(f), { _id: 1 }).sort({ _id: 1 }).limit(max).lean<{ _id: number }[]>();
      return rows.map((r) => r._id);
    },

    async updateFields(id: number, fields: Partial<Pick<TicketDoc, 'issue' | 'main' | 'newsletter' | 'replied'>>): Promise<void> {
      if (Object.keys(fields).length === 0) return;
      await Tickets.updateOne({ _id: id }, { $set: { ...fields, updatedAt: new Date() } });
    },

    async restore(ticket: TicketDoc, by: string): Promise<TicketStatus> {
      if (ticket.status !== 'deleted') throw new AppError('CONFLICT', 'Only a deleted ticket can be restored');
      const back = ticket.statusBeforeDelete ?? 'open';
      await Events.create({ ticketId: ticket._id, from: 'deleted', to: back, by, at: new Date(), source: 'restore', dedupeKey: randomUUID() });
      await Tickets.updateOne({ _id: ticket._id, status: 'deleted' }, { $set: { status: back, deletedAt: null, statusBeforeDelete: null, updatedAt: new Date() } });
      return back;
    },

    history: (ticketId: number) => Events.find({ ticketId }).sort({ at: 1 }).lean<StatusEventDoc[]>().exec(),

    messages: (ticketId: number) => Messages.find({ ticketId }).sort({ createdAt: 1, _id: 1 }).lean<MessageDoc[]>().exec(),

    messageBelongs: async (ticketId: number, messageId: number) => (await Messages.exists({ _id: messageId, ticketId })) !== null,

    /**
     * Adds a message. With a `dedupeKey` (bulk operations) a repeat adds nothing. An admin reply
     * records the first admin reply and moves an open ticket to in_progress.
     */
    async addMessage(
      ticket: Pick<TicketDoc, '_id' | 'status'>,
      m: { conteudo: string; remetente: string; origem: MessageOrigin; dedupeKey?: string },
      source: ChangeSource = 'message',
    ): Promise<{ message: MessageDoc; added: boolean }> {
      let message: MessageDoc;
      let added = true;
      const id = await nextId(conn, 'ticket_messages');
      const dedupeKey = m.dedupeKey ?? `msg:${id}`;
      try {
        message = (await Messages.create({ _id: id, ticketId: ticket._id, conteudo: m.conteudo, remetente: m.remetente, origem: m.origem, dedupeKey })).toObject();
      } catch (err) {
        if (!isDuplicate(err)) throw err;
        message = (await Messages.findOne({ dedupeKey }).lean<MessageDoc>())!;
        added = false;
      }
      const at = message.createdAt;
      await Tickets.updateOne({ _id: ticket._id }, { $set: { lastMessageAt: at, updatedAt: new Date() } });
      if (m.origem === 'admin') {
        await Tickets.updateOne({ _id: ticket._id, firstAdminReplyAt: null }, { $set: { firstAdminReplyAt: at } });
        const next = statusAfterAdminReply(ticket.status);
        if (next !== ticket.status) await changeStatus(ticket, next, m.remetente, source, `${dedupeKey}:status`);
      }
      return { message, added };
    },

    async addTag(ticketId: number, tagId: number): Promise<void> {
      await Tickets.updateOne({ _id: ticketId }, { $addToSet: { tags: tagId }, $set: { updatedAt: new Date() } });
    },

    async removeTag(ticketId: number, tagId: number): Promise<boolean> {
      const r = await Tickets.updateOne({ _id: ticketId, tags: tagId }, { $pull: { tags: tagId }, $set: { updatedAt: new Date() } });
      return r.modifiedCount === 1;
    },

    async dropTagEverywhere(tagId: number): Promise<void> {
      await Tickets.updateMany({ tags: tagId }, { $pull: { tags: tagId } });
    },

    /** Inserts many tickets at once (seeding, benchmarks). */
    async insertMany(rows: Omit<TicketDoc, '_id'>[]): Promise<number[]> {
      const first = await reserveIds(conn, 'tickets', rows.length);
      const docs = rows.map((r, i) => ({ ...r, _id: first + i }));
      await Tickets.insertMany(docs, { ordered: false });
      return docs.map((d) => d._id);
    },
  };
}

export type TicketRepo = ReturnType<typeof createTicketRepo>;
