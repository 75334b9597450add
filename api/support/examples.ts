/**
 * The worked examples of the Support Ticket API's operations (api/shared/route.ts `example`): one
 * reader's ticket about the morning edition not reaching her Gmail, followed from its opening to
 * its resolution, the desk's tags and quick replies, a bulk operation, and the reports of a
 * newsletter support desk of a few hundred tickets a month, in November 2026.
 */
import type { z } from 'zod';
import type { LiveStreamEvent, MailgunInboundAnswer, MailgunInboundBody, TicketPresenceView } from './contracts';
import type {
  QueueCountsView,
  AttachmentSchema,
  AttachmentSummary,
  BulkOperationAccepted,
  BulkOperationView,
  FastResponseResult,
  MessageSchema,
  QuickReplySchema,
  ReportAgents,
  ReportCategories,
  ReportCohorts,
  ReportComparison,
  ReportDashboard,
  ReportDetailed,
  ReportDistribution,
  ReportFilters,
  ReportResolutionMetrics,
  ReportSeries,
  ReportSummary,
  TagSchema,
  TagView,
  TicketDetailSchema,
  TicketSchema,
  TicketUpdated,
} from './contracts';

// ---- People ------------------------------------------------------------------------------------

/** The reader who opened the ticket, and the agents who answer (sample addresses). */
export const readerEmail = 'renata.alves@example.com';
export const agentEmail = 'mariana.costa@newsletter.dev';
const otherAgentEmail = 'lucas.prado@newsletter.dev';

// ---- Tags --------------------------------------------------------------------------------------

const TAGS_CREATED = '2026-11-02T09:00:00.000Z';
/** The desk's tags (ops/seed.ts DEMO_TAGS); colours are stored in lower case. */
export const urgentTag = { id: 1, name: 'Urgente', color: '#d93025', isDefault: false } satisfies z.input<typeof TagSchema>;
export const deliveryTag = { id: 2, name: 'Entrega', color: '#1a73e8', isDefault: false } satisfies z.input<typeof TagSchema>;
export const tagListExample = [
  { ...urgentTag, createdAt: TAGS_CREATED, updatedAt: TAGS_CREATED },
  { ...deliveryTag, createdAt: TAGS_CREATED, updatedAt: TAGS_CREATED },
] satisfies z.input<typeof TagView>[];
/** A tag an agent creates (POST /support/tags) and then recolours. */
export const newTagId = 5;
export const newTagExample = {
  id: newTagId,
  name: 'Assinatura Premium',
  color: '#8e24aa',
  isDefault: false,
  createdAt: '2026-11-24T13:15:09.000Z',
  updatedAt: '2026-11-24T13:15:09.000Z',
} satisfies z.input<typeof TagView>;

// ---- Quick replies -----------------------------------------------------------------------------

/** `Reenvio da edição` (ops/seed.ts DEMO_QUICK_REPLIES), the one answering the ticket below. */
export const resendQuickReplyId = 1;
const resendContent = 'Olá! Reenviamos a edição de hoje para o seu e-mail. Confira também a caixa de promoções.';
/** As GET /support/respostas-rapidas lists it. */
export const resendQuickReplyExample = {
  id: resendQuickReplyId,
  title: 'Reenvio da edição',
  content: resendContent,
  category: 'entrega',
  usageCount: 148,
  createdAt: TAGS_CREATED,
  updatedAt: '2026-11-24T12:05:41.000Z',
} satisfies z.input<typeof QuickReplySchema>;
/** A quick reply an agent adds for the streak questions, then edits and deletes. */
export const streakQuickReplyId = 4;
export const streakQuickReplyBody = {
  title: 'Streak recalculado',
  content: 'Recalculamos o seu streak com as leituras desta semana: ele já aparece atualizado no seu painel.',
  category: 'streak',
};
export const streakQuickReplyExample = {
  id: streakQuickReplyId,
  ...streakQuickReplyBody,
  usageCount: 0,
  createdAt: '2026-11-24T13:20:44.000Z',
  updatedAt: '2026-11-24T13:20:44.000Z',
} satisfies z.input<typeof QuickReplySchema>;

