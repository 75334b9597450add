import { AppError } from '../errors';

/**
 * Tickets (support-ticket-api.md §2, §3): allowed values and the status transition table. Pure.
 */
export const TICKET_STATUSES = ['open', 'in_progress', 'resolved', 'closed', 'deleted'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
/** What PATCH accepts: deletion has its own endpoint (soft delete) and restore. */
export const PATCHABLE_STATUSES = ['open', 'in_progress', 'resolved', 'closed'] as const;
export type PatchableStatus = (typeof PATCHABLE_STATUSES)[number];

/** §2.2; the brand in one value is the newsletter's name (placeholder in the spec). */
export const NEWSLETTER_NAME = 'The News';
export const TICKET_ISSUES = [
  'Não recebi meus prêmios',
  'Não estou recebendo a edição',
  'Me desinscrevi e continuo recebendo',
  'Alterações de cadastro',
  'Não estou conseguindo indicar',
  `Não estou conseguindo indicar o ${NEWSLETTER_NAME}`,
  'Prêmio com defeito',
  'Meus pontos no streak não estão contabilizando',
  'Outros',
  'Outro',
] as const;
export type TicketIssue = (typeof TICKET_ISSUES)[number];

/**
 * Which status may follow which. Deleted is left only through restore, which returns the ticket
 * to the status it had. Leaving resolved or closed for open/in_progress is a reopen.
 */
export const TRANSITIONS: Record<TicketStatus, readonly TicketStatus[]> = {
  open: ['in_progress', 'resolved', 'closed', 'deleted'],
  in_progress: ['open', 'resolved', 'closed', 'deleted'],
  resolved: ['open', 'in_progress', 'closed', 'deleted'],
  closed: ['open', 'in_progress', 'deleted'],
  deleted: [],
};

export function canTransition(from: TicketStatus, to: TicketStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export const isReopen = (from: TicketStatus, to: TicketStatus) =>
  (from === 'resolved' || from === 'closed') && (to === 'open' || to === 'in_progress');

/** An admin reply moves an open ticket to in_progress. */
export function statusAfterAdminReply(current: TicketStatus): TicketStatus {
  return current === 'open' ? 'in_progress' : current;
}

/**
 * A requester's message on a resolved or closed ticket reopens it (issue 39: the requester answers
 * "it still does not work" to the mail that said it was solved): a reopen, counted in the reports.
 * Automated mail (an out-of-office answering our mail) reopens nothing.
 */
export function statusAfterRequesterReply(current: TicketStatus): TicketStatus {
  return current === 'resolved' || current === 'closed' ? 'open' : current;
}

/** A deleted ticket takes no work (messages, attachments, replies) until it is restored. */
export function assertNotDeleted(ticket: { status: TicketStatus }, message: string): void {
  if (ticket.status === 'deleted') throw new AppError('CONFLICT', message);
}

/**
 * Who wrote a message: the requester (`usuario`), the staff answering (`admin`), or the staff to
 * each other (`nota`: an internal note, issue 38), which the requester never sees, which is no
 * reply (no first response, no status change) and which no mail carries.
 */
export const MESSAGE_ORIGINS = ['usuario', 'admin', 'nota'] as const;

/** The longest reply or message text: what a person may send, and where an AI draft is cut. */
export const TEXT_MAX = 20_000;
/** A main category, a newsletter or a quick reply's title. */
export const LABEL_MAX = 120;
export type MessageOrigin = (typeof MESSAGE_ORIGINS)[number];

/** The languages a ticket's mail is written in (issue 39): Portuguese, the desk's, unless the requester asked for English. */
export const TICKET_LANGUAGES = ['pt', 'en'] as const;
export type TicketLanguage = (typeof TICKET_LANGUAGES)[number];

/**
 * Where a message came from (issue 39): the API (a bearer token), the staff console (a staff
 * session), or e-mail (the requester's mail, threaded into the ticket). Messages stored before
 * channels existed have none.
 */
export const MESSAGE_CHANNELS = ['api', 'console', 'email'] as const;
/** Where a ticket can be opened (issue 39): the API, or a mail to the desk. The reports filter by it. */
export const TICKET_CHANNELS = ['api', 'email'] as const;
export type TicketChannel = (typeof TICKET_CHANNELS)[number];
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/**
 * A staff message's delivery to the requester by mail (issue 39): queued when stored, sending while
 * handed to SMTP, sent when the SMTP server took it, failed (refused by it, or every retry spent:
 * with why), bounced (a delivery-status notification came back), or not sent (with why: the
 * requester asked for no reply, or the address bounces).
 */
export const DELIVERY_STATES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'not-sent'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  estado: DeliveryState;
  motivo: string | null;
  /** The mail's Message-ID (set when first handed to SMTP; a retry sends the same id). */
  messageId: string | null;
  tentativas: number;
  atualizadoEm: Date;
}

export const NO_REPLY_WANTED = 'the requester asked for no reply (wantReply: false)';

/** A new ticket's acknowledgement by mail: queued, unless the requester asked for no reply. */
export function initialAcknowledgement(wantReply: boolean, at: Date): Delivery {
  return wantReply ? { estado: 'queued', motivo: null, messageId: null, tentativas: 0, atualizadoEm: at } : { estado: 'not-sent', motivo: NO_REPLY_WANTED, messageId: null, tentativas: 0, atualizadoEm: at };
}

/**
 * Whether a new message is mailed to the requester: a staff reply (admin) is, unless the requester
 * asked for no reply; the requester's own messages and internal notes never are.
 */
export function initialDelivery(ticket: { wantReply: boolean }, origem: MessageOrigin, at: Date): Delivery | undefined {
  if (origem !== 'admin') return undefined;
  return ticket.wantReply
    ? { estado: 'queued', motivo: null, messageId: null, tentativas: 0, atualizadoEm: at }
    : { estado: 'not-sent', motivo: NO_REPLY_WANTED, messageId: null, tentativas: 0, atualizadoEm: at };
}

export const SUPPORT_AGENT = 'support.agent';
/** Support managers: reports about individual agents' work (docs/decisions.md "Reports"). */
export const SUPPORT_MANAGER = 'support.manager';

/**
 * The support desk's queue views (issue 38). A ticket is being worked on while it is open (no one
 * has answered yet) or in progress ("pending": answered, waiting on the requester or on us);
 * mine and unassigned count those alone.
 */
export const ACTIVE_STATUSES = ['open', 'in_progress'] as const satisfies readonly TicketStatus[];
export const QUEUE_VIEWS = ['mine', 'unassigned', 'open', 'pending', 'all'] as const;
export type QueueView = (typeof QUEUE_VIEWS)[number];

/** The filters a view stands for, for the member `me`. */
export function viewFilters(view: QueueView, me: string): { status?: TicketStatus; statuses?: readonly TicketStatus[]; assignee?: string | null } {
  switch (view) {
    case 'mine':
      return { statuses: ACTIVE_STATUSES, assignee: me.toLowerCase() };
    case 'unassigned':
      return { statuses: ACTIVE_STATUSES, assignee: null };
    case 'open':
      return { status: 'open' };
    case 'pending':
      return { status: 'in_progress' };
    case 'all':
      return {};
  }
}

/**
 * Who may set a ticket's assignee to `to` (an e-mail, or null to leave it unassigned), as
 * `actor`: a manager anyone; an agent only itself (taking a ticket no one has, or one it has
 * already) and only away from itself (letting its own go). Returns why not, or undefined.
 */
export function assignmentRefusal(actor: { email: string; manager: boolean }, current: string | null, to: string | null): string | undefined {
  if (actor.manager) return undefined;
  const me = actor.email.toLowerCase();
  if (to !== null && to !== me) return 'An agent can only take a ticket for itself: assigning it to someone else needs support.manager';
  if (current !== null && current !== me) return `The ticket is assigned to ${current}: only a manager can reassign it`;
  return undefined;
}
