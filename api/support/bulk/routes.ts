/**
 * Bulk operations (status update, delete, messages) as Temporal workflows: POST answers 202 with
 * the operation id (with an Idempotency-Key, a repeat gets the same operation); GET reports
 * progress and the final state; POST …/cancel stops it.
 */
import { z } from 'zod';
import { BULK_ERROR_MAX } from '../../../models/support/bulk.repo';
import { BULK_MAX_TICKETS, BULK_TYPES, type BulkParams, type BulkType } from '../../../models/support/bulk.rules';
import { bulkOperationStatus, cancelBulkOperation, startBulkOperation, type BulkDeps } from '../../../models/support/operations/bulk';
import { PATCHABLE_STATUSES, SUPPORT_AGENT } from '../../../models/support/ticket.rules';
import { bearer } from '../../shared/auth';
import { reply, routeFactory } from '../../shared/route';
import { Count, IsoDateTime, Text, Uuid } from '../../shared/views';
import type { SupportDeps } from '../deps';
import type { Principal } from '../../../models/auth/token.rules';
import { requireProvider } from '../../../models/ai/operations/chat';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
const tags = ['bulk operations'];

const ticketIds = z
  .array(z.number().int().positive())
  .min(1, 'ticketIds must name at least one ticket')
  .max(BULK_MAX_TICKETS, `at most ${BULK_MAX_TICKETS} tickets per operation`)
  .transform((ids) => [...new Set(ids)]);

const STATES = ['running', 'completed', 'cancelled', 'failed'] as const;
const Accepted = z.object({
  operationId: Uuid,
  workflowId: Text(200),
  type: z.enum(BULK_TYPES),
  total: z.number().int().min(1).max(BULK_MAX_TICKETS),
  state: z.enum(STATES),
  statusUrl: Text(64),
});
const OperationParams = z.object({ operationId: z.uuid() });

const bulkDeps = (deps: SupportDeps): BulkDeps => ({ bulk: deps.bulk, temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix, now: deps.now });

async function startOperation(deps: SupportDeps, auth: Principal, type: BulkType, ticketIds: number[], params: BulkParams, requestKey: string | undefined) {
  const started = await startBulkOperation(bulkDeps(deps), { by: auth, type, ticketIds, params, requestKey });
  const statusUrl = `/support/bulk/${started.operationId}`;
  return reply({ status: 202, message: 'Operação iniciada', data: { ...started, statusUrl }, headers: { Location: statusUrl } });
}

export const bulkRoutes = [
  route({
    method: 'post',
    path: '/support/bulk/status',
    summary: 'Change the status of many tickets',
    description: `Up to ${BULK_MAX_TICKETS} tickets; runs as workflow ticket-bulk-<operationId>. Each ticket is changed exactly once; tickets whose transition is not allowed are reported as errors.`,
    tags,
    auth: staff,
    body: z.strictObject({ ticketIds, status: z.enum(PATCHABLE_STATUSES) }),
    response: Accepted,
    links: [
      { name: 'progress', method: 'get', path: '/support/bulk/:operationId', parameters: { operationId: '$response.body#/data/operationId' } },
      { name: 'cancel', method: 'post', path: '/support/bulk/:operationId/cancel', parameters: { operationId: '$response.body#/data/operationId' } },
    ],
    status: 202,
    errors: [503],
    idempotent: true,
    handler: ({ body, auth, deps, requestKey }) => startOperation(deps, auth, 'status', body.ticketIds, { status: body.status }, requestKey),
  }),
  route({
    method: 'post',
    path: '/support/bulk/delete',
    summary: 'Soft-delete many tickets',
    tags,
    auth: staff,
    body: z.strictObject({ ticketIds }),
    response: Accepted,
    links: [
      { name: 'progress', method: 'get', path: '/support/bulk/:operationId', parameters: { operationId: '$response.body#/data/operationId' } },
      { name: 'cancel', method: 'post', path: '/support/bulk/:operationId/cancel', parameters: { operationId: '$response.body#/data/operationId' } },
    ],
    status: 202,
    errors: [503],
    idempotent: true,
    handler: ({ body, auth, deps, requestKey }) => startOperation(deps, auth, 'delete', body.ticketIds, {}, requestKey),
  }),
  route({
    method: 'post',
    path: '/support/bulk/messages',
    summary: 'Send one admin message to many tickets',
    description: 'Each ticket gets the message once, even if the operation is retried.',
    tags,
    auth: staff,
    body: z.strictObject({ ticketIds, conteudo: z.string().max(20_000).trim().min(1) }),
    response: Accepted,
    links: [
      { name: 'progress', method: 'get', path: '/support/bulk/:operationId', parameters: { operationId: '$response.body#/data/operationId' } },
      { name: 'cancel', method: 'post', path: '/support/bulk/:operationId/cancel', parameters: { operationId: '$response.body#/data/operationId' } },
    ],
    status: 202,
    errors: [503],
    idempotent: true,
    handler: ({ body, auth, deps, requestKey }) => startOperation(deps, auth, 'messages', body.ticketIds, { conteudo: body.conteudo }, requestKey),
  }),
  route({
    method: 'post',
    path: '/support/bulk/fast-response',
    summary: 'Draft AI replies for many tickets (and send them when asked)',
    description: 'Per ticket as POST /support/{id}/fast-response; provider errors are retried, a ticket the provider refuses is reported. 503 when no AI provider is configured.',
    tags,
    auth: staff,
    body: z.strictObject({ ticketIds, send: z.boolean().default(false) }),
    response: Accepted,
    links: [
      { name: 'progress', method: 'get', path: '/support/bulk/:operationId', parameters: { operationId: '$response.body#/data/operationId' } },
      { name: 'cancel', method: 'post', path: '/support/bulk/:operationId/cancel', parameters: { operationId: '$response.body#/data/operationId' } },
    ],
    status: 202,
    errors: [503],
    idempotent: true,
    handler: async ({ body, auth, deps, requestKey }) => {
      requireProvider(deps.llm);
      return startOperation(deps, auth, 'fast_response', body.ticketIds, { send: body.send }, requestKey);
    },
  }),
  route({
    method: 'get',
    path: '/support/bulk/:operationId',
    summary: 'Progress and state of a bulk operation',
    tags,
    auth: staff,
    params: OperationParams,
    response: z.object({
      operationId: Uuid,
      type: z.enum(BULK_TYPES),
      state: z.enum(STATES),
      total: Count,
      processed: Count,
      succeeded: Count,
      failed: Count,
      errors: z
        .array(z.object({ ticketId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), error: Text(BULK_ERROR_MAX) }))
        .max(100)
        .describe('Per-ticket failures (first 100)'),
      error: Text(BULK_ERROR_MAX).nullable().describe('Why a failed operation failed as a whole (its workflow could not be started)'),
      createdAt: IsoDateTime,
      finishedAt: IsoDateTime.nullable(),
    }),
    errors: [404],
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
    params: OperationParams,
    response: z.object({ operationId: Uuid, state: z.literal('cancelling') }),
    status: 202,
    errors: [404, 409],
    handler: async ({ params, deps }) => reply({ status: 202, message: 'Cancelamento solicitado', data: await cancelBulkOperation(bulkDeps(deps), params.operationId) }),
  }),
];
