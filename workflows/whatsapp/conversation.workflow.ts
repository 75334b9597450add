/**
 * One conversation workflow per phone number (`whatsapp-<phone>`; issue 15, docs/decisions.md
 * "WhatsApp"). The webhook stores each message and signals its id here with signal-with-start;
 * the workflow handles the phone's messages one at a time, in the order the reader sent them,
 * with the decisions of models/whatsapp/conversation.rules.ts (flows: sign-up, log-in,
 * preferences), and answers through the Cloud API (activities; a reply is sent once under its own
 * key, however often its activity is retried). A message is handled once: the workflow remembers
 * the ids it handled, and the database marks them.
 *
 * It ends after `idleMs` without a message (a flow left half-way is forgotten), and continues as
 * new, carrying its flow and queue, before its history grows large.
 *
 * Its activities retry a bounded number of times (workflows/retry-policies.ts). A message whose
 * handling still fails (the database away for long) is left unhandled: not marked, not
 * remembered, its flow step undone, so a redelivery handles it; the conversation goes on.
 */
import { condition, continueAsNew, defineQuery, defineSignal, isCancellation, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WhatsAppActivities } from './activities';
import { decide, preferencesList, SECTOR_LABELS, TOPIC_LABELS, type Effect, type Flow } from '../../models/whatsapp/conversation.rules';
import type { OutboundMessage } from '../../models/infra/whatsapp';
import { RETRY, withNonRetryable } from '../retry-policies';
import { WHATSAPP_FAILURES } from './failures';

type Activities = WhatsAppActivities;


// Database and news reads and writes: retried with back-off (an outage delays the answer), a
// bounded number of times (then the message is left unhandled, see above).
const { loadInbound, readerOf, markHandled, latestNews, breakingNews, accountSummary, setAlerts, signUp, requestLoginCode, loadPreferences, savePreferences } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.short,
});

// Sending: 429s and 5xx are retried with backoff (the send is idempotent by its key); a refusal is final.
const { send } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: withNonRetryable(RETRY.short, Object.values(WHATSAPP_FAILURES)),
});

export interface InboundSignal {
  id: string;
  /** When the reader sent it (ms since the epoch): the order messages are handled in. */
  sentAt: number;
}

export const inboundSignal = defineSignal<[InboundSignal]>('inbound');
export const conversationQuery = defineQuery<{ phone: string; flow: Flow['kind'] | null; pending: number; handled: number }>('conversation');

export interface ConversationInput {
  phone: string;
  /** How long the workflow waits for the next message before it ends (WHATSAPP_IDLE_MINUTES). */
  idleMs: number;
  /** Messages handled per run before continuing as new. */
  maxMessagesPerRun?: number;
  /** Carried over by continue-as-new. */
  flow?: Flow | null;
  pending?: InboundSignal[];
  recent?: string[];
}

export const DEFAULT_MAX_MESSAGES_PER_RUN = 200;
/** Ids of handled messages remembered (a redelivery of an older one is stopped by the database's mark). */
const REMEMBERED = 200;