// ---- The ticket --------------------------------------------------------------------------------

/** Ticket numbers are a sequence from 1: a desk of a few hundred a month is in the thousands. */
export const ticketId = 1842;
const OPENED = '2026-11-24T11:32:05.000Z';
const ANSWERED = '2026-11-24T12:05:41.000Z';
const THANKED = '2026-11-24T12:41:18.000Z';

/** What the reader sends to open it (POST /support, public). */
export const createTicketBody = {
  main: 'Suporte',
  issue: 'Não estou recebendo a edição',
  description: 'Desde segunda-feira a edição da manhã não chega no meu Gmail. Já olhei o spam e a aba Promoções.',
  email: readerEmail,
  newsletter: 'The News',
  wantReply: true,
  idioma: 'pt',
} as const;

/** The ticket as POST /support answers: open, untagged, nothing replied yet. */
export const createdTicketExample = {
  id: ticketId,
  ...createTicketBody,
  status: 'open',
  canal: 'api',
  replied: null,
  createdAt: OPENED,
  updatedAt: OPENED,
  deletedAt: null,
  assignee: null,
  tags: [],
} satisfies z.input<typeof TicketSchema>;

/** The ticket an hour later: tagged Entrega, answered by an agent (so in progress). */
export const ticketExample = {
  ...createdTicketExample,
  status: 'in_progress',
  updatedAt: THANKED,
  assignee: agentEmail,
  tags: [deliveryTag],
} satisfies z.input<typeof TicketSchema>;

/** The agent's answer: the `Reenvio da edição` quick reply (POST /support/:id/respostas-rapidas/:replyId). */
export const agentMessageExample = {
  id: 5127,
  conteudo: resendContent,
  remetente: agentEmail,
  origem: 'admin',
  createdAt: ANSWERED,
  canal: 'api',
  // Mailed to the reader (issue 39): the SMTP server took it.
  entrega: { estado: 'sent', motivo: null, atualizadoEm: ANSWERED },
} satisfies z.input<typeof MessageSchema>;

/** The agent's reply as the POST that stores it answers: its mail is queued (sent a moment later by a workflow). */
export const agentMessageQueuedExample = { ...agentMessageExample, entrega: { estado: 'queued', motivo: null, atualizadoEm: ANSWERED } } satisfies z.input<typeof MessageSchema>;

/** An agent's internal note on the ticket (POST /support/:id/notas): the reader never sees it. */
export const noteExample = {
  id: 5128,
  conteudo: 'Gmail marcou nosso domínio como promoção nesta semana: já abri chamado com o provedor de envio.',
  remetente: agentEmail,
  origem: 'nota',
  createdAt: ANSWERED,
  canal: 'api',
} satisfies z.input<typeof MessageSchema>;

/** The reader's reply (POST /support/:id/mensagens with her token). */
export const readerMessageBody = { conteudo: 'Obrigada! A edição de hoje chegou, estava mesmo na aba Promoções.' };
export const readerMessageExample = {
  id: 5131,
  conteudo: readerMessageBody.conteudo,
  remetente: readerEmail,
  origem: 'usuario',
  createdAt: THANKED,
  canal: 'api',
} satisfies z.input<typeof MessageSchema>;

/** The reader's answer by e-mail (issue 39): her reply to the agent's mail, the quote stripped; the zip she attached was not kept. */
export const readerMailMessageExample = {
  id: 5133,
  conteudo: 'Chegou sim, obrigada! Mando em anexo o print da aba Promoções.',
  remetente: readerEmail,
  origem: 'usuario',
  createdAt: THANKED,
  canal: 'email',
  arquivosRecusados: [{ nome: 'prints.zip', tipo: 'application/zip', tamanho: 48_213, motivo: 'type-not-allowed', detalhe: 'type not allowed (declared application/zip; checked from the file\'s content)' }],
} satisfies z.input<typeof MessageSchema>;

/** A mail in the reader's name whose From failed DMARC (it came to the ticket's reply address): flagged for the agent. */
export const spoofedMailMessageExample = {
  id: 5134,
  conteudo: 'Por favor altere meu e-mail de cadastro para outro.endereco@example.com',
  remetente: readerEmail,
  origem: 'usuario',
  createdAt: THANKED,
  canal: 'email',
  dmarcFalhou: true,
} satisfies z.input<typeof MessageSchema>;

