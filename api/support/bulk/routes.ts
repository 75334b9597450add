/**
 * Bulk operations (status update, delete, messages) as Temporal workflows: POST answers 202 with
 * the operation id (with an Idempotency-Key, a repeat gets the same operation); GET reports
 * progress and the final state; POST …/cancel stops it.
 */
import type { z } from 'zod';
import { BULK_MAX_TICKETS, type BulkParams, type BulkType } from '../../../models/support/bulk.rules';
import { bulkAssignParams, bulkOperationStatus, bulkTagParams, cancelBulkOperation, startBulkOperation, type BulkDeps } from '../../../operations/support/bulk';
import { channelOf, ticketsOfView } from '../../../operations/support/tickets';
import type { Principal } from '../../../models/auth/token.rules';
import { SUPPORT_AGENT } from '../../../models/support/ticket.rules';
import { bearer } from '../../shared/auth';
import { reply, routeFactory, type RouteExample, type RouteLink } from '../../shared/route';
import {
  BulkAssignBody,
  BulkTagsBody,
  type BulkSelection,
  BulkDeleteBody,
  BulkFastResponseBody,
  BulkMessagesBody,
  BulkOperationAccepted,
  BulkOperationCancelling,
  BulkOperationParams,
  BulkOperationView,
  BulkStatusBody,
} from '../contracts';
import type { SupportDeps } from '../deps';
import {
  agentEmail,
  bulkAssignAccepted,
  bulkTagsAccepted,
  deliveryTag,
  bulkDeleteAccepted,
  bulkFastResponseAccepted,
  bulkMessagesAccepted,
  bulkMessagesOperationId,
  bulkOperationExample,
  bulkStatusAccepted,
  bulkStatusOperationId,
  ticketId,
} from '../examples';
import { requireProvider } from '../../../operations/ai/chat';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
const tags = ['bulk operations'];

const bulkDeps = (deps: SupportDeps): BulkDeps => ({ bulk: deps.bulk, temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, now: deps.now });

/** Where a started operation's answer leads: its progress and its cancellation. */
const operationLinks: RouteLink[] = [
  { name: 'progress', method: 'get', path: '/support/bulk/:operationId', parameters: { operationId: '$response.body#/data/operationId' } },
  { name: 'cancel', method: 'post', path: '/support/bulk/:operationId/cancel', parameters: { operationId: '$response.body#/data/operationId' } },
];

/**
 * A route that starts a bulk operation of one type on the body's tickets: 202 with the operation
 * and its status URL (Location); with an Idempotency-Key, a repeat gets the same operation.
 * `requires` refuses before anything starts (a dependency the type needs is missing).
 */
function startRoute<B extends z.ZodType<{ ticketIds?: number[] | undefined; filter?: z.output<typeof BulkSelection> | undefined }>>(op: {
  path: string;
  summary: string;
  description?: string;
  type: BulkType;
  body: B;
  params: (body: z.output<B>, deps: SupportDeps, auth: Principal) => BulkParams | Promise<BulkParams>;
  requires?: (deps: SupportDeps) => void;
  /** Statuses besides 503 its checks may answer (a tag that does not exist: 404). */
  errors?: number[];
  /** The worked example of the operation: its body and the operation it starts. */
  example: Pick<RouteExample<unknown, unknown, z.input<B>, z.input<typeof BulkOperationAccepted>>, 'body' | 'response'>;
}) {
  return route({
    method: 'post',
    path: op.path,
    summary: op.summary,
    description: op.description,
    tags,
    auth: staff,
    body: op.body,
    response: BulkOperationAccepted,
    links: operationLinks,
    status: 202,
    errors: [503, ...(op.errors ?? [])],
    idempotent: true,
    example: { ...op.example, message: 'Operação iniciada' },
    handler: async ({ body, auth, deps, requestKey }) => {
      op.requires?.(deps);
      const params = await op.params(body, deps, auth);
      // A whole view: the tickets it selects now (with an Idempotency-Key, a repeat finds the operation the first made).
      const ticketIds = body.ticketIds ?? (await ticketsOfView(deps, auth, body.filter ?? {}, BULK_MAX_TICKETS));
      const started = await startBulkOperation(bulkDeps(deps), { by: auth, canal: channelOf(auth), type: op.type, ticketIds, params, requestKey });
      const statusUrl = `/support/bulk/${started.operationId}`;
      return reply({ status: 202, message: 'Operação iniciada', data: { ...started, statusUrl }, headers: { Location: statusUrl } });
    },
  });
}

