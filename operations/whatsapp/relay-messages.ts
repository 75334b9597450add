/**
 * The use case "relay a stored WhatsApp message": hands stored WhatsApp messages to their phone's conversation workflow (signal-with-start on
 * `whatsapp-<phone>`), and records that it did. The webhook hands over after it has answered; the
 * relay workflow (every minute, workers/schedules.ts) hands over what is left (Temporal down, a
 * process that died). Handing a message over twice is harmless: the workflow knows the ids it has
 * queued or handled, and the database marks the handled ones.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../../models/config';
import type { WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { inboundSignal, whatsappConversationWorkflow, type ConversationInput } from '../../workflows/whatsapp/conversation.workflow';

export interface InboundRelayDeps {
  client: Pick<Client, 'workflow'>;
  config: Pick<Config, 'whatsapp' | 'temporal'>;
  whatsapp: WhatsAppRepo;
}

/** A stored message to hand over: its id, its phone and when it was sent. */
export interface InboundRef {
  id: string;
  phone: string;
  sentAt: Date;
}

export function createInboundRelay(deps: InboundRelayDeps) {
  const forward = async (m: InboundRef): Promise<void> => {
    await deps.client.workflow.signalWithStart(whatsappConversationWorkflow, {
      workflowId: workflowIds.whatsappConversation(m.phone),
      taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.whatsapp),
      args: [{ phone: m.phone, idleMs: deps.config.whatsapp.idleMs } satisfies ConversationInput],
      signal: inboundSignal,
      signalArgs: [{ id: m.id, sentAt: m.sentAt.getTime() }],
    });
    await deps.whatsapp.markForwarded(m.id);
  };
  return {
    forward,
    /**
     * Hands over the messages received more than `olderThanMs` ago and not handed over yet, oldest
     * first; stops between batches of phones once `signal` aborts (the relay activity's attempt is
     * over: the next run hands over the rest).
     */
    async forwardPending(input: { olderThanMs: number; limit: number }, signal?: AbortSignal): Promise<{ forwarded: number }> {
      const pending = await deps.whatsapp.pendingInbound(new Date(Date.now() - input.olderThanMs), input.limit);
      // One phone's messages in order; phones side by side.
      const byPhone = new Map<string, InboundRef[]>();
      for (const doc of pending) byPhone.set(doc.phone, [...(byPhone.get(doc.phone) ?? []), { id: doc._id, phone: doc.phone, sentAt: doc.sentAt }]);
      const phones = [...byPhone.values()];
      for (let i = 0; i < phones.length; i += 10) {
        signal?.throwIfAborted();
        await Promise.all(phones.slice(i, i + 10).map(async (messages) => {
          for (const m of messages) await forward(m);
        }));
      }
      return { forwarded: pending.length };
    },
  };
}

export type InboundRelay = ReturnType<typeof createInboundRelay>;
