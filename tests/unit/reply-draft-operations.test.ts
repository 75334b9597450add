/**
 * An AI reply to a ticket, the use cases, with fakes of their dependencies (the stack tests of the
 * fast response prove the wiring): what the model is asked, what is kept of its answer, and
 * storing and sending the draft.
 */
import type { LlmRequest } from '../../models/infra/llm';
import { draftReply, saveReply } from '../../operations/support/reply-draft';
import type { MessageDoc, QuickReplyDoc, TicketDoc } from '../../models/support/support.model';
import { TEXT_MAX } from '../../models/support/ticket.rules';

const T0 = new Date('2026-11-24T12:00:00Z');
const ticket = { _id: 7, issue: 'Cobrança', main: 'Assinatura', description: 'Fui cobrado duas vezes este mês', email: 'leitor@example.com', status: 'open', createdAt: T0 } as TicketDoc;
const reply = (id: number, title: string, content: string, usageCount = 0) => ({ _id: id, title, content, usageCount, category: null, createdBy: 'a', createdAt: T0, updatedAt: T0 }) as QuickReplyDoc;

function drafting(answer: string, o: { messages?: Partial<MessageDoc>[]; replies?: QuickReplyDoc[] } = {}) {
  const asked: { req: LlmRequest; signal: AbortSignal | undefined }[] = [];
  const deps = {
    tickets: { messages: async () => (o.messages ?? []) as MessageDoc[] },
    quickReplies: { list: async () => o.replies ?? [] },
    llm: {
      async complete(req: LlmRequest, opts?: { signal?: AbortSignal }) {
        asked.push({ req, signal: opts?.signal });
        return { content: answer, model: 'mini', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } as never;
      },
    },
    model: 'mini',
  };
  return { deps, asked };
}

describe('drafting a reply', () => {
  it('sends the conversation, the assistant’s instructions and the quick replies that match it best, as the ticket', async () => {
    const f = drafting('Olá', {
      messages: [{ origem: 'usuario', conteudo: 'Alguma novidade sobre a cobrança?' }, { origem: 'admin', conteudo: 'Estamos vendo.' }],
      replies: [reply(1, 'Entrega', 'Reenviamos a edição'), reply(2, 'Cobrança duplicada', 'Estornamos a cobrança duplicada', 5), reply(3, 'Cancelamento', 'Para cancelar a assinatura'), reply(4, 'Cobrança', 'Sobre a cobrança')],
    });
    const signal = new AbortController().signal;
    await draftReply(f.deps, ticket, signal);
    const [{ req, signal: sent }] = f.asked as [(typeof f.asked)[number]];
    expect(sent).toBe(signal);
    expect(req).toMatchObject({ model: 'mini', user: 'ticket-7' });
    expect(req.messages[1]).toEqual({ role: 'user', content: 'Assunto: Cobrança (Assinatura)\nLeitor (leitor@example.com): Fui cobrado duas vezes este mês\nLeitor: Alguma novidade sobre a cobrança?\nSuporte: Estamos vendo.' });
    const system = req.messages[0]!.content as string;
    expect(system).toContain('Escreva apenas a resposta ao leitor, pronta para enviar.');
    expect(system).toContain('- Cobrança duplicada: Estornamos a cobrança duplicada');
    expect(system).not.toContain('Reenviamos a edição');
    expect(system.match(/^- /gm)).toHaveLength(3);
  });

  it('offers no quick replies when none matches, and sends no signal when none is given', async () => {
    const f = drafting('Olá', { replies: [reply(1, 'Entrega', 'Reenviamos a edição')] });
    await draftReply(f.deps, ticket);
    expect(f.asked[0]!.req.messages[0]!.content).not.toContain('Respostas prontas');
    expect(f.asked[0]!.signal).toBeUndefined();
  });

  it('keeps the answer trimmed, at most what a person may write in a reply', async () => {
    await expect(draftReply(drafting('  Olá, tudo certo.  \n').deps, ticket)).resolves.toBe('Olá, tudo certo.');
    await expect(draftReply(drafting('x'.repeat(TEXT_MAX + 10)).deps, ticket)).resolves.toHaveLength(TEXT_MAX);
  });
});

describe('saving a reply', () => {
  function store(found: TicketDoc | null) {
    const calls: string[] = [];
    const tickets = {
      findById: async () => found,
      updateFields: async (id: number, fields: { replied?: string | null }) => void calls.push(`replied ${id} ${fields.replied}`),
      addMessage: async (t: Pick<TicketDoc, '_id'>, m: { conteudo: string; remetente: string; origem: string; dedupeKey?: string }) => {
        calls.push(`message ${t._id} ${m.origem} ${m.remetente} ${m.dedupeKey}`);
        return { message: { _id: 41 } as MessageDoc, added: true };
      },
    };
    return { tickets, calls };
  }
  const input = { ticketId: 7, draft: 'Olá', send: true, by: 'agente@newsletter.dev', key: 'fast-response:7:abc' };

  it('stores the draft and sends it once, under its key, as the agent', async () => {
    const s = store(ticket);
    await expect(saveReply(s, input)).resolves.toEqual({ messageId: 41 });
    expect(s.calls).toEqual(['replied 7 Olá', 'message 7 admin agente@newsletter.dev fast-response:7:abc']);
  });

  it('only stores it when not asked to send', async () => {
    const s = store(ticket);
    await expect(saveReply(s, { ...input, send: false })).resolves.toEqual({ messageId: null });
    expect(s.calls).toEqual(['replied 7 Olá']);
  });

  it('answers null for a ticket that does not exist', async () => {
    const s = store(null);
    await expect(saveReply(s, input)).resolves.toBeNull();
    expect(s.calls).toEqual([]);
  });
});
