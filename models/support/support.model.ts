/**
 * Support collections. Reports (later issue) need every status change with who and when, message
 * times and authors, the first admin reply, resolutions and reopens: kept from the first ticket on.
 */
import { type Connection, Schema } from 'mongoose';
import { modelOn } from '../infra/mongo';
import { DELIVERY_STATES, MESSAGE_CHANNELS, MESSAGE_ORIGINS, TICKET_CHANNELS, TICKET_LANGUAGES, TICKET_STATUSES, type Delivery, type TicketChannel, type TicketLanguage, type MessageChannel, type MessageOrigin, type TicketStatus } from './ticket.rules';
import { PRESENCE_STATES, type PresenceState } from './live.rules';

export interface TicketDoc {
  _id: number;
  main: string;
  issue: string;
  description: string;
  status: TicketStatus;
  email: string;
  newsletter: string | null;
  wantReply: boolean;
  replied: string | null;
  tags: number[];
  /** Number of status changes so far; the next change claims this version (ticket.repo). */
  statusVersion: number;
  /** Status before a soft delete, for restore. */
  statusBeforeDelete: TicketStatus | null;
  deletedAt: Date | null;
  firstAdminReplyAt: Date | null;
  /** Who wrote the first admin reply (set with firstAdminReplyAt; the agents report groups by it). */
  firstAdminReplyBy: string | null;
  resolvedAt: Date | null;
  reopenCount: number;
  lastMessageAt: Date | null;
  /** The staff member working on it (their e-mail), or null: the queue's mine and unassigned views (issue 38). Absent on tickets stored before. */
  assignee?: string | null;
  assignedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The request that opened it, when it came with an Idempotency-Key (unique: a repeat finds this ticket). */
  requestKey?: string;
  /** The language of the requester's mail (issue 39); absent on tickets stored before: Portuguese. */
  idioma?: TicketLanguage;
  /** The unguessable part of its reply address (support+<token>@…), set when its first mail goes out (issue 39). */
  mailToken?: string;
  /** The acknowledgement mailed to the requester when it was opened (issue 39). */
  confirmacao?: Delivery;
  /** Where it was opened: the API or e-mail (issue 39); absent on tickets stored before, which all came by the API. */
  canal?: TicketChannel;
}

export interface MessageDoc {
  _id: number;
  ticketId: number;
  conteudo: string;
  remetente: string;
  origem: MessageOrigin;
  /**
   * Unique. `msg:<id>` for a single message; `<operationId>:<ticketId>` for a bulk operation, so
   * a retried chunk adds nothing twice; `request:<requestKey>` for one sent with an Idempotency-Key.
   */
  dedupeKey: string;
  createdAt: Date;
  /** Its ticket's creation time, copied when written (immutable): reports select by it without joining the ticket. */
  ticketCreatedAt: Date;
  /** Where it came from (issue 39); absent on messages stored before. */
  canal?: MessageChannel;
  /** A staff message's delivery to the requester by mail (issue 39). */
  entrega?: Delivery;
  /** A message that came by mail: its Message-ID (replies to the requester thread on it). */
  emailMessageId?: string;
  /** A message that came by mail: the received message whole, byte for byte, in MinIO (`inbound-mail/…eml`). */
  emailRaw?: string;
  /** A message that came by mail: how it authenticated (mailauth: SPF, DKIM, DMARC results). */
  emailAuth?: EmailAuth;
  /** A message that came by mail whose From failed DMARC: the sender may not be who it says. */
  dmarcFalhou?: boolean;
  /** Files of a mail that were not kept, with why (never dropped silently). */
  arquivosRecusados?: RefusedFile[];
}

export interface EmailAuth {
  spf: string;
  dkim: string;
  dmarc: string;
}

export interface RefusedFile {
  nome: string;
  tipo: string;
  tamanho: number;
  motivo: string;
  detalhe: string;
}

export interface StatusEventDoc {
  /** The change's key: `<operationId>:<ticketId>` for bulk changes (exactly-once history), else random. */
  _id: string;
  ticketId: number;
  /** The ticket's status version this change moved it from; unique per ticket. */
  version: number;
  from: TicketStatus | null;
  to: TicketStatus;
  by: string;
  at: Date;
  source: 'create' | 'patch' | 'message' | 'delete' | 'restore' | 'bulk';
  /** Its ticket's creation time, copied when written (immutable): reports select by it without joining the ticket. */
  ticketCreatedAt: Date;
}

