/**
 * Tickets, messages and tags, the use cases (support-ticket-api.md §4.1–4.4, 4.9, 4.10): who sees
 * which ticket (staff all; anyone else only their own e-mail's, never a deleted one), changing and
 * deleting and restoring a ticket, writing to it (as staff or as its owner), a quick reply sent,
 * tags put on and taken off, a tag deleted everywhere. Routes parse and present; these decide.
 */
import { actorOf, hasPermission, type Principal } from '../../models/auth/token.rules';
import { AppError, notFound } from '../../models/errors';
import type { AttachmentRepo, QuickReplyRepo, TagRepo } from '../../models/support/catalog.repo';
import type { MessageDoc, TagDoc, TicketDoc } from '../../models/support/support.model';
import type { NewTicket, QueueCounts, TicketFilters, TicketRepo } from '../../models/support/ticket.repo';
import { assertNotDeleted, assignmentRefusal, SUPPORT_AGENT, SUPPORT_MANAGER, viewFilters, type Delivery, type MessageChannel, type QueueView, type TicketStatus } from '../../models/support/ticket.rules';
import type { MailOutbox } from './mail-delivery';
import { messageView } from '../../models/support/message.rules';

export interface TicketDeps {
  tickets: TicketRepo;
  tags: TagRepo;
  attachments: AttachmentRepo;
  quickReplies: QuickReplyRepo;
  /** Whether an address is an active staff member holding support.agent (who a manager may assign). */
  agents: { isAgent(email: string): Promise<boolean> };
  now: () => Date;
  /** Starts the mail of a stored staff reply or acknowledgement (issue 39); a start missed is the mail relay's. */
  mailOutbox?: MailOutbox;
}

/** Where a message comes from: the staff console (a staff session) or the API (a bearer token). */
export const channelOf = (principal: Principal): MessageChannel => ((principal as { via?: string }).via === 'console' ? 'console' : 'api');

/** Hands a stored message's queued delivery (or a new ticket's acknowledgement: messageId 0) to its workflow. */
async function mailIfQueued(deps: Pick<TicketDeps, 'mailOutbox'>, ticketId: number, messageId: number, delivery: Delivery | undefined): Promise<void> {
  if (delivery?.estado === 'queued') await deps.mailOutbox?.queue({ ticketId, messageId });
}

export const isStaff = (p: Principal) => hasPermission(p, SUPPORT_AGENT);
/** Messages, status changes, bulk operations and assignments name an agent alike (its e-mail), so the agents report counts one agent once. */
export { actorOf };
const author = actorOf;

/** The tags of some tickets, by id. */
export async function tagsOf(deps: Pick<TicketDeps, 'tags'>, tickets: readonly TicketDoc[]): Promise<Map<number, TagDoc>> {
  const ids = [...new Set(tickets.flatMap((t) => t.tags))];
  return new Map((await deps.tags.findMany(ids)).map((t) => [t._id, t]));
}

/** The ticket, if the caller may see it: staff see all; others only their own (else 404). */
export async function visibleTicket(deps: Pick<TicketDeps, 'tickets'>, principal: Principal, id: number): Promise<TicketDoc> {
  const ticket = await deps.tickets.findById(id);
  if (!ticket) notFound('ticket');
  if (isStaff(principal)) return ticket;
  if (!principal.email || ticket.email !== principal.email.toLowerCase() || ticket.status === 'deleted') notFound('ticket');
  return ticket;
}

export type QueueFilters = TicketFilters & { view?: QueueView | undefined };

/**
 * The filters a list asks for, a view's included (views are the staff's); `none` when a view and an
 * explicit status select nothing together (a status outside the view's).
 */
function queueFilters(principal: Principal, filters: QueueFilters): TicketFilters | 'none' {
  const { view, ...rest } = filters;
  if (view !== undefined && !isStaff(principal)) throw new AppError('FORBIDDEN', 'The queue\'s views are the support staff\'s');
  if (view === 'mine' && !principal.email) throw new AppError('VALIDATION_FAILED', 'The view "mine" needs a caller with an e-mail');
  const f: TicketFilters = { ...rest, ...(view ? viewFilters(view, principal.email ?? '') : {}) };
  if (view && rest.status) {
    const within = f.statuses ? f.statuses.includes(rest.status) : f.status === undefined || f.status === rest.status;
    if (!within) return 'none';
    Object.assign(f, { status: rest.status, statuses: undefined });
  }
  return f;
}