export const bulkRoutes = [
  startRoute({
    path: '/support/bulk/status',
    summary: 'Change the status of many tickets',
    description: `Up to ${BULK_MAX_TICKETS} tickets; runs as workflow ticket-bulk-<operationId>. Each ticket is changed exactly once; tickets whose transition is not allowed are reported as errors.`,
    type: 'status',
    body: BulkStatusBody,
    params: (body) => ({ status: body.status }),
    example: { body: { ticketIds: [1838, ticketId, 1845], status: 'resolved' }, response: bulkStatusAccepted },
  }),
  startRoute({
    path: '/support/bulk/delete',
    summary: 'Soft-delete many tickets',
    type: 'delete',
    body: BulkDeleteBody,
    params: () => ({}),
    example: { body: { ticketIds: [1790, 1791] }, response: bulkDeleteAccepted },
  }),
  startRoute({
    path: '/support/bulk/messages',
    summary: 'Send one admin message to many tickets',
    description: 'Each ticket gets the message once, even if the operation is retried.',
    type: 'messages',
    body: BulkMessagesBody,
    params: (body) => ({ conteudo: body.conteudo }),
    example: {
      body: {
        ticketIds: [ticketId, 1845, 1847],
        conteudo: 'Olá! A edição desta terça atrasou por uma instabilidade no nosso provedor de e-mail. Ela já foi reenviada para todos os leitores afetados.',
      },
      response: bulkMessagesAccepted,
    },
  }),
  startRoute({
    path: '/support/bulk/fast-response',
    summary: 'Draft AI replies for many tickets (and send them when asked)',
    description: 'Per ticket as POST /support/{id}/fast-response; provider errors are retried, a ticket the provider refuses is reported. 503 when no AI provider is configured.',
    type: 'fast_response',
    body: BulkFastResponseBody,
    params: (body) => ({ send: body.send }),
    requires: (deps) => requireProvider(deps.llm),
    example: { body: { ticketIds: [1845, 1847], send: false }, response: bulkFastResponseAccepted },
  }),
  startRoute({
    path: '/support/bulk/tags',
    summary: 'Put tags on and take tags off many tickets',
    description: `Up to ${BULK_MAX_TICKETS} tickets, or a whole view (\`filter\`). Every tag named must exist (404).`,
    type: 'tags',
    body: BulkTagsBody,
    params: (body, deps) => bulkTagParams(deps, body.add, body.remove),
    errors: [404],
    example: { body: { filter: { view: 'unassigned', issue: 'Não estou recebendo a edição' }, add: [deliveryTag.id], remove: [] }, response: bulkTagsAccepted },
  }),
  startRoute({
    path: '/support/bulk/assign',
    summary: 'Assign many tickets',
    description:
      'A support manager assigns an active agent (or no one, null) to every ticket, reassigning those others have. An agent takes tickets for itself: those another agent has are reported as errors.',
    type: 'assign',
    body: BulkAssignBody,
    params: (body, deps, auth) => bulkAssignParams(deps, auth, body.assignee),
    example: { body: { ticketIds: [1845, 1847], assignee: agentEmail }, response: bulkAssignAccepted },
  }),
  route({
    method: 'get',
    path: '/support/bulk/:operationId',
    summary: 'Progress and state of a bulk operation',
    tags,
    auth: staff,
    params: BulkOperationParams,
    response: BulkOperationView,
    errors: [404],
    example: { params: { operationId: bulkStatusOperationId }, response: bulkOperationExample },
    handler: async ({ params, deps }) => {
      const op = await bulkOperationStatus(bulkDeps(deps), params.operationId);
      return {
        operationId: op._id,
        type: op.type,
        state: op.state,
        total: op.total,
        ...op.progress,
        error: op.error ?? null,
        createdAt: op.createdAt.toISOString(),
        finishedAt: op.finishedAt ? op.finishedAt.toISOString() : null,
      };
    },
  }),
  route({
    method: 'post',
    path: '/support/bulk/:operationId/cancel',
    summary: 'Cancel a running bulk operation',
    description: 'Stops between tickets; what was done stays done.',
    tags,
    auth: staff,
    params: BulkOperationParams,
    response: BulkOperationCancelling,
    status: 202,
    errors: [404, 409],
    example: {
      params: { operationId: bulkMessagesOperationId },
      response: { operationId: bulkMessagesOperationId, state: 'cancelling' },
      message: 'Cancelamento solicitado',
    },
    handler: async ({ params, deps }) => reply({ status: 202, message: 'Cancelamento solicitado', data: await cancelBulkOperation(bulkDeps(deps), params.operationId) }),
  }),
];
