/**
 * Tickets, messages and tags, the use cases (support-ticket-api.md §4.1–4.4, 4.9, 4.10): who sees
 * which ticket (staff all; anyone else only their own e-mail's, never a deleted one), changing and
 * deleting and restoring a ticket, writing to it (as staff or as its owner), a quick reply sent,
 * tags put on and taken off, a tag deleted everywhere. Routes parse and present; these decide.
 */
import { hasPermission, type Principal } from '../../models/auth/token.rules';
import { AppError, notFound } from '../../models/errors';
import type { AttachmentRepo, QuickReplyRepo, TagRepo } from '../../models/support/catalog.repo';
import type { MessageDoc, TagDoc, TicketDoc } from '../../models/support/support.model';
import type { NewTicket, TicketFilters, TicketRepo } from '../../models/support/ticket.repo';
import { assertNotDeleted, SUPPORT_AGENT, type TicketStatus } from '../../models/support/ticket.rules';

export interface TicketDeps {
  tickets: TicketRepo;
  tags: TagRepo;
  attachments: AttachmentRepo;
  quickReplies: QuickReplyRepo;
}

export const isStaff = (p: Principal) => hasPermission(p, SUPPORT_AGENT);
const author = (p: Principal) => p.email ?? p.sub;

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

/** A page of tickets: staff filter freely; anyone else sees only their own e-mail's, never deleted ones. */
export async function listTickets(deps: Pick<TicketDeps, 'tickets' | 'tags'>, principal: Principal, filters: TicketFilters, page: number, limit: number) {
  const f = { ...filters };
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
export async function openTicket(deps: Pick<TicketDeps, 'tickets' | 'tags'>, input: NewTicket, requestKey?: string): Promise<{ ticket: TicketDoc; tags: Map<number, TagDoc> }> {
  const ticket = await deps.tickets.create(input, input.email, requestKey);
  return { ticket, tags: ticket.tags.length ? await tagsOf(deps, [ticket]) : new Map<number, TagDoc>() };
}

/** A ticket the caller may see, with its tags, messages and attachments. */
export async function ticketDetail(deps: TicketDeps, principal: Principal, id: number) {
  const ticket = await visibleTicket(deps, principal, id);
  const [tags, messages, attachments] = await Promise.all([tagsOf(deps, [ticket]), deps.tickets.messages(ticket._id), deps.attachments.forTicket(ticket._id)]);
  return { ticket, tags, messages, attachments };
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
export async function addMessage(deps: Pick<TicketDeps, 'tickets'>, principal: Principal, id: number, conteudo: string, requestKey?: string): Promise<MessageDoc> {
  const ticket = await visibleTicket(deps, principal, id);
  assertNotDeleted(ticket, 'A deleted ticket takes no messages');
  const { message } = await deps.tickets.addMessage(ticket, {
    conteudo,
    remetente: author(principal),
    origem: isStaff(principal) ? 'admin' : 'usuario',
    ...(requestKey ? { dedupeKey: messageKeyOf(requestKey) } : {}),
  });
  return message;
}

/** The dedupeKey of a message written under a request's key (bulk messages use `<operationId>:<ticketId>`). */
export const messageKeyOf = (requestKey: string) => `request:${requestKey}`;

/** Sends a quick reply as an admin message, and counts its use. */
export async function sendQuickReply(deps: Pick<TicketDeps, 'tickets' | 'quickReplies'>, principal: Principal, id: number, replyId: number): Promise<MessageDoc> {
  const ticket = (await deps.tickets.findById(id)) ?? notFound('ticket');
  assertNotDeleted(ticket, 'A deleted ticket takes no messages');
  const quick = (await deps.quickReplies.findById(replyId)) ?? notFound('quick reply');
  const { message } = await deps.tickets.addMessage(ticket, { conteudo: quick.content, remetente: author(principal), origem: 'admin' });
  await deps.quickReplies.countUse(quick._id);
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