/** A screenshot the reader attached when she opened the ticket. */
export const attachmentId = 317;
export const attachmentExample = {
  id: attachmentId,
  supportId: ticketId,
  mensagemId: null,
  nomeArquivo: 'print-caixa-de-entrada.png',
  caminhoArquivo: `tickets/${ticketId}/2026-11-24/3f6c2a9e-8b1d-4c57-9e02-6d4b7a1c5e38-print-caixa-de-entrada.png`,
  tipoArquivo: 'image/png',
  tamanhoArquivo: 284_512,
  createdAt: '2026-11-24T11:34:12.000Z',
} satisfies z.input<typeof AttachmentSchema>;
const attachmentSummaryExample = {
  id: attachmentExample.id,
  nomeArquivo: attachmentExample.nomeArquivo,
  tipoArquivo: attachmentExample.tipoArquivo,
  tamanhoArquivo: attachmentExample.tamanhoArquivo,
  createdAt: attachmentExample.createdAt,
} satisfies z.input<typeof AttachmentSummary>;

/** GET /support/:id: the first message (id null) is the description. */
export const ticketDetailExample = {
  ...ticketExample,
  anexos: [attachmentSummaryExample],
  mensagens: [
    { id: null, conteudo: createTicketBody.description, remetente: readerEmail, origem: 'usuario', createdAt: OPENED },
    agentMessageExample,
    readerMessageExample,
    readerMailMessageExample,
    spoofedMailMessageExample,
  ],
} satisfies z.input<typeof TicketDetailSchema>;

/** The agent closes the matter (PATCH /support/:id). */
export const resolveTicketBody = {
  status: 'resolved',
  replied: 'Reenviamos a edição e ajustamos o envio para o seu Gmail. Se voltar a faltar, é só responder este e-mail.',
} as const;
export const ticketUpdatedExample = {
  id: ticketId,
  status: 'resolved',
  issue: createTicketBody.issue,
  replied: resolveTicketBody.replied,
  updatedAt: '2026-11-24T13:02:27.000Z',
} satisfies z.input<typeof TicketUpdated>;

/** POST /support/:id/fast-response with send: true. */
export const fastResponseExample = {
  replied:
    'Olá, Renata! Reenviamos a edição de hoje para o seu Gmail. Para que ela não caia mais na aba Promoções, arraste um e-mail nosso para a caixa Principal.',
  sent: true,
  messageId: 5134,
  workflowId: `ticket-fast-response-${ticketId}-9c41e7b2`,
} satisfies z.input<typeof FastResponseResult>;

// ---- Bulk operations ---------------------------------------------------------------------------

/** Operation ids are `randomUUID()`s; the workflow is `ticket-bulk-<operationId>`. */
const accepted = (operationId: string, type: z.input<typeof BulkOperationAccepted>['type'], total: number) =>
  ({ operationId, workflowId: `ticket-bulk-${operationId}`, type, total, state: 'running', statusUrl: `/support/bulk/${operationId}` }) satisfies z.input<typeof BulkOperationAccepted>;

export const bulkStatusOperationId = '6f1c9e2a-47b3-4d8e-a915-3c0b7e2d5f84';
export const bulkMessagesOperationId = 'b82d4f17-93ce-4a60-8e3b-1d7f05c9a2e6';
export const bulkStatusAccepted = accepted(bulkStatusOperationId, 'status', 3);
export const bulkDeleteAccepted = accepted('0e9a7c53-2b1f-4f8d-b6a4-58c3d1e07f92', 'delete', 2);
export const bulkMessagesAccepted = accepted(bulkMessagesOperationId, 'messages', 3);
export const bulkFastResponseAccepted = accepted('d4a61b08-7e5c-4c3f-9b27-e06f8a1d3c45', 'fast_response', 2);
export const bulkTagsAccepted = accepted('5b2f9e41-8c7d-4a63-a1e0-93d4c6b28f17', 'tags', 23);
export const bulkAssignAccepted = accepted('a8c3e2d7-41b9-4f06-8e5a-2d7f19c0b6e4', 'assign', 2);

