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
   * Moves a ticket to `to`, recording who and when. Race- and repeat-safe with inserts only (the
   * one write FerretDB v1 makes atomic): each change claims the ticket's next status version with a
   * unique (ticketId, version) history event, so of two concurrent changes from the same state only
   * one applies; the event also carries the change's unique `dedupeKey`, so a bulk operation that
   * repeats a change after a crash finds its event and at most completes it. The ticket is then
   * moved to that version by the event's owner alone.
   */
  async function changeStatus(
    ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion'>,
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
    await apply(event);
    return { changed: true, from };
  }

  /** Moves the ticket to the state after `event`, if it is still at the event's version. */
  async function apply(event: Pick<StatusEventDoc, 'ticketId' | 'version' | 'from' | 'to' | 'at'>): Promise<void> {
    const set: Partial<TicketDoc> = { status: event.to, statusVersion: event.version + 1, updatedAt: event.at };
    if (event.to === 'resolved') set.resolvedAt = event.at;
    if (event.to === 'deleted') Object.assign(set, { deletedAt: event.at, statusBeforeDelete: event.from });
    if (event.from === 'deleted') Object.assign(set, { deletedAt: null, statusBeforeDelete: null });
    const reopen = event.from !== null && isReopen(event.from, event.to);
    await Tickets.updateOne({ _id: event.ticketId, statusVersion: event.version }, { $set: set, ...(reopen ? { $inc: { reopenCount: 1 } } : {}) });
  }

  return {
    changeStatus,

    async create(input: NewTicket, by: string): Promise<TicketDoc> {
      const now = new Date();
      const doc = await insertWithNextId(conn, 'tickets', 'tickets', (id) => Tickets.create({
        _id: id,
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
      }));
      const id = doc._id;
      await Events.create({ _id: `create:${id}`, ticketId: id, version: 0, from: null, to: 'open', by, at: now, source: 'create' });
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
