/**
 * Support by e-mail (issue 39), the receiver's record of every message it accepted
 * (`support_inbound_mail`): one document per message, written after its raw bytes are in MinIO
 * and before the 250 reply, so an accepted message is never only in memory. The processing
 * workflow (parse, thread, store into the ticket) is handed the id; what was not handed over (the
 * hand-over failed, or the process died first) is found by `pendingHandOver` for a relay.
 *
 * States: `stored` (bytes and record written) → `handed-over` (its workflow was started) →
 * `processed` or `failed` (the workflow's outcome, with its `result`). Each write is one
 * conditional single-document update, safe to repeat.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, READ_TIME_LIMIT_MS } from '../infra/mongo';

export const INBOUND_MAIL_COLLECTION = 'support_inbound_mail';

export const INBOUND_MAIL_STATES = ['stored', 'handed-over', 'processed', 'failed'] as const;
export type InboundMailState = (typeof INBOUND_MAIL_STATES)[number];

/** How the message reached us: the SMTP or LMTP listener, or Mailgun's inbound webhook (POST /support/inbound/mailgun/mime). */
export type InboundMailVia = 'smtp' | 'lmtp' | 'mailgun';

export interface InboundMailEnvelope {
  /** The reverse path (MAIL FROM); '' for the null sender of a bounce. */
  mailFrom: string;
  /** The accepted recipients (RCPT TO), as given. */
  rcptTo: string[];
}

export interface InboundMailRemote {
  /**
   * The connecting client's IP address. Through Mailgun: the client Mailgun's own Received header
   * names, or '' when it names none we can use (SPF is then not checked: `none`).
   */
  address: string;
  /** The client's host name (its reverse lookup, or `[ip]` when none was made). */
  hostname: string;
  /** The name it gave in HELO/EHLO/LHLO. */
  helo: string;
}

export interface InboundMailDoc {
  _id: string;
  /** The raw message in the bucket (`inbound-mail/yyyy/mm/dd/<id>.eml`), byte for byte as received. */
  objectKey: string;
  size: number;
  envelope: InboundMailEnvelope;
  remote: InboundMailRemote;
  via: InboundMailVia;
  receivedAt: Date;
  state: InboundMailState;
  handedOverAt: Date | null;
  /** What the processing workflow says about it (the ticket and message it became, or why it failed); free-form. */
  result: Record<string, unknown> | null;
  updatedAt: Date;
}

export type NewInboundMail = Pick<InboundMailDoc, '_id' | 'objectKey' | 'size' | 'envelope' | 'remote' | 'via' | 'receivedAt'>;

export function createInboundMailRepo(conn: Connection) {
  const mail = () => collectionOf<InboundMailDoc>(conn, INBOUND_MAIL_COLLECTION);
  const ensureIndexes = () =>
    indexesOnce(conn, INBOUND_MAIL_COLLECTION, () =>
      buildIndexesRacing(() =>
        Promise.all([
          // The relay's question: what is still only stored, oldest first.
          mail().createIndex({ state: 1, receivedAt: 1 }, { name: 'state_received' }),
        ]),
      ),
    );

  return {
    ensureIndexes,

    /** Records a message whose bytes are stored; state `stored`. */
    async record(m: NewInboundMail): Promise<InboundMailDoc> {
      await ensureIndexes();
      const doc: InboundMailDoc = { ...m, state: 'stored', handedOverAt: null, result: null, updatedAt: m.receivedAt };
      await mail().insertOne(doc);
      return doc;
    },

    /** Its processing workflow was started: `stored` → `handed-over`. False when it was not `stored`. */
    async markHandedOver(id: string, at: Date): Promise<boolean> {
      const res = await mail().updateOne({ _id: id, state: 'stored' }, { $set: { state: 'handed-over', handedOverAt: at, updatedAt: at } });
      return res.modifiedCount === 1;
    },

    /** The workflow's outcome: `processed` or `failed`, with what it says. False when already settled. */
    async settle(id: string, state: 'processed' | 'failed', result: Record<string, unknown>, at: Date): Promise<boolean> {
      const res = await mail().updateOne({ _id: id, state: { $in: ['stored', 'handed-over'] } }, { $set: { state, result, updatedAt: at } });
      return res.modifiedCount === 1;
    },

    /** Messages still only `stored`, received before `olderThan`, oldest first: what a relay hands over. */
    pendingHandOver: async (olderThan: Date, limit: number): Promise<InboundMailDoc[]> =>
      await mail()
        .find({ state: 'stored', receivedAt: { $lt: olderThan } }, { sort: { receivedAt: 1, _id: 1 }, limit, maxTimeMS: READ_TIME_LIMIT_MS })
        .toArray(),

    get: async (id: string): Promise<InboundMailDoc | null> => await mail().findOne({ _id: id }),

    /** Removes a record; the receiver's clean-up when a write it could not confirm must not stand. */
    remove: async (id: string): Promise<void> => void (await mail().deleteOne({ _id: id })),
  };
}

export type InboundMailRepo = ReturnType<typeof createInboundMailRepo>;