/** The status operation when done: one of its tickets had been deleted meanwhile. */
export const bulkOperationExample = {
  operationId: bulkStatusOperationId,
  type: 'status',
  state: 'completed',
  total: 3,
  processed: 3,
  succeeded: 2,
  failed: 1,
  errors: [{ ticketId: 1838, error: 'ticket is deleted' }],
  error: null,
  createdAt: '2026-11-24T14:10:03.000Z',
  finishedAt: '2026-11-24T14:10:05.000Z',
} satisfies z.input<typeof BulkOperationView>;

// ---- Reports -----------------------------------------------------------------------------------

/** A report served from the cache (two hours), and one just computed. */
const cacheHit = { hit: true, age: 1260, expiresIn: 5940 };
const cacheMiss = { hit: false };
/** November so far; the last 30 days (the default period) on 24 November. */
const november = { inicio: '2026-11-01', fim: '2026-11-24' };
export const novemberQuery = { data_inicio: november.inicio, data_fim: november.fim };
const last30Days = { inicio: '2026-10-25', fim: '2026-11-24' };

export const reportFiltersExample = {
  categorias: [
    {
      main: 'Suporte',
      issues: ['Alterações de cadastro', 'Me desinscrevi e continuo recebendo', 'Meus pontos no streak não estão contabilizando', 'Não estou recebendo a edição', 'Não recebi meus prêmios', 'Outros'],
    },
  ],
  agentes: [otherAgentEmail, agentEmail],
  newsletters: ['The News'],
  canais: ['api', 'email'],
  status: ['open', 'in_progress', 'resolved', 'closed'],
  agrupamentos: ['hora', 'dia', 'semana', 'mes', 'ano'],
  cache: cacheHit,
} satisfies z.input<typeof ReportFilters>;

/** November 1–24 against the 24 days before (8–31 October). */
export const reportComparisonExample = {
  atual: {
    totalTickets: 262,
    ticketsByStatus: { open: 12, in_progress: 17, resolved: 175, closed: 58 },
    resolutionMetrics: { taxaResolucaoGeral: 88.93 },
    periodo: november,
  },
  anterior: {
    totalTickets: 241,
    ticketsByStatus: { open: 3, in_progress: 5, resolved: 171, closed: 62 },
    resolutionMetrics: { taxaResolucaoGeral: 96.68 },
    periodo: { inicio: '2026-10-08', fim: '2026-10-31' },
  },
  variacao: { totalTickets: 8.71, taxaResolucao: -8.02 },
  cache: cacheMiss,
} satisfies z.input<typeof ReportComparison>;

/** Of the November tickets about the edition not arriving. */
export const reportResolutionExample = {
  periodo: november,
  primeiraResposta: { median: 5420, p90: 31880, mean: 11234.57, count: 58 },
  resolucao: { median: 64800, p90: 259200, mean: 103512.4, count: 52 },
  reabertura: { taxa: 5.77, reabertos: 3, resolvidos: 52 },
  cache: cacheMiss,
} satisfies z.input<typeof ReportResolutionMetrics>;

/** Computed at 11:20 in São Paulo on Tuesday 24 November (fresh=true); the week began on Monday the 23rd. */
export const reportDashboardExample = {
  abertos: 12,
  emAndamento: 17,
  semResposta: 12,
  criados: { hoje: 6, semana: 19 },
  resolvidos: { hoje: 7, semana: 15 },
  maisAntigoAberto: { id: 1781, status: 'in_progress', createdAt: '2026-11-12T13:04:51.000Z', idadeSegundos: 1_041_309 },
  hoje: '2026-11-24',
  semanaDesde: '2026-11-23',
  cache: cacheMiss,
} satisfies z.input<typeof ReportDashboard>;

