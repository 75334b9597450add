/**
 * Support by e-mail (issue 39), what delivery keeps: each staff message's delivery state (on the
 * message, `entrega`) and each new ticket's acknowledgement (on the ticket, `confirmacao`), a
 * ticket's reply-address token, the Message-IDs a reply threads on, and the requesters' addresses
 * that bounce. Every change is a single-document conditional update: a delivery moves forward only
 * from the state it was read in, so a retried step never moves it twice.
 */
import type { Connection } from 'mongoose';
import { modelOn } from '../infra/mongo';
import { Schema } from 'mongoose';
import { messageModel, ticketModel, type MessageDoc, type TicketDoc } from './support.model';
import type { Delivery, DeliveryState } from './ticket.rules';

/** Where a delivery is kept: a staff message's (`entrega`) or a ticket's acknowledgement (`confirmacao`, messageId 0). */
export interface DeliveryTarget {
  ticketId: number;
  /** The message's id; 0 for the ticket's acknowledgement. */
  messageId: number;
}

export interface MailRecipientDoc {
  /** The address, lowercased. */
  _id: string;
  bouncing: boolean;
  reason: string | null;
  since: Date | null;
  updatedAt: Date;
}

const MailRecipientSchema = new Schema<MailRecipientDoc>(
  {
    _id: { type: String, required: true },
    bouncing: { type: Boolean, required: true },
    reason: { type: String, default: null },
    since: { type: Date, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'support_mail_recipients', versionKey: false },
);
export const mailRecipientModel = (c: Connection) => modelOn(c, 'SupportMailRecipient', MailRecipientSchema);

/** The states a delivery is still to be done in: a step moves it only from one of these. */
const OPEN: DeliveryState[] = ['queued', 'sending'];
// The steps of a delivery write with `timestamps: false`: they are no change of the ticket (its
// updatedAt is the live updates' event log and the queue's "updated"). Only a staff reply's end
// touches the ticket, on purpose, so that open views show the reply's new state.

export function createMailRepo(conn: Connection) {
  const Tickets = ticketModel(conn);
  const Messages = messageModel(conn);
  const Recipients = mailRecipientModel(conn);
  const isAck = (t: DeliveryTarget) => t.messageId === 0;
  const field = (t: DeliveryTarget) => (isAck(t) ? 'confirmacao' : 'entrega');
  const filter = (t: DeliveryTarget) => (isAck(t) ? { _id: t.ticketId } : { _id: t.messageId, ticketId: t.ticketId });
  const collection = (t: DeliveryTarget) => (isAck(t) ? Tickets : Messages) as unknown as typeof Messages;

  return {
    async ensureIndexes(): Promise<void> {
      await Recipients.init();
    },

    /** The delivery as stored, or undefined (no such message, or nothing to deliver). */
    async delivery(t: DeliveryTarget): Promise<Delivery | undefined> {
      const doc = await collection(t).findOne(filter(t), { [field(t)]: 1 }).lean<{ entrega?: Delivery; confirmacao?: Delivery }>();
      return (isAck(t) ? doc?.confirmacao : doc?.entrega) ?? undefined;
    },

    /**
     * Claims an attempt: queued or sending (a previous attempt that stopped half-way) → sending,
     * one more attempt counted. Undefined when the delivery is done already (sent, failed, bounced,
     * not sent) or does not exist: the caller then sends nothing.
     */
    async claim(t: DeliveryTarget, at: Date): Promise<Delivery | undefined> {
      const f = field(t);
      const doc = await collection(t)
        .findOneAndUpdate({ ...filter(t), [`${f}.estado`]: { $in: OPEN } }, { $set: { [`${f}.estado`]: 'sending', [`${f}.atualizadoEm`]: at }, $inc: { [`${f}.tentativas`]: 1 } }, { returnDocument: 'after', projection: { [f]: 1 }, timestamps: false })
        .lean<{ entrega?: Delivery; confirmacao?: Delivery }>();
      return (isAck(t) ? doc?.confirmacao : doc?.entrega) ?? undefined;
    },

    /** Keeps the mail's Message-ID before it is handed to SMTP (a retry sends the same one). */
    async setMailId(t: DeliveryTarget, mailId: string): Promise<void> {
      const f = field(t);
      await collection(t).updateOne({ ...filter(t), [`${f}.messageId`]: null }, { $set: { [`${f}.messageId`]: mailId } }, { timestamps: false });
    },

    /** Ends a delivery still open: sent, failed (with why) or not sent (with why). False when it had ended already. */
    async finish(t: DeliveryTarget, estado: Exclude<DeliveryState, 'queued' | 'sending' | 'bounced'>, motivo: string | null, at: Date): Promise<boolean> {
      const f = field(t);
      const r = await collection(t).updateOne({ ...filter(t), [`${f}.estado`]: { $in: OPEN } }, { $set: { [`${f}.estado`]: estado, [`${f}.motivo`]: motivo, [`${f}.atualizadoEm`]: at } }, { timestamps: false });
      // The ticket changed (its live updates show the message's new state to the staff who have it open).
      if (r.modifiedCount === 1 && !isAck(t)) await Tickets.updateOne({ _id: t.ticketId }, { $set: { updatedAt: at } });
      return r.modifiedCount === 1;
    },

    /** A sent mail came back (a delivery-status notification naming its Message-ID). */
    async markBounced(mailId: string, motivo: string, at: Date): Promise<DeliveryTarget | undefined> {
      const message = await Messages.findOneAndUpdate({ 'entrega.messageId': mailId, 'entrega.estado': { $ne: 'bounced' } }, { $set: { 'entrega.estado': 'bounced', 'entrega.motivo': motivo, 'entrega.atualizadoEm': at } }, { projection: { _id: 1, ticketId: 1 } }).lean<MessageDoc>();
      if (message) return { ticketId: message.ticketId, messageId: message._id };
      const ticket = await Tickets.findOneAndUpdate({ 'confirmacao.messageId': mailId, 'confirmacao.estado': { $ne: 'bounced' } }, { $set: { 'confirmacao.estado': 'bounced', 'confirmacao.motivo': motivo, 'confirmacao.atualizadoEm': at } }, { projection: { _id: 1 }, timestamps: false }).lean<TicketDoc>();
      return ticket ? { ticketId: ticket._id, messageId: 0 } : undefined;
    },

    /** Deliveries still queued and older than `before` (the relay hands them over), oldest first. */
    async queued(before: Date, limit: number): Promise<DeliveryTarget[]> {
      const [messages, tickets] = await Promise.all([
        Messages.find({ 'entrega.estado': 'queued', createdAt: { $lt: before } }, { _id: 1, ticketId: 1 }).sort({ 'entrega.estado': 1, createdAt: 1 }).limit(limit).lean<MessageDoc[]>(),
        Tickets.find({ 'confirmacao.estado': 'queued', createdAt: { $lt: before } }, { _id: 1 }).sort({ createdAt: 1 }).limit(limit).lean<TicketDoc[]>(),
      ]);
      return [...tickets.map((t) => ({ ticketId: t._id, messageId: 0 })), ...messages.map((m) => ({ ticketId: m.ticketId, messageId: m._id }))].slice(0, limit);
    },

    /** The ticket's reply-address token: the one it has, else `fresh` (kept only if none was set meanwhile). */
    async mailToken(ticketId: number, fresh: string): Promise<string | undefined> {
      await Tickets.updateOne({ _id: ticketId, mailToken: { $exists: false } }, { $set: { mailToken: fresh } }, { timestamps: false });
      return (await Tickets.findById(ticketId, { mailToken: 1 }).lean<TicketDoc>())?.mailToken;
    },

    async ticketByMailToken(token: string): Promise<TicketDoc | null> {
      return await Tickets.findOne({ mailToken: token }).lean<TicketDoc>();
    },

    /**
     * The Message-IDs a new mail of the ticket threads on, oldest first: the acknowledgement's, the
     * requester's mails and our earlier ones (at most `limit`, the newest kept).
     */
    async threadIds(ticketId: number, before: Date, limit = 20): Promise<{ ids: string[]; lastFromRequester: string | null }> {
      const [ticket, messages] = await Promise.all([
        Tickets.findById(ticketId, { confirmacao: 1 }).lean<TicketDoc>(),
        Messages.find({ ticketId, createdAt: { $lt: before }, $or: [{ emailMessageId: { $exists: true } }, { 'entrega.messageId': { $type: 'string' } }] }, { emailMessageId: 1, entrega: 1, createdAt: 1 })
          .sort({ ticketId: 1, createdAt: -1 })
          .limit(limit)
          .lean<MessageDoc[]>(),
      ]);
      const newestFirst = messages.map((m) => m.emailMessageId ?? m.entrega?.messageId).filter((id): id is string => !!id);
      const ids = [...(ticket?.confirmacao?.messageId ? [ticket.confirmacao.messageId] : []), ...newestFirst.reverse()];
      return { ids: ids.slice(-limit), lastFromRequester: messages.find((m) => m.emailMessageId)?.emailMessageId ?? null };
    },

    async recipient(address: string): Promise<MailRecipientDoc | null> {
      return await Recipients.findById(address.toLowerCase()).lean<MailRecipientDoc>();
    },

    /** The address bounced: nothing more is mailed to it until it writes to us again. */
    async markBouncing(address: string, reason: string, at: Date): Promise<void> {
      await Recipients.updateOne({ _id: address.toLowerCase() }, { $set: { bouncing: true, reason, since: at, updatedAt: at } }, { upsert: true });
    },

    /** The address wrote to us (its mail reached us): mail to it is tried again. */
    async clearBouncing(address: string, at: Date): Promise<void> {
      await Recipients.updateOne({ _id: address.toLowerCase(), bouncing: true }, { $set: { bouncing: false, updatedAt: at } });
    },
  };
}

export type MailRepo = ReturnType<typeof createMailRepo>;
