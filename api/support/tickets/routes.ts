/**
 * Tickets, messages, tags and quick replies (support-ticket-api.md §4.1–4.4, 4.9, 4.10 and what
 * the spec names without showing). Staff need `support.agent`; any other token may read, and
 * write messages to, only tickets whose e-mail is the token's.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError, notFound } from '../../../models/errors';
import type { AttachmentDoc, QuickReplyDoc, TagDoc, TicketDoc } from '../../../models/support/support.model';
import { messageView } from '../../../models/support/message.rules';
import * as tickets from '../../../operations/support/tickets';
import { SUPPORT_AGENT } from '../../../models/support/ticket.rules';
import { bearer, publicRoute } from '../../shared/auth';
import { definedFields, reply, routeFactory } from '../../shared/route';
import type { SupportDeps } from '../deps';
import {
  AddMessageBody,
  AddNoteBody,
  AssignTicketBody,
  QueueCountsView,
  AssignTagBody,
  CreateQuickReplyBody,
  CreateTagBody,
  CreateTicketBody,
  ListTicketsQuery,
  MessageSchema,
  NoData,
  QuickReplyDeleted,
  QuickReplyListQuery,
  QuickReplyIdParams,
  QuickReplySchema,
  TagDeleted,
  TagIdParams,
  TagParams,
  TagView,
  TicketDeleted,
  TicketDetailSchema,
  TicketIdParams,
  TicketRestored,
  SupportPagination,
  TicketSchema,
  TicketUpdated,
  UpdateQuickReplyBody,
  UpdateTagBody,
  UpdateTicketBody,
  UseQuickReplyParams,
} from '../contracts';
import {
  noteExample,
  agentEmail,
  queueCountsExample,
  agentMessageExample,
  agentMessageQueuedExample,
  createdTicketExample,
  createTicketBody,
  deliveryTag,
  newTagExample,
  newTagId,
  readerMessageExample,
  readerReplyBody,
  resendQuickReplyExample,
  resendQuickReplyId,
  resolveTicketBody,
  streakQuickReplyBody,
  streakQuickReplyExample,
  streakQuickReplyId,
  tagListExample,
  ticketDetailExample,
  ticketExample,
  ticketId,
  ticketUpdatedExample,
} from '../examples';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
const anyUser = bearer();

export const tagView = (t: TagDoc) => ({ id: t._id, name: t.name, color: t.color, isDefault: t.isDefault, createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString() });
const tagRef = (t: TagDoc) => ({ id: t._id, name: t.name, color: t.color, isDefault: t.isDefault });

export function ticketView(t: TicketDoc, tags: Map<number, TagDoc>) {
  return {
    id: t._id,
    main: t.main,
    issue: t.issue,
    description: t.description,
    status: t.status,
    email: t.email,
    newsletter: t.newsletter,
    wantReply: t.wantReply,
    idioma: t.idioma ?? 'pt',
    canal: t.canal ?? 'api',
    replied: t.replied,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    deletedAt: t.deletedAt ? t.deletedAt.toISOString() : null,
    assignee: t.assignee ?? null,
    tags: t.tags.flatMap((id) => {
      const tag = tags.get(id);
      return tag ? [tagRef(tag)] : [];
    }),
  };
}

export { messageView };
export const attachmentSummary = (a: AttachmentDoc) => ({ id: a._id, nomeArquivo: a.nomeArquivo, tipoArquivo: a.tipoArquivo, tamanhoArquivo: a.tamanhoArquivo, createdAt: a.createdAt.toISOString() });
const quickReplyView = (q: QuickReplyDoc) => ({ id: q._id, title: q.title, content: q.content, category: q.category, usageCount: q.usageCount, createdAt: q.createdAt.toISOString(), updatedAt: q.updatedAt.toISOString() });

const clientKey = (ctx: Context) => `ip:${ctx.ip}`;

export const ticketRoutes = [
  route({
    method: 'post',
    path: '/support',
    summary: 'Open a ticket (public)',
    description:
      'No authentication. main, issue (one of the allowed values), description and email are required. A tighter per-IP limit applies. ' +
      'With an Idempotency-Key a retry opens no second ticket (on this public route a key is anyone\'s: the same key with the same body gets the same ticket back).',
    tags: ['tickets'],
    auth: publicRoute,
    rateLimit: ({ ctx, deps }) => deps.createLimiter.consume(ctx, clientKey(ctx)),
    body: CreateTicketBody,
    response: TicketSchema,
    status: 201,
    errors: [429],
    idempotent: true,
    // The rest of a ticket's routes are linked by schemathesis' inference from the `id` field.
    links: [{ name: 'attach', method: 'post', path: '/support/:id/anexos', parameters: { id: '$response.body#/data/id' } }],
    example: {
      body: createTicketBody,
      response: createdTicketExample,
      message: 'Ticket criado',
    },
    handler: async ({ body, deps, requestKey }) => {
      const { ticket, tags } = await tickets.openTicket(deps, body, requestKey);
      return reply({ status: 201, message: 'Ticket criado', data: ticketView(ticket, tags) });
    },
  }),

  route({
    method: 'get',
    path: '/support',
    summary: 'List tickets',
    description: 'Newest first. Staff see every ticket (deleted ones only with includeDeleted=true or status=deleted); anyone else sees the tickets of their e-mail.',
    tags: ['tickets'],
    auth: anyUser,
    query: ListTicketsQuery,
    response: z.array(TicketSchema).max(100),
    pagination: SupportPagination,
    example: {
      query: { status: 'in_progress', q: 'Gmail', page: 1, limit: 10 },
      response: [ticketExample],
      pagination: { page: 1, limit: 10, total: 1, totalPages: 1 },
    },
    handler: async ({ query, auth, deps }) => {
      const { page, limit, ...filters } = query;
      if (filters.assignee !== undefined && !tickets.isStaff(auth)) throw new AppError('FORBIDDEN', 'Filtering by assignee is the support staff\'s');
      const { items, total, tags } = await tickets.listTickets(deps, auth, filters, page, limit);
      return reply({ data: items.map((t) => ticketView(t, tags)), pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } });
    },
  }),

  // Static paths before /support/:id.
  route({
    method: 'get',
    path: '/support/views',
    summary: "The queue's counts",
    description:
      'Staff only. How many tickets each queue view holds (mine, unassigned, open, pending, all: the `view` of GET /support), and the tickets being worked on (open or in progress) by newsletter, issue and tag.',
    tags: ['tickets'],
    auth: staff,
    response: QueueCountsView,
    example: { response: queueCountsExample },
    handler: async ({ auth, deps }) => await tickets.queueCounts(deps, auth),
  }),

  route({
    method: 'get',
    path: '/support/tags',
    summary: 'List tags',
    tags: ['tags'],
    auth: anyUser,
    response: z.array(TagView),
    example: { response: tagListExample },
    handler: async ({ deps }) => (await deps.tags.list()).map(tagView),
  }),
  route({
    method: 'post',
    path: '/support/tags',
    summary: 'Create a tag',
    tags: ['tags'],
    auth: staff,
    body: CreateTagBody,
    response: TagView,
    status: 201,
    errors: [409],
    example: {
      body: { name: newTagExample.name, color: '#8E24AA' },
      response: newTagExample,
      message: 'Tag criada',
    },
    handler: async ({ body, deps }) => {
      const tag = (await deps.tags.create(body)) ?? null;
      if (!tag) throw new AppError('CONFLICT', `A tag named "${body.name}" already exists`);
      return reply({ status: 201, message: 'Tag criada', data: tagView(tag) });
    },
  }),
  route({
    method: 'patch',
    path: '/support/tags/:tagId',
    summary: 'Rename or recolour a tag',
    tags: ['tags'],
    auth: staff,
    params: TagIdParams,
    body: UpdateTagBody,
    response: TagView,
    errors: [404, 409],
    example: {
      params: { tagId: newTagId },
      body: { color: '#6a1b9a' },
      response: { ...newTagExample, color: '#6a1b9a', updatedAt: '2026-11-24T13:16:30.000Z' },
    },
    handler: async ({ params, body, deps }) => {
      const tag = await deps.tags.update(params.tagId, body);
      if (tag === undefined) throw new AppError('CONFLICT', `A tag named "${body.name}" already exists`);
      return tagView(tag ?? notFound('tag'));
    },
  }),
  route({
    method: 'delete',
    path: '/support/tags/:tagId',
    summary: 'Delete a tag (and remove it from every ticket)',
    tags: ['tags'],
    auth: staff,
    params: TagIdParams,
    response: TagDeleted,
    errors: [404],
    example: {
      params: { tagId: newTagId },
      response: { id: newTagId },
      message: 'Tag removida',
    },
    handler: async ({ params, deps }) => {
      await tickets.deleteTag(deps, params.tagId);
      return reply({ message: 'Tag removida', data: { id: params.tagId } });
    },
  }),

  route({
    method: 'get',
    path: '/support/respostas-rapidas',
    summary: 'List quick replies (most used first)',
    tags: ['quick replies'],
    auth: staff,
    query: QuickReplyListQuery,
    // Every quick reply (of the category): the spec and the code set no limit to how many staff create (.spectral.yaml).
    response: z.array(QuickReplySchema),
    example: {
      query: { category: 'entrega' },
      response: [resendQuickReplyExample],
    },
    handler: async ({ query, deps }) => (await deps.quickReplies.list(query.category)).map(quickReplyView),
  }),
  route({
    method: 'post',
    path: '/support/respostas-rapidas',
    summary: 'Create a quick reply',
    tags: ['quick replies'],
    auth: staff,
    body: CreateQuickReplyBody,
    response: QuickReplySchema,
    status: 201,
    example: {
      body: streakQuickReplyBody,
      response: streakQuickReplyExample,
      message: 'Resposta rápida criada',
    },
    handler: async ({ body, auth, deps }) => reply({ status: 201, message: 'Resposta rápida criada', data: quickReplyView(await deps.quickReplies.create(body, auth.sub)) }),
  }),
  route({
    method: 'patch',
    path: '/support/respostas-rapidas/:replyId',
    summary: 'Update a quick reply',
    tags: ['quick replies'],
    auth: staff,
    params: QuickReplyIdParams,
    body: UpdateQuickReplyBody,
    response: QuickReplySchema,
    errors: [404],
    example: {
      params: { replyId: streakQuickReplyId },
      body: { content: 'Recalculamos o seu streak com as leituras desta semana. Se algum dia ainda faltar, responda com a data da edição que você leu.' },
      response: {
        ...streakQuickReplyExample,
        content: 'Recalculamos o seu streak com as leituras desta semana. Se algum dia ainda faltar, responda com a data da edição que você leu.',
        updatedAt: '2026-11-24T13:27:02.000Z',
      },
    },
    handler: async ({ params, body, deps }) => {
      const patch = definedFields(body);
      return quickReplyView((await deps.quickReplies.update(params.replyId, patch)) ?? notFound('quick reply'));
    },
  }),
  route({
    method: 'delete',
    path: '/support/respostas-rapidas/:replyId',
    summary: 'Delete a quick reply',
    tags: ['quick replies'],
    auth: staff,
    params: QuickReplyIdParams,
    response: QuickReplyDeleted,
    errors: [404],
    example: {
      params: { replyId: streakQuickReplyId },
      response: { id: streakQuickReplyId },
      message: 'Resposta rápida removida',
    },
    handler: async ({ params, deps }) => {
      if (!(await deps.quickReplies.delete(params.replyId))) notFound('quick reply');
      return reply({ message: 'Resposta rápida removida', data: { id: params.replyId } });
    },
  }),

  route({
    method: 'get',
    path: '/support/:id',
    summary: 'A ticket with its tags, attachments (anexos) and messages (mensagens)',
    description: 'The first message has id null and carries the description.',
    tags: ['tickets'],
    auth: anyUser,
    params: TicketIdParams,
    response: TicketDetailSchema,
    errors: [404],
    example: { params: { id: ticketId }, response: ticketDetailExample },
    handler: async ({ params, auth, deps }) => {
      const { ticket, tags, messages, attachments } = await tickets.ticketDetail(deps, auth, params.id);
      const first = { id: null, conteudo: ticket.description, remetente: ticket.email, origem: 'usuario' as const, createdAt: ticket.createdAt.toISOString() };
      return { ...ticketView(ticket, tags), anexos: attachments.map(attachmentSummary), mensagens: [first, ...messages.map(messageView)] };
    },
  }),

  route({
    method: 'patch',
    path: '/support/:id',
    summary: 'Update a ticket',
    description: 'At least one field. Status changes follow the transition table (docs/decisions.md); an illegal one is 409.',
    tags: ['tickets'],
    auth: staff,
    params: TicketIdParams,
    body: UpdateTicketBody,
    response: TicketUpdated,
    errors: [404, 409],
    example: {
      params: { id: ticketId },
      body: resolveTicketBody,
      response: ticketUpdatedExample,
      message: 'Ticket atualizado',
    },
    handler: async ({ params, body, auth, deps }) => {
      const updated = await tickets.updateTicket(deps, tickets.actorOf(auth), params.id, body);
      return reply({
        message: 'Ticket atualizado',
        data: { id: updated._id, status: updated.status, issue: updated.issue, replied: updated.replied, updatedAt: updated.updatedAt.toISOString() },
      });
    },
  }),

  route({
    method: 'delete',
    path: '/support/:id',
    summary: 'Soft-delete a ticket',
    description: 'Sets status deleted and deletedAt; the ticket leaves the lists and can be restored.',
    tags: ['tickets'],
    auth: staff,
    params: TicketIdParams,
    response: TicketDeleted,
    errors: [404, 409],
    example: {
      params: { id: ticketId },
      response: { id: ticketId, status: 'deleted' },
      message: 'Ticket removido',
    },
    handler: async ({ params, auth, deps }) => {
      await tickets.deleteTicket(deps, tickets.actorOf(auth), params.id);
      return reply({ message: 'Ticket removido', data: { id: params.id, status: 'deleted' } });
    },
  }),

  route({
    method: 'put',
    path: '/support/:id/assignee',
    summary: 'Assign a ticket, take it, or let it go',
    description:
      'Staff only. `assignee` is a staff member\'s e-mail, or null for no one. An agent takes a ticket no one has (its own e-mail) or lets its own go (null); ' +
      'a support manager assigns anyone who is an active support agent. A ticket someone else has is 409 with `details.assignee` (two agents taking one at once: one gets it, the other 409).',
    tags: ['tickets'],
    auth: staff,
    params: TicketIdParams,
    body: AssignTicketBody,
    response: TicketSchema,
    errors: [404, 409],
    example: { params: { id: ticketId }, body: { assignee: agentEmail }, response: ticketExample },
    handler: async ({ params, body, auth, deps }) => {
      const ticket = await tickets.assignTicket(deps, auth, params.id, body.assignee);
      return ticketView(ticket, await tickets.tagsOf(deps, [ticket]));
    },
  }),

  route({
    method: 'post',
    path: '/support/:id/notas',
    summary: 'Add an internal note',
    description: 'Staff only. A note for the staff (origem `nota`): the requester never sees it, it is no reply (no first response, no status change) and no mail carries it.',
    tags: ['messages'],
    auth: staff,
    params: TicketIdParams,
    body: AddNoteBody,
    response: MessageSchema,
    status: 201,
    errors: [404, 409],
    example: { params: { id: ticketId }, body: { conteudo: noteExample.conteudo }, response: noteExample, message: 'Nota adicionada' },
    handler: async ({ params, body, auth, deps }) => reply({ status: 201, message: 'Nota adicionada', data: messageView(await tickets.addNote(deps, auth, params.id, body.conteudo)) }),
  }),

  route({
    method: 'post',
    path: '/support/:id/restore',
    summary: 'Restore a deleted ticket to the status it had',
    tags: ['tickets'],
    auth: staff,
    params: TicketIdParams,
    response: TicketRestored,
    errors: [404, 409],
    example: {
      params: { id: ticketId },
      response: { id: ticketId, status: 'resolved' },
      message: 'Ticket restaurado',
    },
    handler: async ({ params, auth, deps }) => {
      const status = await tickets.restoreTicket(deps, tickets.actorOf(auth), params.id);
      // A ticket is deleted only from another status (ticket.repo changeStatus skips deleted → deleted), so it never comes back deleted.
      if (status === 'deleted') throw new Error(`Ticket ${params.id} was restored to deleted`);
      return reply({ message: 'Ticket restaurado', data: { id: params.id, status } });
    },
  }),

  route({
    method: 'get',
    path: '/support/:id/mensagens',
    summary: 'Messages of a ticket',
    tags: ['messages'],
    auth: anyUser,
    params: TicketIdParams,
    response: z.array(MessageSchema),
    errors: [404],
    example: { params: { id: ticketId }, response: [agentMessageExample, readerMessageExample] },
    handler: async ({ params, auth, deps }) => {
      const ticket = await tickets.visibleTicket(deps, auth, params.id);
      return (await tickets.ticketMessages(deps, auth, ticket)).map(messageView);
    },
  }),

  route({
    method: 'post',
    path: '/support/:id/mensagens',
    summary: 'Add a message',
    description:
      'Sender (remetente) and origin come from the token: staff write as admin, requesters as usuario. An admin reply moves an open ticket to in_progress. ' +
      'With `lastSeenMessageId` (the id of the newest message the author saw; 0: only the description) a message written while someone else\'s arrived is refused: ' +
      '409 with `details.newer` (those messages, the newest 20), `details.newerCount` and `details.lastMessageId`, and nothing is written; send it again with `force: true`, ' +
      'or with the new `lastSeenMessageId` once it was read. Without the field nothing is checked.',
    tags: ['messages'],
    auth: anyUser,
    params: TicketIdParams,
    body: AddMessageBody,
    response: MessageSchema,
    status: 201,
    errors: [404, 409],
    idempotent: true,
    example: {
      params: { id: ticketId },
      body: readerReplyBody,
      response: readerMessageExample,
      message: 'Mensagem adicionada',
    },
    handler: async ({ params, body, auth, deps, requestKey }) => {
      const message = await tickets.addMessage(deps, auth, params.id, body.conteudo, requestKey, { lastSeenMessageId: body.lastSeenMessageId, force: body.force });
      return reply({ status: 201, message: 'Mensagem adicionada', data: messageView(message) });
    },
  }),

  route({
    method: 'post',
    path: '/support/:id/respostas-rapidas/:replyId',
    summary: 'Answer with a quick reply',
    description: 'Adds the reply as an admin message and counts the use.',
    tags: ['quick replies'],
    auth: staff,
    params: UseQuickReplyParams,
    response: MessageSchema,
    status: 201,
    errors: [404, 409],
    example: {
      params: { id: ticketId, replyId: resendQuickReplyId },
      response: agentMessageQueuedExample,
      message: 'Resposta rápida enviada',
    },
    handler: async ({ params, auth, deps }) => {
      const message = await tickets.sendQuickReply(deps, auth, params.id, params.replyId);
      return reply({ status: 201, message: 'Resposta rápida enviada', data: messageView(message) });
    },
  }),

  route({
    method: 'post',
    path: '/support/:id/tags',
    summary: 'Tag a ticket',
    description: 'Both must exist; tagging twice is harmless.',
    tags: ['tags'],
    auth: staff,
    params: TicketIdParams,
    body: AssignTagBody,
    response: NoData,
    errors: [404],
    example: {
      params: { id: ticketId },
      body: { tagId: deliveryTag.id },
      response: null,
      message: 'Tag associada ao ticket',
    },
    handler: async ({ params, body, deps }) => {
      await tickets.tagTicket(deps, params.id, body.tagId);
      return reply({ message: 'Tag associada ao ticket' });
    },
  }),

  route({
    method: 'delete',
    path: '/support/:id/tags/:tagId',
    summary: 'Remove a tag from a ticket',
    tags: ['tags'],
    auth: staff,
    params: TagParams,
    response: NoData,
    errors: [404],
    example: {
      params: { id: ticketId, tagId: deliveryTag.id },
      response: null,
      message: 'Tag removida do ticket',
    },
    handler: async ({ params, deps }) => {
      await tickets.untagTicket(deps, params.id, params.tagId);
      return reply({ message: 'Tag removida do ticket' });
    },
  }),
];