export interface TagDoc {
  _id: number;
  name: string;
  nameKey: string;
  color: string;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttachmentDoc {
  _id: number;
  supportId: number;
  mensagemId: number | null;
  nomeArquivo: string;
  caminhoArquivo: string;
  tipoArquivo: string;
  tamanhoArquivo: number;
  uploadedBy: string;
  createdAt: Date;
}

export interface QuickReplyDoc {
  _id: number;
  title: string;
  content: string;
  category: string | null;
  /** Advanced by `$inc` on each use. */
  usageCount: number;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const DeliverySchema = new Schema<Delivery>(
  {
    estado: { type: String, enum: DELIVERY_STATES, required: true },
    motivo: { type: String, default: null },
    messageId: { type: String, default: null },
    tentativas: { type: Number, default: 0 },
    atualizadoEm: { type: Date, required: true },
  },
  { _id: false },
);

const TicketSchema = new Schema<TicketDoc>(
  {
    _id: { type: Number, required: true },
    main: { type: String, required: true },
    issue: { type: String, required: true },
    description: { type: String, required: true },
    status: { type: String, enum: TICKET_STATUSES, required: true },
    email: { type: String, required: true, lowercase: true, trim: true },
    newsletter: { type: String, default: null },
    wantReply: { type: Boolean, default: true },
    replied: { type: String, default: null },
    tags: { type: [Number], default: [] },
    statusVersion: { type: Number, default: 0 },
    statusBeforeDelete: { type: String, default: null },
    deletedAt: { type: Date, default: null },
    firstAdminReplyAt: { type: Date, default: null },
    firstAdminReplyBy: { type: String, default: null },
    resolvedAt: { type: Date, default: null },
    reopenCount: { type: Number, default: 0 },
    lastMessageAt: { type: Date, default: null },
    assignee: { type: String, default: null, lowercase: true, trim: true },
    assignedAt: { type: Date, default: null },
    requestKey: { type: String },
    mailToken: { type: String },
    idioma: { type: String, enum: TICKET_LANGUAGES },
    confirmacao: { type: DeliverySchema, default: undefined },
    canal: { type: String, enum: TICKET_CHANNELS },
  },
  { collection: 'tickets', versionKey: false, timestamps: true },
);
// Ticket numbers are handed out at creation, so newest first is descending `_id`. Each list filter
// has an index ending in `_id` that serves both the filter and the order; `createdAt` serves the
// date range. (The reports of a later issue add their own.)
TicketSchema.index({ status: 1, _id: -1 });
// The default list (every ticket not deleted).
TicketSchema.index({ deletedAt: 1, _id: -1 });
TicketSchema.index({ email: 1, _id: -1 });
TicketSchema.index({ issue: 1, _id: -1 });
TicketSchema.index({ tags: 1, _id: -1 });
TicketSchema.index({ createdAt: -1, _id: -1 });
// The queue's views (issue 38): mine and unassigned, of the tickets still being worked on
// (a null assignee also matches tickets stored before assignment existed).
TicketSchema.index({ assignee: 1, status: 1, _id: -1 });
// Tickets opened with an Idempotency-Key (sparse: the others have no requestKey).
TicketSchema.index({ requestKey: 1 }, { unique: true, sparse: true });
// A reply address's token finds its ticket (issue 39).
TicketSchema.index({ mailToken: 1 }, { unique: true, sparse: true });
// The live updates' poller (issue 38): the tickets changed since its cursor, oldest change first.
// Every change of a ticket sets updatedAt (ticket.repo), so the tickets are their own event log.
TicketSchema.index({ updatedAt: 1, _id: 1 });

const MessageSchema = new Schema<MessageDoc>(
  {
    _id: { type: Number, required: true },
    ticketId: { type: Number, required: true },
    conteudo: { type: String, required: true },
    remetente: { type: String, required: true },
    origem: { type: String, enum: MESSAGE_ORIGINS, required: true },
    dedupeKey: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    ticketCreatedAt: { type: Date, required: true },
    canal: { type: String, enum: MESSAGE_CHANNELS },
    entrega: { type: DeliverySchema, default: undefined },
    emailMessageId: { type: String },
    emailRaw: { type: String },
    emailAuth: { type: new Schema<EmailAuth>({ spf: String, dkim: String, dmarc: String }, { _id: false }), default: undefined },
    dmarcFalhou: { type: Boolean },
    arquivosRecusados: {
      type: [new Schema<RefusedFile>({ nome: String, tipo: String, tamanho: Number, motivo: String, detalhe: String }, { _id: false })],
      default: undefined,
    },
  },
  { collection: 'ticket_messages', versionKey: false },
);
MessageSchema.index({ ticketId: 1, createdAt: 1 });
// The agents report: admin replies to the tickets created in a period.
MessageSchema.index({ origem: 1, ticketCreatedAt: 1 });
MessageSchema.index({ dedupeKey: 1 }, { unique: true });
// The mail relay (issue 39): deliveries still queued, oldest first.
MessageSchema.index({ 'entrega.estado': 1, createdAt: 1 });
// A reply's In-Reply-To finds the requester's message it answers.
MessageSchema.index({ emailMessageId: 1 }, { sparse: true });

const StatusEventSchema = new Schema<StatusEventDoc>(
  {
    _id: { type: String, required: true },
    ticketId: { type: Number, required: true },
    version: { type: Number, required: true },
    from: { type: String, default: null },
    to: { type: String, required: true },
    by: { type: String, required: true },
    at: { type: Date, required: true },
    source: { type: String, required: true },
    ticketCreatedAt: { type: Date, required: true },
  },
  { collection: 'ticket_status_events', versionKey: false },
);
// The agents report: resolutions of the tickets created in a period.
StatusEventSchema.index({ to: 1, ticketCreatedAt: 1 });
StatusEventSchema.index({ ticketId: 1, version: 1 }, { unique: true });
StatusEventSchema.index({ at: 1 });

const TagSchema = new Schema<TagDoc>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true, trim: true },
    nameKey: { type: String, required: true },
    color: { type: String, required: true },
    isDefault: { type: Boolean, default: false },
  },
  { collection: 'tags', versionKey: false, timestamps: true },
);
TagSchema.index({ nameKey: 1 }, { unique: true });

