/**
 * Upgrades support data stored by releases before the agents report read its copies (issue 14):
 * every message and status event gets its ticket's creation time (`ticketCreatedAt`), and every
 * answered ticket who wrote its first admin reply (`firstAdminReplyBy`, the author of its
 * earliest admin message). Idempotent: a second run finds nothing to fill. Run by
 * `npm run cli -- migrate`.
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';
import type { MessageDoc, StatusEventDoc, TicketDoc } from './support.model';

const BATCH = 1_000;

export interface SupportMigration {
  /** Messages and status events given their ticket's creation time. */
  messages: number;
  events: number;
  /** Messages and status events whose ticket does not exist (left as they are). */
  orphans: number;
  /** Answered tickets given the author of their first admin reply. */
  firstReplies: number;
}

export async function migrateSupport(conn: Connection, log: (line: string) => void = () => undefined): Promise<SupportMigration> {
  const tickets = collectionOf<TicketDoc>(conn, 'tickets');
  const result: SupportMigration = { messages: 0, events: 0, orphans: 0, firstReplies: 0 };

  /** Fills `ticketCreatedAt` in a collection of a ticket's records, in `_id` order (orphans are passed over, not refound). */
  async function fill<T extends MessageDoc | StatusEventDoc>(name: 'ticket_messages' | 'ticket_status_events', key: 'messages' | 'events'): Promise<void> {
    const records = collectionOf<T>(conn, name);
    let last: T['_id'] | undefined;
    for (;;) {
      const filter = { ticketCreatedAt: { $exists: false }, ...(last === undefined ? {} : { _id: { $gt: last } }) };
      const batch = await records.find(filter as never, { projection: { ticketId: 1 }, sort: { _id: 1 }, limit: BATCH }).toArray();
      if (batch.length === 0) return;
      last = batch[batch.length - 1]!._id;
      const ticketIds = [...new Set(batch.map((r) => r.ticketId))];
      const created = new Map((await tickets.find({ _id: { $in: ticketIds } }, { projection: { createdAt: 1 } }).toArray()).map((t) => [t._id, t.createdAt]));
      const updates = batch.flatMap((r) => {
        const at = created.get(r.ticketId);
        if (!at) {
          result.orphans += 1;
          return [];
        }
        return [{ updateOne: { filter: { _id: r._id, ticketCreatedAt: { $exists: false } }, update: { $set: { ticketCreatedAt: at } } } }];
      });
      if (updates.length > 0) await records.bulkWrite(updates as never, { ordered: false });
      result[key] += updates.length;
      log(`${name}: ${result[key]} filled`);
    }
  }

  await fill<MessageDoc>('ticket_messages', 'messages');
  await fill<StatusEventDoc>('ticket_status_events', 'events');

  // First replies: the earliest admin message of each answered ticket not yet upgraded (null when
  // its messages are gone, so it leaves the filter).
  const messages = collectionOf<MessageDoc>(conn, 'ticket_messages');
  for (;;) {
    const batch = await tickets.find({ firstAdminReplyAt: { $type: 'date' }, firstAdminReplyBy: { $exists: false } }, { projection: { _id: 1 }, sort: { _id: 1 }, limit: BATCH }).toArray();
    if (batch.length === 0) break;
    const ids = batch.map((t) => t._id);
    const first = new Map(
      (
        await messages
          .aggregate<{ _id: number; by: string }>([
            { $match: { ticketId: { $in: ids }, origem: 'admin' } },
            { $sort: { ticketId: 1, createdAt: 1, _id: 1 } },
            { $group: { _id: '$ticketId', by: { $first: '$remetente' } } },
          ])
          .toArray()
      ).map((r) => [r._id, r.by]),
    );
    await tickets.bulkWrite(
      ids.map((id) => ({ updateOne: { filter: { _id: id, firstAdminReplyBy: { $exists: false } }, update: { $set: { firstAdminReplyBy: first.get(id) ?? null } } } })),
      { ordered: false },
    );
    result.firstReplies += ids.length;
    log(`tickets: ${result.firstReplies} first replies filled`);
  }
  return result;
}