/**
 * The tickets a staff member's bulk operation over a whole view acts on: every ticket the filters
 * select now (a snapshot: tickets arriving later are not in it). More than `max` is 400: the view
 * is to be narrowed (the operation would not be what the member saw counted). None is 400 too.
 */
export async function ticketsOfView(deps: Pick<TicketDeps, 'tickets'>, principal: Principal, filters: QueueFilters, max: number): Promise<number[]> {
  if (!isStaff(principal)) throw new AppError('FORBIDDEN', `Missing permission: ${SUPPORT_AGENT}`);
  const f = queueFilters(principal, filters);
  const ids = f === 'none' ? [] : await deps.tickets.idsMatching(f, max + 1);
  if (ids.length === 0) throw new AppError('VALIDATION_FAILED', 'The view selects no ticket', { details: [{ path: 'body.filter', message: 'selects no ticket' }] });
  if (ids.length > max) throw new AppError('VALIDATION_FAILED', `The view selects more than ${max} tickets: narrow it (a status, a newsletter, a tag…)`, { details: [{ path: 'body.filter', message: `more than ${max} tickets` }] });
  return ids;
}

/**
 * A page of tickets: staff filter freely, and by the queue's views (mine, unassigned, open,
 * pending); anyone else sees only their own e-mail's, never deleted ones, and no view.
 */
export async function listTickets(deps: Pick<TicketDeps, 'tickets' | 'tags'>, principal: Principal, filters: QueueFilters, page: number, limit: number) {
  const f = queueFilters(principal, filters);
  if (f === 'none') return { items: [], total: 0, tags: new Map<number, TagDoc>() };
  if (!isStaff(principal)) {
    if (!principal.email) return { items: [], total: 0, tags: new Map<number, TagDoc>() };
    Object.assign(f, { email: principal.email, includeDeleted: false, status: f.status === 'deleted' ? undefined : f.status });
  }
  const { items, total } = await deps.tickets.list(f, page, limit);
  return { items, total, tags: await tagsOf(deps, items) };
}

/**
 * Opens a ticket (public: the requester is its e-mail). With a `requestKey` (an Idempotency-Key)
 * the ticket carries it, so a request repeated after any fault gets the ticket the first made, as
 * it is now (a new one has no tags; one found again may have been tagged since).
 */
export async function openTicket(deps: Pick<TicketDeps, 'tickets' | 'tags' | 'mailOutbox'>, input: NewTicket, requestKey?: string): Promise<{ ticket: TicketDoc; tags: Map<number, TagDoc> }> {
  const ticket = await deps.tickets.create(input, input.email, requestKey);
  await mailIfQueued(deps, ticket._id, 0, ticket.confirmacao);
  return { ticket, tags: ticket.tags.length ? await tagsOf(deps, [ticket]) : new Map<number, TagDoc>() };
}

/** A ticket the caller may see, with its tags, messages (internal notes for staff only) and attachments. */
export async function ticketDetail(deps: TicketDeps, principal: Principal, id: number) {
  const ticket = await visibleTicket(deps, principal, id);
  const [tags, messages, attachments] = await Promise.all([tagsOf(deps, [ticket]), ticketMessages(deps, principal, ticket), deps.attachments.forTicket(ticket._id)]);
  return { ticket, tags, messages, attachments };
}

/** The messages of a ticket the caller may see: the staff's internal notes are the staff's alone. */
export async function ticketMessages(deps: Pick<TicketDeps, 'tickets'>, principal: Principal, ticket: Pick<TicketDoc, '_id'>): Promise<MessageDoc[]> {
  const messages = await deps.tickets.messages(ticket._id);
  return isStaff(principal) ? messages : messages.filter((m) => m.origem !== 'nota');
}

/** An internal note on a ticket (issue 38): staff to staff; the requester never sees it. */
export async function addNote(deps: Pick<TicketDeps, 'tickets'>, principal: Principal, id: number, conteudo: string): Promise<MessageDoc> {
  if (!isStaff(principal)) throw new AppError('FORBIDDEN', `Missing permission: ${SUPPORT_AGENT}`);
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  assertNotDeleted(ticket, 'A deleted ticket takes no notes');
  const { message } = await deps.tickets.addMessage(ticket, { conteudo, remetente: author(principal), origem: 'nota' });
  return message;
}