export async function whatsappConversationWorkflow(input: ConversationInput): Promise<{ handled: number; ended: 'idle' }> {
  const { phone } = input;
  let flow: Flow | null = input.flow ?? null;
  const pending: InboundSignal[] = [...(input.pending ?? [])];
  const recent: string[] = [...(input.recent ?? [])];
  let handled = 0;

  setHandler(inboundSignal, (m) => {
    if (recent.includes(m.id) || pending.some((p) => p.id === m.id)) return;
    // In the reader's order: after every message sent at the same time or earlier.
    const at = pending.findIndex((p) => p.sentAt > m.sentAt);
    if (at === -1) pending.push(m);
    else pending.splice(at, 0, m);
  });
  setHandler(conversationQuery, () => ({ phone, flow: flow?.kind ?? null, pending: pending.length, handled }));

  async function carryOut(messageId: string, effects: Effect[], reader: { userId: string | null }): Promise<void> {
    let n = 0;
    const reply = async (message: OutboundMessage) => {
      const key = `reply:${messageId}:${n++}`;
      try {
        await send({ key, phone, kind: 'reply', message });
      } catch (err) {
        // Refused by WhatsApp, or retried to the end: the conversation goes on without it.
        log.warn('reply not sent', { key, error: (err as Error).message });
      }
    };
    const say = (text: string) => reply({ type: 'text', text });
    for (const effect of effects) {
      switch (effect.kind) {
        case 'reply':
          await reply(effect.message);
          break;
        case 'latest':
          await say(await latestNews(reader.userId));
          break;
        case 'breaking':
          await say(await breakingNews());
          break;
        case 'account':
          await say(await accountSummary({ userId: reader.userId, phone }));
          break;
        case 'setAlerts':
          await setAlerts({ userId: reader.userId!, on: effect.on });
          await say(effect.on ? 'Alertas de notícias urgentes retomados. Envie *parar* para pausá-los.' : 'Alertas pausados. Envie *voltar* quando quiser recebê-los de novo.');
          break;
        case 'signUp': {
          const outcome = await signUp({ phone, name: effect.name, email: effect.email });
          await say(
            outcome === 'created'
              ? `Conta criada, ${effect.name}! Este número está vinculado a ela. Envie *preferencias* para escolher setores e temas, e *voltar* para receber alertas de notícias urgentes.`
              : 'Já existe uma conta com esse e-mail. Envie *entrar* para vincular este número a ela.',
          );
          break;
        }
        case 'requestLoginCode':
          // The code goes to this phone (sent by the activity, never through the workflow's history);
          // it is confirmed in the account, signed in (POST /api/whatsapp/link), so both are proven.
          await requestLoginCode({ phone, email: effect.email, key: `code:${messageId}` });
          await say('Se houver uma conta com esse e-mail, você recebeu um código de 6 dígitos nesta conversa. Digite-o no painel, em Preferências › WhatsApp, em até 10 minutos.');
          break;
        case 'startPreferences': {
          const current = await loadPreferences(reader.userId!);
          flow = { kind: 'preferences', step: 'sector', sectors: current.sectors, topics: current.topics, page: 0 };
          await reply(preferencesList(flow));
          break;
        }
        case 'savePreferences': {
          await savePreferences({ userId: reader.userId!, sectors: effect.sectors, topics: effect.topics });
          const sectors = effect.sectors.map((s) => SECTOR_LABELS[s]).join(', ') || 'nenhum';
          const topics = effect.topics.map((t) => TOPIC_LABELS[t]).join(', ') || 'nenhum';
          await say(`Preferências salvas. Setores: ${sectors}. Temas: ${topics}.`);
          break;
        }
      }
    }
  }

  let handledThisRun = 0;
  for (;;) {
    if (pending.length === 0 && !(await condition(() => pending.length > 0, input.idleMs))) {
      return { handled, ended: 'idle' };
    }
    const next = pending.shift()!;
    const flowBefore = flow;
    try {
      const message = await loadInbound(next.id);
      if (message && !message.handled) {
        const reader = await readerOf(phone);
        const decision = decide(flow, reader, message.content);
        flow = decision.flow;
        await carryOut(next.id, decision.effects, reader);
        await markHandled(next.id);
        handled += 1;
      }
      recent.push(next.id);
      if (recent.length > REMEMBERED) recent.splice(0, recent.length - REMEMBERED);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // An activity retried to the end: left unhandled (not marked, not remembered), so a
      // redelivery of it is handled; its step of the flow is undone.
      flow = flowBefore;
      log.warn('message not handled: an activity failed after its retries', { messageId: next.id, error: (err as Error).message });
    }
    handledThisRun += 1;
    if (handledThisRun >= (input.maxMessagesPerRun ?? DEFAULT_MAX_MESSAGES_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof whatsappConversationWorkflow>({ ...input, flow, pending, recent });
    }
  }
}