const AttachmentSchema = new Schema<AttachmentDoc>(
  {
    _id: { type: Number, required: true },
    supportId: { type: Number, required: true },
    mensagemId: { type: Number, default: null },
    nomeArquivo: { type: String, required: true },
    caminhoArquivo: { type: String, required: true },
    tipoArquivo: { type: String, required: true },
    tamanhoArquivo: { type: Number, required: true },
    uploadedBy: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { collection: 'ticket_attachments', versionKey: false },
);
AttachmentSchema.index({ supportId: 1, createdAt: 1 });

const QuickReplySchema = new Schema<QuickReplyDoc>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true, trim: true },
    content: { type: String, required: true },
    category: { type: String, default: null },
    usageCount: { type: Number, default: 0 },
    createdBy: { type: String, required: true },
  },
  { collection: 'quick_replies', versionKey: false, timestamps: true },
);

/**
 * Who is on a ticket now (issue 38): one entry per ticket and staff member, refreshed by the page's
 * heartbeat and removed when the page leaves. An entry past `expiresAt` is gone for every reader
 * (they filter on it); the TTL index deletes it later (MongoDB's monitor runs every 60 s).
 */
export interface PresenceDoc {
  /** `<ticketId>:<email>`. */
  _id: string;
  ticketId: number;
  email: string;
  state: PresenceState;
  expiresAt: Date;
}

const PresenceSchema = new Schema<PresenceDoc>(
  {
    _id: { type: String, required: true },
    ticketId: { type: Number, required: true },
    email: { type: String, required: true },
    state: { type: String, enum: PRESENCE_STATES, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'support_presence', versionKey: false },
);
PresenceSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
PresenceSchema.index({ ticketId: 1, expiresAt: 1 });

export const ticketModel = (c: Connection) => modelOn(c, 'Ticket', TicketSchema);
export const messageModel = (c: Connection) => modelOn(c, 'TicketMessage', MessageSchema);
export const statusEventModel = (c: Connection) => modelOn(c, 'TicketStatusEvent', StatusEventSchema);
export const tagModel = (c: Connection) => modelOn(c, 'Tag', TagSchema);
export const attachmentModel = (c: Connection) => modelOn(c, 'TicketAttachment', AttachmentSchema);
export const quickReplyModel = (c: Connection) => modelOn(c, 'QuickReply', QuickReplySchema);
export const presenceModel = (c: Connection) => modelOn(c, 'SupportPresence', PresenceSchema);