export interface TicketChanges {
  status?: TicketStatus | undefined;
  issue?: string | undefined;
  main?: string | undefined;
  newsletter?: string | undefined;
  replied?: string | undefined;
}

/** Changes a ticket (a status by the transition table, 409 when illegal); a deleted one must be restored first. */
export async function updateTicket(deps: Pick<TicketDeps, 'tickets'>, by: string, id: number, changes: TicketChanges): Promise<TicketDoc> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  if (ticket.status === 'deleted') throw new AppError('CONFLICT', 'A deleted ticket must be restored before it can be changed');
  const { status, ...fields } = changes;
  if (status) await deps.tickets.changeStatus(ticket, status, by, 'patch');
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  await deps.tickets.updateFields(ticket._id, defined);
  return (await deps.tickets.findById(ticket._id))!;
}

/**
 * Sets who works on a ticket (null: no one). An agent takes a ticket no one has (or lets its own
 * go); a manager assigns anyone who is an agent. The write holds only if the assignee is still what
 * was read, so of two agents taking a ticket at once one does and the other is told who has it
 * (409). A deleted ticket takes no assignee.
 */
export async function assignTicket(deps: Pick<TicketDeps, 'tickets' | 'agents' | 'now'>, principal: Principal, id: number, to: string | null): Promise<TicketDoc> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  assertNotDeleted(ticket, 'A deleted ticket must be restored before it can be assigned');
  if (!principal.email) throw new AppError('FORBIDDEN', 'Assigning tickets needs a caller with an e-mail');
  const me = principal.email.toLowerCase();
  const target = to === null ? null : to.toLowerCase();
  const current = ticket.assignee ?? null;
  if (current === target) return ticket;
  const refusal = assignmentRefusal({ email: me, manager: hasPermission(principal, SUPPORT_MANAGER) }, current, target);
  if (refusal) throw new AppError(current !== null && current !== me && target === me ? 'CONFLICT' : 'FORBIDDEN', refusal, { details: { assignee: current } });
  if (target !== null && target !== me && !(await deps.agents.isAgent(target))) {
    throw new AppError('VALIDATION_FAILED', `${target} is not an active support agent`, { details: [{ path: 'body.assignee', message: 'not an active staff member with support.agent' }] });
  }
  if (!(await deps.tickets.assign(ticket._id, current, target, deps.now()))) {
    const now = await deps.tickets.findById(ticket._id);
    throw new AppError('CONFLICT', `The ticket's assignee changed meanwhile (now ${now?.assignee ?? 'no one'}): look again`, { details: { assignee: now?.assignee ?? null } });
  }
  return (await deps.tickets.findById(ticket._id))!;
}

/** The queue's counts for a staff member (each view; the active tickets by newsletter, issue and tag). */
export async function queueCounts(deps: Pick<TicketDeps, 'tickets'>, principal: Principal): Promise<QueueCounts> {
  if (!isStaff(principal)) throw new AppError('FORBIDDEN', `Missing permission: ${SUPPORT_AGENT}`);
  return await deps.tickets.queueCounts(principal.email ?? principal.sub);
}

/** Soft-deletes a ticket (it leaves the lists and can be restored). */
export async function deleteTicket(deps: Pick<TicketDeps, 'tickets'>, by: string, id: number): Promise<void> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  if (ticket.status === 'deleted') throw new AppError('CONFLICT', 'The ticket is already deleted');
  await deps.tickets.changeStatus(ticket, 'deleted', by, 'delete');
}

/** Restores a deleted ticket to the status it had. */
export async function restoreTicket(deps: Pick<TicketDeps, 'tickets'>, by: string, id: number): Promise<TicketStatus> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  return await deps.tickets.restore(ticket, by);
}

/**
 * A message on a ticket the caller may see: staff write as admin, its owner as the user. With a
 * `requestKey` (an Idempotency-Key) the message is stored under it (its unique dedupeKey), so a
 * request repeated after a fault (the message stored, a later step failed: 503) adds nothing and
 * returns the first message, completing the steps after it.
 */
