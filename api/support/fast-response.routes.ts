/** AI fast response for a ticket (a workflow through the platform's shared LLM client). */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, notFound } from '../../models/errors';
import { assertNotDeleted, SUPPORT_AGENT, TEXT_MAX } from '../../models/support/ticket.rules';
import type { ticketFastResponseWorkflow } from '../../workflows/support/fast-response.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { chatFailure } from '../shared/ai-failures';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { Text } from '../shared/views';
import type { SupportDeps } from './deps';
import { TicketIdParams } from './tickets/schemas';

const route = routeFactory<SupportDeps>();

export const fastResponseRoutes = [
  route({
    method: 'post',
    path: '/support/:id/fast-response',
    summary: 'Draft an AI reply (and send it when asked)',
    description:
      'A workflow drafts a reply from the ticket and its messages, the support-assistant instructions and the quick replies that match; ' +
      'the draft is stored in `replied`, and with `send: true` also sent as an admin message. 503 when no AI provider is configured or it stays unavailable.',
    tags: ['fast response'],
    auth: bearer(SUPPORT_AGENT),
    params: TicketIdParams,
    body: z.strictObject({ send: z.boolean().default(false) }),
    response: z.object({ replied: Text(TEXT_MAX), sent: z.boolean(), messageId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(), workflowId: Text(200) }),
    errors: [404, 409, 503, 504],
    handler: async ({ params, body, auth, deps }) => {
      const ticket = (await deps.tickets.findById(params.id)) ?? notFound('ticket');
      assertNotDeleted(ticket, 'A deleted ticket cannot be answered');
      if (!deps.llm.configured) throw new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider is not configured', { details: { dependency: 'ai-provider' } });
      const workflowId = workflowIds.ticketFastResponse(ticket._id, randomUUID().slice(0, 8));
      try {
        const result = await deps.temporal.client.workflow.execute<typeof ticketFastResponseWorkflow>('ticketFastResponseWorkflow', {
          taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.support),
          workflowId,
          args: [{ ticketId: ticket._id, send: body.send, by: auth.email ?? auth.sub }],
          workflowExecutionTimeout: '5 minutes',
        });
        return reply({ message: body.send ? 'Resposta enviada' : 'Rascunho salvo', data: { replied: result.draft, sent: result.messageId !== null, messageId: result.messageId, workflowId } });
      } catch (err) {
        throw chatFailure(err);
      }
    },
  }),
];
