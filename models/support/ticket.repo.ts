/**
 * Tickets, messages and their status history. Without multi-document transactions (the development
 * database has none, and Temporal carries multi-step work), every change is single-document atomic
 * steps that are safe to repeat: a status change first claims the ticket's next version with a
 * history event (unique per ticket and version, keyed by the change), then moves the ticket with a
 * conditional update on that version. A retry after a crash at any point neither changes the ticket
 * twice nor writes its history twice, and a change left half-done is completed by the next one.
 */
import { randomUUID } from 'node:crypto';
import type { Connection, QueryFilter } from 'mongoose';
import { AppError } from '../errors';
import { nextId, reserveIds } from '../infra/counters';
import { canonicalKey, createListTotals, type ListTotals } from '../infra/list-totals';
import { collectionOf, countMatching, insertManyRacing, isDuplicateKey, READ_TIME_LIMIT_MS, writeRacingOnUniqueKey } from '../infra/mongo';
import { messageModel, statusEventModel, ticketModel, type MessageDoc, type StatusEventDoc, type TicketDoc } from './support.model';
import { canTransition, initialAcknowledgement, initialDelivery, isReopen, statusAfterAdminReply, statusAfterRequesterReply, type MessageChannel, type TicketChannel, type MessageOrigin, type TicketLanguage, type TicketStatus } from './ticket.rules';

export interface NewTicket {
  main: string;
  issue: string;
  description: string;
  email: string;
  newsletter?: string | undefined;
  wantReply?: boolean | undefined;
  /** The language of the requester's mail (default Portuguese). */
  idioma?: TicketLanguage | undefined;
  /** Where it came from (default: the API). */
  canal?: TicketChannel | undefined;
  /** No acknowledgement is mailed for it, with why (a ticket opened by an automated or spoofed mail: no backscatter). */
  noAcknowledgement?: string | undefined;
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
  /** Any of these statuses (the queue's views: open and in progress). */
  statuses?: readonly TicketStatus[] | undefined;
  /** The assignee's e-mail, or null for unassigned tickets. */
  assignee?: string | null | undefined;
}

/** How many tickets each of the queue's views holds, and the active tickets by newsletter, issue and tag. */
export interface QueueCounts {
  mine: number;
  unassigned: number;
  open: number;
  pending: number;
  all: number;
  newsletters: { value: string; count: number }[];
  issues: { value: string; count: number }[];
  tags: { id: number; count: number }[];
}