export async function addMessage(
  deps: Pick<TicketDeps, 'tickets' | 'mailOutbox'>,
  principal: Principal,
  id: number,
  conteudo: string,
  requestKey?: string,
  seen: SeenMessages = {},
): Promise<MessageDoc> {
  const ticket = await visibleTicket(deps, principal, id);
  assertNotDeleted(ticket, 'A deleted ticket takes no messages');
  if (seen.lastSeenMessageId !== undefined && !seen.force) await refuseStaleReply(deps, ticket._id, author(principal), seen.lastSeenMessageId);
  const { message } = await deps.tickets.addMessage(ticket, {
    conteudo,
    remetente: author(principal),
    origem: isStaff(principal) ? 'admin' : 'usuario',
    canal: channelOf(principal),
    ...(requestKey ? { dedupeKey: messageKeyOf(requestKey) } : {}),
  });
  await mailIfQueued(deps, ticket._id, message._id, message.entrega);
  return message;
}

/** What the author of a message had seen (issue 38): the newest message's id (0: only the description), and whether to send anyway. */
export interface SeenMessages {
  lastSeenMessageId?: number | undefined;
  force?: boolean | undefined;
}

/** The most newer messages a stale reply's 409 shows (the newest of them). */
const STALE_SHOWN = 20;

/**
 * The traffic cop (issue 38): a message written while someone else's arrived is refused (409,
 * nothing written) with the messages its author did not see, until sent again with `force` (or
 * with the newest id). Newer: a message of the ticket with an id above `lastSeen` (ids are one
 * shared sequence, so no clock is compared) from someone else: one's own (a repeat after a fault,
 * another tab) is no news.
 */
async function refuseStaleReply(deps: Pick<TicketDeps, 'tickets'>, ticketId: number, me: string, lastSeen: number): Promise<void> {
  const newer = (await deps.tickets.messages(ticketId)).filter((m) => m._id > lastSeen && m.remetente !== me);
  if (newer.length === 0) return;
  throw new AppError('CONFLICT', `${newer.length} newer message(s) arrived on this ticket after the one you saw: read them, then send again (force: true sends it as it is)`, {
    details: {
      reason: 'newer_messages',
      newerCount: newer.length,
      lastMessageId: Math.max(...newer.map((m) => m._id)),
      newer: newer.slice(-STALE_SHOWN).map(messageView),
    },
  });
}

/** The dedupeKey of a message written under a request's key (bulk messages use `<operationId>:<ticketId>`). */
export const messageKeyOf = (requestKey: string) => `request:${requestKey}`;

/** Sends a quick reply as an admin message, and counts its use. */
export async function sendQuickReply(deps: Pick<TicketDeps, 'tickets' | 'quickReplies' | 'mailOutbox'>, principal: Principal, id: number, replyId: number): Promise<MessageDoc> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  assertNotDeleted(ticket, 'A deleted ticket takes no messages');
  const quick = (await deps.quickReplies.findById(replyId)) ?? notFound('quick reply');
  const { message } = await deps.tickets.addMessage(ticket, { conteudo: quick.content, remetente: author(principal), origem: 'admin', canal: channelOf(principal) });
  await deps.quickReplies.countUse(quick._id);
  await mailIfQueued(deps, ticket._id, message._id, message.entrega);
  return message;
}

export async function tagTicket(deps: Pick<TicketDeps, 'tickets' | 'tags'>, id: number, tagId: number): Promise<void> {
  const [ticket, tag] = await Promise.all([deps.tickets.findById(id), deps.tags.findById(tagId)]);
  if (!ticket) notFound('ticket');
  if (!tag) notFound('tag');
  await deps.tickets.addTag(ticket._id, tag._id);
}

export async function untagTicket(deps: Pick<TicketDeps, 'tickets'>, id: number, tagId: number): Promise<void> {
  if (!(await deps.tickets.findById(id))) notFound('ticket');
  if (!(await deps.tickets.removeTag(id, tagId))) notFound('tag on this ticket');
}

/**
 * Takes a tag off every ticket, then deletes it: a failure in between leaves the tag, so the
 * retry finishes the work (deleting first would leave tickets naming a tag no retry can find).
 * A ticket tagged with it meanwhile keeps an id no view shows (views show only existing tags).
 */
export async function deleteTag(deps: Pick<TicketDeps, 'tickets' | 'tags'>, tagId: number): Promise<void> {
  if (!(await deps.tags.findById(tagId))) notFound('tag');
  await deps.tickets.dropTagEverywhere(tagId);
  if (!(await deps.tags.delete(tagId))) notFound('tag');
}