export const reportCategoriesExample = {
  periodo: november,
  categorias: [
    { main: 'Suporte', issue: 'Não estou recebendo a edição', total: 74, abertos: 4, emAndamento: 5, resolvidos: 49, fechados: 16, taxaResolucao: 87.84 },
    { main: 'Suporte', issue: 'Meus pontos no streak não estão contabilizando', total: 51, abertos: 3, emAndamento: 4, resolvidos: 33, fechados: 11, taxaResolucao: 86.27 },
  ],
  cache: cacheHit,
} satisfies z.input<typeof ReportCategories>;

/** By ISO weekday (1 Monday … 7 Sunday): readers write most on Monday mornings. */
export const reportDistributionExample = {
  periodo: november,
  por: 'dia_semana',
  distribuicao: [
    { chave: 1, total: 52 },
    { chave: 2, total: 49 },
    { chave: 3, total: 41 },
    { chave: 4, total: 38 },
    { chave: 5, total: 33 },
    { chave: 6, total: 21 },
    { chave: 7, total: 28 },
  ],
  cache: cacheMiss,
} satisfies z.input<typeof ReportDistribution>;

/** Two whole ISO weeks, 9–22 November. */
const twoWeeks = { inicio: '2026-11-09', fim: '2026-11-22' };
export const twoWeeksQuery = { data_inicio: twoWeeks.inicio, data_fim: twoWeeks.fim };
export const reportSeriesExample = {
  periodo: twoWeeks,
  agrupamento: 'semana',
  serie: [
    { periodo: '2026-W46', criados: 71, resolvidos: 66 },
    { periodo: '2026-W47', criados: 68, resolvidos: 59 },
  ],
  cache: cacheMiss,
} satisfies z.input<typeof ReportSeries>;

export const reportCohortsExample = {
  periodo: twoWeeks,
  coortes: [
    { semana: '2026-W46', criados: 71, em1Dia: 38, em3Dias: 57, em7Dias: 65 },
    { semana: '2026-W47', criados: 68, em1Dia: 35, em3Dias: 52, em7Dias: 59 },
  ],
  cache: cacheMiss,
} satisfies z.input<typeof ReportCohorts>;

/** The last 30 days (25 October – 24 November). */
export const reportSummaryExample = {
  totalTickets: 338,
  ticketsByStatus: { open: 12, in_progress: 17, resolved: 232, closed: 77 },
  resolutionMetrics: { taxaResolucaoGeral: 91.42 },
  periodo: last30Days,
  primeiraResposta: { median: 4980, p90: 30240, mean: 10876.35, count: 321 },
  resolucao: { median: 70200, p90: 262800, mean: 108417.92, count: 315 },
  reabertura: { taxa: 4.76, reabertos: 15, resolvidos: 315 },
  cache: cacheHit,
} satisfies z.input<typeof ReportSummary>;

/** The tickets opened on 24 November and already resolved, newest first. */
export const reportDetailedExample = {
  periodo: { inicio: '2026-11-24', fim: '2026-11-24' },
  linhas: [
    {
      id: 1849,
      main: 'Suporte',
      issue: 'Alterações de cadastro',
      status: 'resolved',
      newsletter: 'The News',
      canal: 'email',
      criadoEm: '2026-11-24T12:47:19.000Z',
      primeiraRespostaSegundos: 1834,
      resolucaoSegundos: 2411,
      reaberturas: 0,
    },
    {
      id: 1846,
      main: 'Suporte',
      issue: 'Meus pontos no streak não estão contabilizando',
      status: 'resolved',
      newsletter: 'The News',
      canal: 'api',
      criadoEm: '2026-11-24T12:02:55.000Z',
      primeiraRespostaSegundos: 2650,
      resolucaoSegundos: 5312,
      reaberturas: 0,
    },
  ],
  pagination: { page: 1, limit: 20, total: 2, totalPages: 1 },
  cache: cacheMiss,
} satisfies z.input<typeof ReportDetailed>;

