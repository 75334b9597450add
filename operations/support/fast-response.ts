/**
 * The use case "draft an AI reply to a ticket, and send it when asked": a workflow drafts it from
 * the ticket and its messages, the support-assistant instructions and the matching quick replies
 * (workflows/support/fast-response.workflow.ts), and is waited for.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { chatFailure } from '../../models/ai/ai-failures';
import { requireProvider } from '../ai/chat';
import { notFound } from '../../models/errors';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { ticketFastResponseWorkflow } from '../../workflows/support/fast-response.workflow';
import { assertNotDeleted } from '../../models/support/ticket.rules';
import type { TicketRepo } from '../../models/support/ticket.repo';
import type { MessageChannel } from '../../models/support/ticket.rules';

export interface FastResponseDeps {
  tickets: Pick<TicketRepo, 'findById'>;
  llm: { configured: boolean };
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
}

export async function draftFastResponse(deps: FastResponseDeps, input: { ticketId: number; send: boolean; by: string; canal?: MessageChannel }) {
  const ticket = (await deps.tickets.findById(input.ticketId)) ?? notFound('ticket');
  assertNotDeleted(ticket, 'A deleted ticket cannot be answered');
  requireProvider(deps.llm);
  const workflowId = workflowIds.ticketFastResponse(ticket._id, randomUUID().slice(0, 8));
  try {
    const result = await deps.temporal.client.workflow.execute(ticketFastResponseWorkflow, {
      taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.support),
      workflowId,
      args: [{ ticketId: ticket._id, send: input.send, by: input.by, ...(input.canal ? { canal: input.canal } : {}) }],
      workflowExecutionTimeout: '5 minutes',
    });
    return { replied: result.draft, sent: result.messageId !== null, messageId: result.messageId, workflowId };
  } catch (err) {
    throw chatFailure(err);
  }
}
