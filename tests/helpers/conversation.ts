/**
 * whatsappConversationWorkflow's test fixtures: its activities as Jest mocks over an in-memory
 * inbox, and one phone's conversation signalled with start on a test suite's server.
 */
import { randomUUID } from 'node:crypto';
import type { OutboundMessage } from '../../models/infra/whatsapp';
import type { Sector, Topic } from '../../models/news/article.rules';
import type { InboundContent } from '../../models/whatsapp/webhook.rules';
import { workflowIds } from '../../workflows/ids';
import { conversationQuery, inboundSignal, whatsappConversationWorkflow } from '../../workflows/whatsapp/conversation.workflow';
import { mockedActivitiesWorker, quiescent, runThenTerminate, until, type workflowSuite } from './time-skipping';

type Suite = ReturnType<typeof workflowSuite>;

type Sent = { key: string; phone: string; kind: string; message: OutboundMessage };

/** Mocks of the WhatsApp activities over an in-memory inbox; `send` may be replaced. */
export function activities(options: { userId?: string | null; send?: (input: Sent) => Promise<{ wamid: string; duplicate: boolean }>; signUp?: 'created' | 'emailTaken' } = {}) {
  const inbox = new Map<string, { content: InboundContent; handled: boolean }>();
  const userId = options.userId ?? null;
  return {
    inbox,
    loadInbound: jest.fn(async (id: string) => inbox.get(id) ?? null),
    readerOf: jest.fn(async (_phone: string) => ({ userId, name: userId ? 'Reader' : null })),
    markHandled: jest.fn(async (id: string) => {
      const m = inbox.get(id);
      if (m) m.handled = true;
    }),
    latestNews: jest.fn(async (u: string | null) => `latest news for ${u ?? 'a guest'}`),
    breakingNews: jest.fn(async () => 'breaking: markets rally'),
    accountSummary: jest.fn(async (input: { userId: string | null; phone: string }) => `account of ${input.userId}`),
    setAlerts: jest.fn(async (_input: { userId: string; on: boolean }) => undefined),
    signUp: jest.fn(async (_input: { phone: string; name: string; email: string }) => options.signUp ?? 'created'),
    requestLoginCode: jest.fn(async (_input: { phone: string; email: string; key: string }) => undefined),
    loadPreferences: jest.fn(async (_userId: string) => ({ sectors: ['FIN'] as Sector[], topics: [] as Topic[] })),
    savePreferences: jest.fn(async (_input: { userId: string; sectors: Sector[]; topics: Topic[] }) => undefined),
    send: jest.fn(options.send ?? (async (input: Sent) => ({ wamid: `wamid.${input.key}`, duplicate: false }))),
  };
}

export type Acts = ReturnType<typeof activities>;

/**
 * `conversation(acts)`: one phone's conversation on the suite's server; `say` stores a message
 * and signals it with start, as the webhook does.
 */
export const conversationOn = (suite: Suite, idleMs: number) => async (acts: Acts, options: { maxMessagesPerRun?: number } = {}) => {
  const phone = `55${Math.floor(Math.random() * 1e11)}`;
  const workflowId = workflowIds.whatsappConversation(phone);
  const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = suite.client.getHandle(workflowId);
  let clock = Date.UTC(2026, 10, 24, 12);
  return {
    phone,
    handle,
    /** Stores and signals a message; its id. */
    async say(content: string | InboundContent, id = `wamid.in.${randomUUID().slice(0, 8)}`, sentAt = (clock += 1_000)): Promise<string> {
      acts.inbox.set(id, { content: typeof content === 'string' ? { kind: 'text', text: content } : content, handled: false });
      return await this.signal(id, sentAt);
    },
    /** Signals a message id (stored or not) with start. */
    async signal(id: string, sentAt = (clock += 1_000)): Promise<string> {
      await suite.client.signalWithStart(whatsappConversationWorkflow, {
        workflowId,
        taskQueue: worker.taskQueue,
        args: [{ phone, idleMs, ...(options.maxMessagesPerRun ? { maxMessagesPerRun: options.maxMessagesPerRun } : {}) }],
        signal: inboundSignal,
        signalArgs: [{ id, sentAt }],
      });
      return id;
    },
    /** The conversation query once the workflow has nothing in flight (a handled message counted). */
    view: async () => {
      await quiescent(handle);
      return await handle.query(conversationQuery);
    },
    /** Runs the test with the worker polling; a conversation still open is terminated after. */
    run: (fn: () => Promise<void>) => runThenTerminate(worker, handle, fn),
  };
};

export const handledIds = (acts: Acts) => acts.markHandled.mock.calls.map(([id]) => id);
export const handledAll = (acts: Acts, ids: string[]) => until(() => handledIds(acts), (h) => ids.every((id) => h.includes(id)));
/** The texts sent, in order (a list's text for lists). */
export const replies = (acts: Acts) => acts.send.mock.calls.map(([s]) => ('text' in s.message ? s.message.text : s.message.type));