export const reportAgentsExample = {
  periodo: november,
  agentes: [
    {
      agente: otherAgentEmail,
      respostas: 131,
      ticketsResolvidos: 104,
      atribuidos: 12,
      atribuidosAtivos: 7,
      primeiraResposta: { median: 4620, p90: 27900, mean: 9813.44, count: 118 },
      resolucao: { median: 66600, p90: 241200, mean: 98230.5, count: 107 },
    },
    {
      agente: agentEmail,
      respostas: 158,
      ticketsResolvidos: 131,
      atribuidos: 9,
      atribuidosAtivos: 4,
      primeiraResposta: { median: 5310, p90: 33120, mean: 11942.08, count: 137 },
      resolucao: { median: 61200, p90: 255600, mean: 101877.16, count: 134 },
    },
  ],
  cache: cacheMiss,
} satisfies z.input<typeof ReportAgents>;

/** The queue's counts, for the agent who took ticket 1842. */
export const queueCountsExample = {
  mine: 7,
  unassigned: 23,
  open: 18,
  pending: 41,
  all: 1842,
  newsletters: [
    { value: 'The News', count: 52 },
    { value: 'The Champs', count: 12 },
  ],
  issues: [
    { value: 'Não estou recebendo a edição', count: 31 },
    { value: 'Alterações de cadastro', count: 9 },
  ],
  tags: [{ id: deliveryTag.id, count: 14 }],
} satisfies z.input<typeof QueueCountsView>;

// ---- Live updates (issue 38) -------------------------------------------------------------------

/** Lucas is typing a reply to ticket 1842 while Mariana has it open (GET and PUT /support/:id/presenca). */
export const presenceExample = {
  ticketId,
  people: [
    { email: otherAgentEmail, state: 'replying' },
    { email: agentEmail, state: 'viewing' },
  ],
} satisfies z.input<typeof TicketPresenceView>;
/** Mariana closed the ticket's page (DELETE /support/:id/presenca): Lucas is still replying. */
export const presenceAfterLeavingExample = { ticketId, people: [{ email: otherAgentEmail, state: 'replying' }] } satisfies z.input<typeof TicketPresenceView>;

/** The reader's thanks arriving on an open stream (GET /support/eventos): the ticket's new state, as one Server-Sent Event. */
export const liveTicketEventExample = {
  event: 'ticket',
  id: String(Date.parse(THANKED)),
  data: JSON.stringify({ id: ticketId, status: 'in_progress', assignee: agentEmail, updatedAt: THANKED, lastMessageAt: THANKED, tags: [deliveryTag.id] }),
} satisfies z.input<typeof LiveStreamEvent>;

/** The reader's reply, sent after she read the agent's answer (the newest message she saw): POST /support/:id/mensagens. */
export const readerReplyBody = { ...readerMessageBody, lastSeenMessageId: agentMessageExample.id };

// ---- Mailgun's inbound webhook (issue 39) ------------------------------------------------------

/**
 * The reader's reply by e-mail as Mailgun forwards it (POST /support/inbound/mailgun/mime): the raw
 * message, the envelope and the signature (an HMAC of timestamp and token with the signing key).
 */
export const mailgunDeliveryExample = {
  'body-mime': [
    'Received: from mail-ed1-f54.google.com (mail-ed1-f54.google.com [209.85.208.54]) by mxa.mailgun.org with ESMTP id 6744a1d2; Tue, 24 Nov 2026 12:41:17 +0000',
    `From: Renata Alves <${readerEmail}>`,
    'To: support+k7q2m4xw9r3tz6bn8vcy5hpd@newsletter.dev',
    `Subject: Re: [#${ticketId}] Suporte: Não estou recebendo a edição`,
    'Message-ID: <CAF9x2bQ@mail.gmail.com>',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Chegou sim, obrigada!',
  ].join('\r\n'),
  recipient: 'support+k7q2m4xw9r3tz6bn8vcy5hpd@newsletter.dev',
  sender: readerEmail,
  timestamp: String(Date.parse(THANKED) / 1000),
  token: 'c9f4a1e07b3d5f28a6e1c0b94d7f3a2e8b5c1d6f0a9e4b7c3d',
  signature: '5e0d1c6b2f7a8e93d4c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2',
} satisfies z.input<typeof MailgunInboundBody>;
export const mailgunReceivedExample = { received: true, id: '3f9b2c71-8e4d-4a65-b0c2-7d1e9f6a5b38' } satisfies z.input<typeof MailgunInboundAnswer>;