export type ChangeSource = StatusEventDoc['source'];

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createTicketRepo(conn: Connection, totals: ListTotals = createListTotals({ maxAgeMs: 0 })) {
  const Tickets = ticketModel(conn);
  const Messages = messageModel(conn);
  const Events = statusEventModel(conn);
  const load = (id: number) => Tickets.findById(id).lean<TicketDoc>().exec();
  /** The driver's collections, for unordered bulk writes (no Mongoose casting or validation: the documents are built here). */
  const rawEvents = () => collectionOf<StatusEventDoc>(conn, Events.collection.collectionName);
  const rawTickets = () => collectionOf<TicketDoc>(conn, Tickets.collection.collectionName);

  function filterQuery(f: TicketFilters): QueryFilter<TicketDoc> {
    const q: QueryFilter<TicketDoc> = {};
    if (f.status) q.status = f.status;
    else if (f.statuses) q.status = { $in: [...f.statuses] };
    // Not deleted: `deletedAt` is set exactly while a ticket is deleted (applyUpdate), and an equality
    // is what an index can serve in order ({deletedAt, _id}); `status ≠ deleted` is two ranges.
    else if (!f.includeDeleted) q.deletedAt = null;
    if (f.issue) q.issue = f.issue;
    if (f.main) q.main = f.main;
    if (f.newsletter) q.newsletter = f.newsletter;
    if (f.email) q.email = f.email.toLowerCase();
    if (f.tag !== undefined) q.tags = f.tag;
    if (f.from || f.to) q.createdAt = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lte: f.to } : {}) };
    if (f.q) q.description = { $regex: escapeRegex(f.q), $options: 'i' };
    if (f.assignee !== undefined) q.assignee = f.assignee === null ? null : f.assignee.toLowerCase();
    return q;
  }

  /**
   * Moves a ticket to `to`, recording who and when. The change claims the ticket's current status
   * version with its history event (unique per ticket and version), so of two concurrent changes
   * from the same state only one applies; the event's `_id` is the change's key, so a bulk
   * operation repeating a change after a crash finds its event and at most completes it.
   */
  async function changeStatus(
    ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion' | 'createdAt'>,
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
    const event: StatusEventDoc = { _id: dedupeKey, ticketId: ticket._id, version: ticket.statusVersion, from, to, by, at: new Date(), source, ticketCreatedAt: ticket.createdAt };
    try {
      await writeRacingOnUniqueKey(() => Events.create(event));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const mine = await Events.findById(dedupeKey).lean<StatusEventDoc>();
      if (mine) {
        await apply(mine);
        return { changed: true, from };
      }
      // Another change holds this version: complete it (its owner may have stopped before moving
      // the ticket), and this one changes nothing.
      const holder = await Events.findOne({ ticketId: ticket._id, version: ticket.statusVersion }).lean<StatusEventDoc>();
      if (holder) await apply(holder);
      return { changed: false, from };
    }
    await apply(event);
    return { changed: true, from };
  }

  /** The conditional update moving a ticket to the state after `event`, if it is still at the event's version. */
  function applyUpdate(event: Pick<StatusEventDoc, 'ticketId' | 'version' | 'from' | 'to' | 'at'>) {
    const set: Partial<TicketDoc> = { status: event.to, updatedAt: event.at };
    if (event.to === 'resolved') set.resolvedAt = event.at;
    if (event.to === 'deleted') Object.assign(set, { deletedAt: event.at, statusBeforeDelete: event.from });
    if (event.from === 'deleted') Object.assign(set, { deletedAt: null, statusBeforeDelete: null });
    const reopened = event.from !== null && isReopen(event.from, event.to);
    return { filter: { _id: event.ticketId, statusVersion: event.version }, update: { $set: set, $inc: { statusVersion: 1, ...(reopened ? { reopenCount: 1 } : {}) } } };
  }

  /** Moves the ticket to the state after `event` if it is still at the event's version (atomic, repeatable). */
  async function apply(event: Pick<StatusEventDoc, 'ticketId' | 'version' | 'from' | 'to' | 'at'>): Promise<void> {
    const { filter, update } = applyUpdate(event);
    await Tickets.updateOne(filter, update);
  }

  /**
   * changeStatus for many tickets in a few round trips (bulk operations): earlier attempts found
   * with one read, versions claimed with one unordered insert of the events, tickets moved with one
   * unordered bulk of conditional updates. A change whose claim is refused (another change holds
   * the version) takes the one-ticket path, which settles it as changeStatus does. Same outcomes as calling changeStatus
   * for each; a refused transition is that ticket's AppError.
   */
  async function changeStatusMany(
    changes: readonly { ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion' | 'createdAt'>; to: TicketStatus; dedupeKey: string }[],
    by: string,
    source: ChangeSource,
  ): Promise<Map<string, { changed: boolean; from: TicketStatus } | AppError>> {
    const results = new Map<string, { changed: boolean; from: TicketStatus } | AppError>();
    if (changes.length === 0) return results;
    const earlier = new Map(
      (await Events.find({ _id: { $in: changes.map((c) => c.dedupeKey) } }).lean<StatusEventDoc[]>()).map((e) => [e._id, e]),
    );
    const now = new Date();
    const fresh: StatusEventDoc[] = [];
    for (const c of changes) {
      const done = earlier.get(c.dedupeKey);
      const from = c.ticket.status;
      if (done) results.set(c.dedupeKey, { changed: true, from: done.from ?? c.to });
      else if (from === c.to) results.set(c.dedupeKey, { changed: false, from });
      else if (!canTransition(from, c.to)) results.set(c.dedupeKey, new AppError('CONFLICT', `A ticket cannot go from ${from} to ${c.to}`, { details: { from, to: c.to } }));
      else fresh.push({ _id: c.dedupeKey, ticketId: c.ticket._id, version: c.ticket.statusVersion, from, to: c.to, by, at: now, source, ticketCreatedAt: c.ticket.createdAt });
    }
    const refused = new Set(fresh.length ? await insertManyRacing(rawEvents(), fresh) : []);
    const claimed = fresh.filter((_, i) => !refused.has(i));
    const moves = [...earlier.values(), ...claimed].map(applyUpdate);
    if (moves.length) await rawTickets().bulkWrite(moves.map((m) => ({ updateOne: m })), { ordered: false });
    for (const e of claimed) results.set(e._id, { changed: true, from: e.from! });
    for (const i of refused) {
      const e = fresh[i]!;
      results.set(e._id, await changeStatus({ _id: e.ticketId, status: e.from!, statusVersion: e.version, createdAt: e.ticketCreatedAt }, e.to, by, source, e._id));
    }
    return results;
  }

  /** The ticket's creation event (version 0), once: a repeat finds it written. */
  async function recordCreation(ticket: TicketDoc, by: string): Promise<TicketDoc> {
    const at = ticket.createdAt;
    try {
      await writeRacingOnUniqueKey(() => Events.create({ _id: `create:${ticket._id}`, ticketId: ticket._id, version: 0, from: null, to: 'open', by, at, source: 'create', ticketCreatedAt: at }));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    return ticket;
  }

  return {
    changeStatus,
    changeStatusMany,
    /** Tickets by number (those that exist); a bulk chunk's read carries its attempt's signal and a time limit. */
    findByIds: (ids: readonly number[], bounds: { signal?: AbortSignal; maxTimeMS?: number } = {}) =>
      Tickets.find({ _id: { $in: [...ids] } }).setOptions(bounds).lean<TicketDoc[]>().exec(),

    /**
     * Opens a ticket and records its creation event. With a `requestKey` (an Idempotency-Key) the
     * ticket carries it under a unique index: a repeat, after any fault or racing the first, finds
     * that ticket and completes its creation event instead of opening a second ticket.
     */
    async create(input: NewTicket, by: string, requestKey?: string): Promise<TicketDoc> {
      const earlier = requestKey ? await Tickets.findOne({ requestKey }).lean<TicketDoc>() : null;
      if (earlier) return await recordCreation(earlier, by);
      const now = new Date();
      const id = await nextId(conn, 'tickets');
      let doc: TicketDoc;
      try {
        doc = (
          await writeRacingOnUniqueKey(() =>
            Tickets.create({
              _id: id,
              main: input.main,
              issue: input.issue,
              description: input.description,
              email: input.email,
              newsletter: input.newsletter ?? null,
              wantReply: input.wantReply ?? true,
              idioma: input.idioma ?? 'pt',
              canal: input.canal ?? 'api',
              status: 'open',
              statusVersion: 1,
              createdAt: now,
              updatedAt: now,
              ...(requestKey ? { requestKey } : {}),
              // The acknowledgement to the requester is queued in the same write (issue 39).
              confirmacao: input.noAcknowledgement
                ? { estado: 'not-sent', motivo: input.noAcknowledgement, messageId: null, tentativas: 0, atualizadoEm: now }
                : initialAcknowledgement(input.wantReply ?? true, now),
            }),
          )
        ).toObject();
      } catch (err) {
        const raced = requestKey && isDuplicateKey(err) ? await Tickets.findOne({ requestKey }).lean<TicketDoc>() : null;
        if (!raced) throw err;
        return await recordCreation(raced, by);
      }
      return await recordCreation(doc, by);
    },

    findById: load,

    /**
     * Newest first (descending ticket number). A page is read in one batch (`singleBatch`: the
     * server closes the cursor at once) with one row more than asked for; its total is exact at
     * the list's end and otherwise the `count` command's answer shared for a bounded time
     * (models/infra/list-totals.ts: an exact count of 100,000 tickets was 90 % of a page's cost).
     */
    async list(f: TicketFilters, page: number, limit: number): Promise<{ items: TicketDoc[]; total: number; hasMore: boolean }> {
      const q = filterQuery(f);
      const collection = Tickets.collection.collectionName;
      return await totals.page(
        canonicalKey(collection, q),
        { offset: (page - 1) * limit, limit },
        (n) => Tickets.find(q).sort({ _id: -1 }).skip((page - 1) * limit).limit(n).setOptions({ singleBatch: true, maxTimeMS: READ_TIME_LIMIT_MS }).lean<TicketDoc[]>(),
        () => countMatching(conn, collection, q),
      );
    },

    /**
     * Sets the assignee when it is still `expected` (what the caller read): of two agents taking
     * the same ticket at once, one does. False when it had changed (or the ticket is gone).
     */
    async assign(id: number, expected: string | null, to: string | null, at: Date): Promise<boolean> {
      const res = await Tickets.updateOne({ _id: id, assignee: expected, deletedAt: null }, { $set: { assignee: to, assignedAt: to === null ? null : at, updatedAt: at } });
      return res.modifiedCount === 1;
    },

    /**
     * Sets the assignee whatever it was (a manager's bulk assignment); false when the ticket is
     * gone or deleted. Unchanged when it already is `to` (a retried chunk writes nothing new).
     */
    async setAssignee(id: number, to: string | null, at: Date): Promise<boolean> {
      const res = await Tickets.updateOne({ _id: id, deletedAt: null, assignee: { $ne: to } }, { $set: { assignee: to, assignedAt: to === null ? null : at, updatedAt: at } });
      if (res.modifiedCount === 1) return true;
      return (await Tickets.exists({ _id: id, deletedAt: null })) !== null;
    },

    /** The ids of the tickets a filter selects now, oldest first, at most `limit` (a bulk operation over a whole view). */
    async idsMatching(f: TicketFilters, limit: number): Promise<number[]> {
      const docs = await Tickets.find(filterQuery(f), { _id: 1 }).sort({ _id: 1 }).limit(limit).setOptions({ maxTimeMS: READ_TIME_LIMIT_MS }).lean<{ _id: number }[]>();
      return docs.map((d) => d._id);
    },

    /** The queue's counts, for the member `me` (issue 38): each view, and the active tickets by newsletter, issue and tag. */
    async queueCounts(me: string): Promise<QueueCounts> {
      const active = { status: { $in: ['open', 'in_progress'] } };
      const collection = Tickets.collection.collectionName;
      const count = (q: Record<string, unknown>) => countMatching(conn, collection, q);
      const facet = (field: 'newsletter' | 'issue' | 'tags') =>
        Tickets.aggregate<{ _id: string | number | null; n: number }>([
          { $match: active },
          ...(field === 'tags' ? [{ $unwind: '$tags' }] : []),
          { $group: { _id: `$${field}`, n: { $sum: 1 } } },
          { $sort: { n: -1 } },
          { $limit: 100 },
        ]).option({ maxTimeMS: READ_TIME_LIMIT_MS });
      const [mine, unassigned, open, pending, all, newsletters, issues, tags] = await Promise.all([
        count({ ...active, assignee: me.toLowerCase() }),
        count({ ...active, assignee: null }),
        count({ status: 'open' }),
        count({ status: 'in_progress' }),
        count({ deletedAt: null }),
        facet('newsletter'),
        facet('issue'),
        facet('tags'),
      ]);
      const named = (rows: { _id: string | number | null; n: number }[]) => rows.filter((r) => typeof r._id === 'string').map((r) => ({ value: r._id as string, count: r.n }));
      return { mine, unassigned, open, pending, all, newsletters: named(newsletters), issues: named(issues), tags: tags.filter((r) => typeof r._id === 'number').map((r) => ({ id: r._id as number, count: r.n })) };
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
    /** One message of a ticket. */
    message: (ticketId: number, messageId: number) => Messages.findOne({ _id: messageId, ticketId }).lean<MessageDoc>().exec(),

    messageBelongs: async (ticketId: number, messageId: number) => (await Messages.exists({ _id: messageId, ticketId })) !== null,

    /**
     * Adds a message. With a `dedupeKey` (bulk operations, a request's Idempotency-Key) a repeat adds nothing. An admin reply
     * records the first admin reply and moves an open ticket to in_progress; a requester's message (not an auto-reply)
     * reopens a resolved or closed one.
     */
    async addMessage(
      ticket: Pick<TicketDoc, '_id' | 'status' | 'statusVersion' | 'createdAt' | 'wantReply'>,
      m: {
        conteudo: string;
        remetente: string;
        origem: MessageOrigin;
        dedupeKey?: string;
        canal?: MessageChannel;
        emailMessageId?: string;
        email?: Pick<MessageDoc, 'emailRaw' | 'emailAuth' | 'dmarcFalhou' | 'arquivosRecusados'>;
        /** A requester's automated mail (an auto-reply): it reopens nothing. */
        automated?: boolean;
      },
      source: ChangeSource = 'message',
    ): Promise<{ message: MessageDoc; added: boolean }> {
      let message: MessageDoc;
      let added = true;
      try {
        const id = await nextId(conn, 'ticket_messages');
        message = (
          await writeRacingOnUniqueKey(() =>
            Messages.create({
              _id: id,
              ticketId: ticket._id,
              conteudo: m.conteudo,
              remetente: m.remetente,
              origem: m.origem,
              dedupeKey: m.dedupeKey ?? `msg:${id}`,
              ticketCreatedAt: ticket.createdAt,
              ...(m.canal ? { canal: m.canal } : {}),
              ...(m.emailMessageId ? { emailMessageId: m.emailMessageId } : {}),
              ...(m.email ?? {}),
              // A staff reply is queued for the requester's mail in the same write (issue 39): the mail relay finds it even if nothing else happens.
              entrega: initialDelivery(ticket, m.origem, new Date()),
            }),
          )
        ).toObject();
      } catch (err) {
        if (!isDuplicateKey(err) || !m.dedupeKey) throw err;
        message = (await Messages.findOne({ dedupeKey: m.dedupeKey }).lean<MessageDoc>())!;
        added = false;
      }
      const dedupeKey = message.dedupeKey;
      const at = message.createdAt;
      // An internal note is no message of the conversation: the ticket only shows it changed.
      await Tickets.updateOne({ _id: ticket._id }, { $set: m.origem === 'nota' ? { updatedAt: new Date() } : { lastMessageAt: at, updatedAt: new Date() } });
      if (m.origem === 'admin') await Tickets.updateOne({ _id: ticket._id, firstAdminReplyAt: null }, { $set: { firstAdminReplyAt: at, firstAdminReplyBy: message.remetente } });
      const next = m.origem === 'admin' ? statusAfterAdminReply(ticket.status) : m.origem === 'usuario' && !m.automated ? statusAfterRequesterReply(ticket.status) : ticket.status;
      if (next !== ticket.status) await changeStatus(ticket, next, m.remetente, source, `${dedupeKey}:status`);
      return { message, added };
    },

    async addTag(ticketId: number, tagId: number): Promise<void> {
      await Tickets.updateOne({ _id: ticketId }, { $addToSet: { tags: tagId }, $set: { updatedAt: new Date() } });
    },

    /** false when the ticket did not carry the tag. */
    async removeTag(ticketId: number, tagId: number): Promise<boolean> {
      const res = await Tickets.updateOne({ _id: ticketId, tags: tagId }, { $pull: { tags: tagId }, $set: { updatedAt: new Date() } });
      return res.modifiedCount === 1;
    },

    async dropTagEverywhere(tagId: number): Promise<void> {
      await Tickets.updateMany({ tags: tagId }, { $pull: { tags: tagId } });
    },

    /**
     * Inserts many tickets at once (seeding, benchmarks, tests), in the given status (default
     * open) and creation time (default now); every other field takes its default. No history.
     * Numbers follow creation times, as they would have had the tickets come one by one.
     */
    async insertMany(rows: (NewTicket & { status?: TicketStatus; createdAt?: Date })[]): Promise<number[]> {
      const first = await reserveIds(conn, 'tickets', rows.length);
      const now = new Date();
      const docs = rows
        .map((r) => ({ ...r, createdAt: r.createdAt ?? now }))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((r, i) => ({
          ...r,
          _id: first + i,
          newsletter: r.newsletter ?? null,
          wantReply: r.wantReply ?? true,
          status: r.status ?? 'open',
          statusVersion: 1,
          updatedAt: r.createdAt,
        }));
      await Tickets.insertMany(docs, { ordered: false });
      return docs.map((d) => d._id);
    },
  };
}

export type TicketRepo = ReturnType<typeof createTicketRepo>;
