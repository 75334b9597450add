/**
 * An AI reply to a ticket, the use cases the worker runs (the fast-response workflow's steps, and
 * each ticket of a bulk AI-reply operation): draft it from the conversation so far, the
 * support-assistant instructions and the quick replies that match it best; store it in `replied`
 * and, when asked, send it once as an admin message.
 */
import { BUILTIN_AGENTS } from '../../models/ai/agent.rules';
import type { LlmClient } from '../../models/infra/llm';
import type { QuickReplyRepo } from '../../models/support/catalog.repo';
import { rankQuickReplies } from '../../models/support/fast-response.rules';
import type { TicketDoc } from '../../models/support/support.model';
import type { TicketRepo } from '../../models/support/ticket.repo';
import { TEXT_MAX } from '../../models/support/ticket.rules';
import type { MailOutbox } from './mail-delivery';
import type { MessageChannel } from '../../models/support/ticket.rules';

export interface ReplyDraftDeps {
  tickets: Pick<TicketRepo, 'messages'>;
  quickReplies: Pick<QuickReplyRepo, 'list'>;
  llm: Pick<LlmClient, 'complete'>;
  /** The model that drafts. */
  model: string;
}

const assistant = BUILTIN_AGENTS.find((a) => a.name === 'support-assistant')!;

/** Quick replies offered to the model as a base, at most. */
const TEMPLATES_OFFERED = 3;

/**
 * The model's reply to the ticket, ready to send, cut to what a person may write in a reply
 * (TEXT_MAX, which the API documents). Throws what the provider (or the database) threw.
 */
export async function draftReply(deps: ReplyDraftDeps, ticket: TicketDoc, signal?: AbortSignal): Promise<string> {
  const [all, replies] = await Promise.all([deps.tickets.messages(ticket._id), deps.quickReplies.list()]);
  // The staff's internal notes are not the conversation: a draft sent to the reader must not quote them.
  const messages = all.filter((m) => m.origem !== 'nota');
  const matches = rankQuickReplies(`${ticket.issue} ${ticket.main} ${ticket.description} ${messages.map((m) => m.conteudo).join(' ')}`, replies).slice(0, TEMPLATES_OFFERED);
  const conversation = [
    `Assunto: ${ticket.issue} (${ticket.main})`,
    `Leitor (${ticket.email}): ${ticket.description}`,
    ...messages.map((m) => `${m.origem === 'admin' ? 'Suporte' : 'Leitor'}: ${m.conteudo}`),
  ].join('\n');
  const templates = matches.length ? `\n\nRespostas prontas que podem servir de base:\n${matches.map((q) => `- ${q.title}: ${q.content}`).join('\n')}` : '';
  const reply = await deps.llm.complete(
    {
      model: deps.model,
      temperature: assistant.temperature,
      messages: [
        { role: 'system', content: `${assistant.systemPrompt}\nEscreva apenas a resposta ao leitor, pronta para enviar.${templates}` },
        { role: 'user', content: conversation },
      ],
      user: `ticket-${ticket._id}`,
    },
    signal ? { signal } : {},
  );
  return reply.content.trim().slice(0, TEXT_MAX);
}

/**
 * Stores the draft in `replied` and, when asked, sends it as an admin message, once under `key`
 * (a repeat finds the message sent). Null when the ticket does not exist.
 */
export async function saveReply(
  deps: { tickets: Pick<TicketRepo, 'findById' | 'updateFields' | 'addMessage'>; mailOutbox?: MailOutbox },
  input: { ticketId: number; draft: string; send: boolean; by: string; key: string; canal?: MessageChannel | undefined },
): Promise<{ messageId: number | null } | null> {
  const ticket = await deps.tickets.findById(input.ticketId);
  if (!ticket) return null;
  await deps.tickets.updateFields(ticket._id, { replied: input.draft });
  if (!input.send) return { messageId: null };
  const { message } = await deps.tickets.addMessage(ticket, { conteudo: input.draft, remetente: input.by, origem: 'admin', dedupeKey: input.key, ...(input.canal ? { canal: input.canal } : {}) });
  if (message.entrega?.estado === 'queued') await deps.mailOutbox?.queue({ ticketId: ticket._id, messageId: message._id });
  return { messageId: message._id };
}
