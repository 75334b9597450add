/**
 * The support service's contracts (support-ticket-api.md §2, §4): the views its routes answer with
 * and the requests they take (bodies, query strings, path parameters), each registered with an id
 * so that the OpenAPI document names it once (`components.schemas`). Tickets, messages, tags,
 * quick replies and attachments; the AI fast response; bulk operations; reports. Routes import
 * them from here, never from another route file.
 */
import { z } from 'zod';
import { emailAddress, wholeNumber } from '../../models/params.rules';
import { isDate } from '../../models/shared/calendar.rules';
import { BULK_ERROR_MAX } from '../../models/support/bulk.repo';
import { BULK_MAX_TICKETS, BULK_TAGS_MAX, BULK_TYPES } from '../../models/support/bulk.rules';
import { MAX_ATTACHMENT_BYTES } from '../../models/support/attachment.rules';
import { COMPARISONS, GROUPINGS } from '../../models/support/report.rules';
import { DELIVERY_STATES, LABEL_MAX, MESSAGE_CHANNELS, MESSAGE_ORIGINS, TICKET_CHANNELS, TICKET_LANGUAGES, PATCHABLE_STATUSES, QUEUE_VIEWS, TEXT_MAX, TICKET_ISSUES, TICKET_STATUSES } from '../../models/support/ticket.rules';
import { EVENT_DATA_MAX, PRESENCE_PEOPLE_MAX, PRESENCE_STATES } from '../../models/support/live.rules';
import { Count, IsoDate, IsoDateTime, SearchText, Text, Uuid } from '../shared/views';

// ---- Tickets, messages, tags, quick replies -----------------------------------------------------

const id = wholeNumber((n) => n.positive());
export const TicketIdParams = z.object({ id }).meta({ id: 'TicketIdParams' });
export const TagParams = z.object({ id, tagId: id }).meta({ id: 'TicketTagParams' });
export const TagIdParams = z.object({ tagId: id }).meta({ id: 'TagIdParams' });
export const AttachmentIdParams = z.object({ attachmentId: id }).meta({ id: 'AttachmentIdParams' });
export const MessageIdParams = z.object({ id, messageId: id }).meta({ id: 'TicketMessageParams' });
/** `inline=true`: an image or a PDF shown in the page (the staff console's preview) rather than saved. */
export const AttachmentDownloadQuery = z
  .object({ inline: z.enum(['true', 'false']).optional().describe('true: an image or PDF answered to be shown (Content-Disposition: inline) in a frame of the same site; other types are always attachments') })
  .meta({ id: 'AttachmentDownloadQuery' });
/** A signed link to a file, from a staff reply's mail (issue 39): until when it opens, and its signature. */
export const FileLinkQuery = z
  .object({
    expira: wholeNumber((n) => n.min(0).max(2 ** 40)).describe('until when the link opens (Unix seconds)'),
    assinatura: z.string().length(43).regex(/^[A-Za-z0-9_-]{43}$/).describe("the link's signature (HMAC-SHA256, base64url)"),
  })
  .meta({ id: 'FileLinkQuery' });
export const QuickReplyIdParams = z.object({ replyId: id }).meta({ id: 'QuickReplyIdParams' });
export const UseQuickReplyParams = z.object({ id, replyId: id }).meta({ id: 'TicketQuickReplyParams' });

const text = (max: number) => z.string().max(max).trim().min(1);
export const IssueSchema = z.enum(TICKET_ISSUES, { message: `issue must be one of: ${TICKET_ISSUES.join(' | ')}` });

const DESCRIPTION_MAX = 10_000;
export const CreateTicketBody = z
  .strictObject({
    main: text(LABEL_MAX).describe('Main category'),
    issue: IssueSchema,
    description: text(DESCRIPTION_MAX),
    email: emailAddress,
    newsletter: text(LABEL_MAX).optional(),
    wantReply: z.boolean().optional().describe('false: the requester gets no mail (no acknowledgement, no staff replies by mail)'),
    idioma: z.enum(TICKET_LANGUAGES).optional().describe("the language of the requester's mail: pt (default) or en"),
  })
  .meta({ id: 'CreateTicketRequest' });

export const UpdateTicketBody = z
  .strictObject({
    status: z.enum(PATCHABLE_STATUSES).optional(),
    issue: IssueSchema.optional(),
    main: text(LABEL_MAX).optional(),
    newsletter: text(LABEL_MAX).optional(),
    replied: z.string().max(TEXT_MAX).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required')
  .meta({ id: 'UpdateTicketRequest' });

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const isoDate = z.iso.datetime({ offset: true }).max(64).or(z.iso.date()).transform((v) => new Date(v));
export const ListTicketsQuery = z
  .object({
    status: z.enum(TICKET_STATUSES).optional(),
    includeDeleted: bool.optional().describe('Also list deleted tickets (default false)'),
    issue: IssueSchema.optional(),
    main: z.string().max(LABEL_MAX).optional(),
    newsletter: z.string().max(LABEL_MAX).optional(),
    email: emailAddress.optional(),
    tag: id.optional().describe('Tag id'),
    from: isoDate.optional().describe('Created at or after (ISO 8601 date or datetime)'),
    to: isoDate.optional().describe('Created at or before'),
    q: SearchText(100).trim().min(2).optional().describe('Text in the description (case-insensitive)'),
    view: z
      .enum(QUEUE_VIEWS)
      .optional()
      .describe('Staff only. A queue view: mine (open or in progress, assigned to you), unassigned (open or in progress, assigned to no one), open, pending (in_progress: answered), all'),
    assignee: emailAddress.optional().describe('Staff only. Tickets assigned to this staff member'),
    page: wholeNumber((n) => n.min(1).max(100_000)).default(1),
    limit: wholeNumber((n) => n.min(1).max(100)).default(10),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to')
  .meta({ id: 'TicketListQuery' });

/** Page-numbered pagination of the support lists (spec §4.2): page, limit (1–100), total, totalPages. */
export const SupportPagination = z
  .object({ page: z.number().int().min(1).max(100_000), limit: z.number().int().min(1).max(100), total: Count, totalPages: Count })
  .meta({ id: 'SupportPagination' });

/** Ids are sequence numbers from 1 (spec §2). */
const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** The bounds of the request bodies every stored value went through (below), the e-mail's of RFC 5321. */
const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const TagSchema = z.object({ id: Id, name: Text(50), color: z.string().max(7).regex(COLOR), isDefault: z.boolean() }).meta({ id: 'Tag' });
export const DeliverySchema = z
  .object({
    estado: z.enum(DELIVERY_STATES).describe('queued, sending, sent (the SMTP server took it), failed (refused, or every retry spent), bounced, or not-sent'),
    motivo: Text(1_000).nullable().describe('why it failed, bounced or was not sent'),
    atualizadoEm: IsoDateTime,
  })
  .meta({ id: 'MessageDelivery' });
export const RefusedFileSchema = z
  .object({
    nome: Text(255).describe("the file's name in the mail"),
    tipo: Text(255).describe('the type the mail declared'),
    tamanho: Count.describe('its size in bytes'),
    motivo: z.enum(['too-large', 'type-not-allowed', 'empty', 'too-many']).describe('why it was not kept'),
    detalhe: Text(1_000),
  })
  .meta({ id: 'RefusedMailFile' });
export const MessageSchema = z
  .object({
    id: Id.nullable().describe('null for the first message, which carries the description'),
    conteudo: Text(TEXT_MAX),
    remetente: Text(255).describe("the sender's e-mail, or the staff member's id"),
    origem: z.enum(MESSAGE_ORIGINS),
    createdAt: IsoDateTime,
    canal: z.enum(MESSAGE_CHANNELS).optional().describe('where it came from: the API, the staff console or e-mail (absent on messages stored before channels were recorded)'),
    entrega: DeliverySchema.optional().describe("a staff reply's mail to the requester (absent on other messages)"),
    dmarcFalhou: z
      .literal(true)
      .optional()
      .describe("a message that came by e-mail whose From failed DMARC: its sender may not be who it says (absent otherwise). It joined a ticket only by the ticket's reply address or one of our Message-IDs, never by its subject or From"),
    arquivosRecusados: z
      .array(RefusedFileSchema)
      .max(100)
      .optional()
      .describe('files of a message that came by e-mail that were not kept, with why (absent when none)'),
  })
  .meta({ id: 'Message' });
export const AttachmentSummary = z.object({ id: Id, nomeArquivo: Text(255), tipoArquivo: Text(255), tamanhoArquivo: Count, createdAt: IsoDateTime });
export const TicketSchema = z
  .object({
    id: Id,
    main: Text(LABEL_MAX),
    issue: Text(LABEL_MAX),
    description: Text(DESCRIPTION_MAX),
    status: z.enum(TICKET_STATUSES),
    email: Text(254),
    newsletter: Text(LABEL_MAX).nullable(),
    wantReply: z.boolean(),
    idioma: z.enum(TICKET_LANGUAGES).describe("the language of the requester's mail"),
    canal: z.enum(TICKET_CHANNELS).describe('where it was opened: the API, or a mail to the desk'),
    replied: Text(TEXT_MAX).nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    deletedAt: IsoDateTime.nullable(),
    assignee: Text(254).nullable().describe('The staff member working on it (e-mail), or null'),
    tags: z.array(TagSchema),
  })
  .meta({ id: 'Ticket' });
export const TicketDetailSchema = TicketSchema.extend({ anexos: z.array(AttachmentSummary), mensagens: z.array(MessageSchema) }).meta({ id: 'TicketDetail' });

export const AddMessageBody = z
  .strictObject({
    conteudo: text(TEXT_MAX),
    // Issue 38, the traffic cop: optional, so a client that does not send it is not checked.
    lastSeenMessageId: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('The id of the newest message the author saw (0: only the description). A newer message from someone else: 409 with it, nothing written'),
    force: z.boolean().optional().describe('true: send even if newer messages arrived (after a 409)'),
  })
  .meta({ id: 'AddMessageRequest' });
export const AssignTagBody = z.strictObject({ tagId: id }).meta({ id: 'AssignTagRequest' });
const hex = z.string().max(7).regex(COLOR, 'color must be a hex colour like #1a2b3c');
export const CreateTagBody = z.strictObject({ name: text(50), color: hex }).meta({ id: 'CreateTagRequest' });
export const UpdateTagBody = z
  .strictObject({ name: text(50).optional(), color: hex.optional() })
  .refine((b) => b.name !== undefined || b.color !== undefined, 'at least one field is required')
  .meta({ id: 'UpdateTagRequest' });
/** A quick reply's category: what it is created or changed with, and listed by. */
const CATEGORY_MAX = 60;
export const QuickReplyListQuery = z.object({ category: z.string().max(CATEGORY_MAX).optional() }).meta({ id: 'QuickReplyListQuery' });
export const CreateQuickReplyBody = z
  .strictObject({ title: text(LABEL_MAX), content: text(TEXT_MAX), category: text(CATEGORY_MAX).optional() })
  .meta({ id: 'CreateQuickReplyRequest' });
export const UpdateQuickReplyBody = z
  .strictObject({ title: text(LABEL_MAX).optional(), content: text(TEXT_MAX).optional(), category: text(CATEGORY_MAX).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required')
  .meta({ id: 'UpdateQuickReplyRequest' });

/** A tag as listed, created or changed, with its times. */
export const TagView = TagSchema.extend({ createdAt: IsoDateTime, updatedAt: IsoDateTime }).meta({ id: 'TagListed' });
/** What deleting a tag answers: its id. */
export const TagDeleted = z.object({ id: Id }).meta({ id: 'TagDeleted' });
/** A quick reply as listed, created or changed (its author is not shown). */
export const QuickReplySchema = z
  .object({
    id: Id,
    title: Text(LABEL_MAX),
    content: Text(TEXT_MAX),
    category: Text(CATEGORY_MAX).nullable().describe('null when it was created without one'),
    usageCount: Count.describe('how many times it was sent as an answer'),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'QuickReply' });
/** What deleting a quick reply answers: its id. */
export const QuickReplyDeleted = z.object({ id: Id }).meta({ id: 'QuickReplyDeleted' });
/** What a change of a ticket's status or issue answers. */
export const TicketUpdated = TicketSchema.pick({ id: true, status: true, issue: true, replied: true, updatedAt: true }).meta({ id: 'TicketUpdated' });
/** What a soft delete answers. */
export const TicketDeleted = z.object({ id: Id, status: z.literal('deleted') }).meta({ id: 'TicketDeleted' });
/** What a restore answers: the status the ticket had before it was deleted (never deleted itself). */
export const TicketRestored = z
  .object({ id: Id, status: z.enum(PATCHABLE_STATUSES).describe('the status it had when it was deleted, now its status again') })
  .meta({ id: 'TicketRestored' });
/** The `data` of an answer that carries none (tagging a ticket, untagging it): its `message` says what was done. */
export const NoData = z.null().meta({ id: 'NoData', description: 'Nothing: the message says what was done' });

// ---- Attachments --------------------------------------------------------------------------------

// Its home is models/support/attachment.rules.ts (the mail receiver uses it too).
export { MAX_ATTACHMENT_BYTES };

/**
 * The multipart body of an upload (the route reads its own stream; this documents it). A request
 * without the file is a 400; `mensagemId` is a message of this ticket.
 */
export const UploadAttachmentBody = z
  .strictObject({
    arquivo: z.string().max(MAX_ATTACHMENT_BYTES).meta({ format: 'binary' }).describe('the file (binary, at most 10 MB)'),
    // Longer values are cut at busboy's fieldSize (1,000) and then are no message id: refused.
    mensagemId: z.string().max(1_000).optional(),
  })
  .meta({ id: 'UploadAttachmentRequest' });

export const AttachmentSchema = z
  .object({
    id: Id,
    supportId: Id,
    mensagemId: Id.nullable(),
    nomeArquivo: Text(255).describe('the name it was uploaded with (cut to 255 characters)'),
    caminhoArquivo: Text(1_024).describe('its object key in MinIO (S3 keys are at most 1,024 bytes)'),
    tipoArquivo: Text(255),
    tamanhoArquivo: z.number().int().min(0).max(MAX_ATTACHMENT_BYTES),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Attachment' });
/** What deleting an attachment answers: its id. */
export const AttachmentDeleted = z.object({ id: Id }).meta({ id: 'AttachmentDeleted' });

// ---- AI fast response ---------------------------------------------------------------------------

export const FastResponseBody = z.strictObject({ send: z.boolean().default(false) }).meta({ id: 'FastResponseRequest' });
export const FastResponseResult = z
  .object({ replied: Text(TEXT_MAX), sent: z.boolean(), messageId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(), workflowId: Text(200) })
  .meta({ id: 'FastResponseResult' });

// ---- Bulk operations ----------------------------------------------------------------------------

const ticketIds = z
  .array(z.number().int().positive())
  .min(1, 'ticketIds must name at least one ticket')
  .max(BULK_MAX_TICKETS, `at most ${BULK_MAX_TICKETS} tickets per operation`)
  .transform((ids) => [...new Set(ids)]);

/** A whole queue view instead of ticket ids (issue 38): the filters of GET /support, staff only. */
export const BulkSelection = z
  .strictObject({
    view: z.enum(QUEUE_VIEWS).optional(),
    status: z.enum(TICKET_STATUSES).optional(),
    issue: IssueSchema.optional(),
    main: z.string().max(LABEL_MAX).optional(),
    newsletter: z.string().max(LABEL_MAX).optional(),
    tag: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    assignee: emailAddress.optional(),
    q: SearchText(100).trim().min(2).optional(),
  })
  .describe(`Every ticket these filters select when the operation starts (at most ${BULK_MAX_TICKETS}), as GET /support lists them`)
  .meta({ id: 'BulkSelection' });
/** The tickets of a bulk operation: `ticketIds`, or a whole view (`filter`), not both. */
const selection = { ticketIds: ticketIds.optional(), filter: BulkSelection.optional() };
const oneSelection = (b: { ticketIds?: unknown; filter?: unknown }) => (b.ticketIds === undefined) !== (b.filter === undefined);
const SELECTION_MESSAGE = 'send ticketIds or filter (a whole view), one of them';
export const BulkStatusBody = z.strictObject({ ...selection, status: z.enum(PATCHABLE_STATUSES) }).refine(oneSelection, SELECTION_MESSAGE).meta({ id: 'BulkStatusRequest' });
export const BulkDeleteBody = z.strictObject({ ...selection }).refine(oneSelection, SELECTION_MESSAGE).meta({ id: 'BulkDeleteRequest' });
export const BulkMessagesBody = z.strictObject({ ...selection, conteudo: z.string().max(20_000).trim().min(1) }).refine(oneSelection, SELECTION_MESSAGE).meta({ id: 'BulkMessagesRequest' });
export const BulkFastResponseBody = z.strictObject({ ...selection, send: z.boolean().default(false) }).refine(oneSelection, SELECTION_MESSAGE).meta({ id: 'BulkFastResponseRequest' });
const tagIds = z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(BULK_TAGS_MAX).transform((ids) => [...new Set(ids)]);
export const BulkTagsBody = z
  .strictObject({ ...selection, add: tagIds.default([]), remove: tagIds.default([]) })
  .refine(oneSelection, SELECTION_MESSAGE)
  .refine((b) => b.add.length + b.remove.length > 0, 'add or remove at least one tag')
  .meta({ id: 'BulkTagsRequest' });
export const BulkAssignBody = z.strictObject({ ...selection, assignee: emailAddress.nullable() }).refine(oneSelection, SELECTION_MESSAGE).meta({ id: 'BulkAssignRequest' });
export const BulkOperationParams = z.object({ operationId: z.uuid() }).meta({ id: 'BulkOperationParams' });

const BULK_STATES = ['running', 'completed', 'cancelled', 'failed'] as const;
export const BulkOperationAccepted = z
  .object({
    operationId: Uuid,
    workflowId: Text(200),
    type: z.enum(BULK_TYPES),
    total: z.number().int().min(1).max(BULK_MAX_TICKETS),
    state: z.enum(BULK_STATES),
    statusUrl: Text(64),
  })
  .meta({ id: 'BulkOperationAccepted' });
export const BulkOperationView = z
  .object({
    operationId: Uuid,
    type: z.enum(BULK_TYPES),
    state: z.enum(BULK_STATES),
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
  })
  .meta({ id: 'BulkOperation' });
export const BulkOperationCancelling = z.object({ operationId: Uuid, state: z.literal('cancelling') }).meta({ id: 'BulkOperationCancelling' });

// ---- Reports ------------------------------------------------------------------------------------

const Cache = z.object({
  hit: z.boolean(),
  age: z.number().int().min(0).max(86_400).optional().describe('seconds since the report was computed (on a hit)'),
  expiresIn: z.number().int().min(0).max(86_400).optional().describe('seconds until it is computed again (on a hit)'),
});
const fresh = z.enum(['true', 'false']).default('false').transform((v) => v === 'true').describe('true: compute the report again, ignoring the cache');
const day = z.string().max(10).refine(isDate, 'must be a calendar date written YYYY-MM-DD');
/** The days a report covers, YYYY-MM-DD. */
const Periodo = z.object({ inicio: IsoDate, fim: IsoDate });
/** Stored values the reports group by: as stored (LABEL_MAX), an agent as the token named them (≤ 255). */
const Label = Text(LABEL_MAX);
const Agent = Text(255);
/** JSON, or the report's rows as a CSV download. */
const format = z.enum(['json', 'csv']).default('json');

const PeriodStats = z.object({
  totalTickets: Count,
  ticketsByStatus: z.object(Object.fromEntries(PATCHABLE_STATUSES.map((s) => [s, Count])) as Record<(typeof PATCHABLE_STATUSES)[number], typeof Count>),
  resolutionMetrics: z.object({ taxaResolucaoGeral: z.number().describe('resolved and closed tickets, in percent of the period\'s tickets') }),
  periodo: Periodo,
});

/** The filters the reports share, where they make sense. */
const CommonFilters = z.strictObject({
  data_inicio: day.optional().describe('first day (default: 30 days ago)'),
  data_fim: day.optional().describe('last day (default: today)'),
  status: z.enum(PATCHABLE_STATUSES).optional(),
  main: z.string().trim().min(1).max(200).optional().describe('main category'),
  issue: z.string().trim().min(1).max(200).optional(),
  agente: z.string().trim().min(1).max(200).optional().describe('tickets this agent changed or answered'),
  newsletter: z.string().trim().min(1).max(200).optional(),
  tag: z.coerce.number().int().min(1).optional().describe('tag id'),
  canal: z.enum(TICKET_CHANNELS).optional().describe('tickets opened through the API or by e-mail'),
  fresh,
});

const Durations = z.object({
  median: z.number().nullable(),
  p90: z.number().nullable().describe('nearest-rank 90th percentile'),
  mean: z.number().nullable(),
  count: Count,
}).describe('seconds; null when there is nothing to measure');

export const DetailRow = z.object({
  id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  main: Label,
  issue: Label,
  status: Text(16),
  newsletter: Label.nullable(),
  canal: z.enum(TICKET_CHANNELS).describe('where it was opened'),
  criadoEm: IsoDateTime,
  primeiraRespostaSegundos: z.number().nullable(),
  resolucaoSegundos: z.number().nullable(),
  reaberturas: Count,
});

/** The reports that take only `fresh` (the filter options, the dashboard). */
export const ReportFreshQuery = z.strictObject({ fresh }).meta({ id: 'ReportFreshQuery' });
export const ReportComparisonQuery = z
  .strictObject({
    data_inicio: day.optional().describe('first day of the current period (default: 30 days ago)'),
    data_fim: day.optional().describe('last day of the current period (default: today)'),
    comparar_com: z.enum(COMPARISONS).default('periodo_anterior'),
    fresh,
  })
  .meta({ id: 'ReportComparisonQuery' });
export const ReportResolutionQuery = CommonFilters.meta({ id: 'ReportResolutionQuery' });
export const ReportCategoriesQuery = CommonFilters.extend({ format }).meta({ id: 'ReportCategoriesQuery' });
export const ReportDistributionQuery = CommonFilters.extend({ por: z.enum(['hora', 'dia_semana', 'newsletter']), format }).meta({ id: 'ReportDistributionQuery' });
export const ReportSeriesQuery = CommonFilters.extend({ agrupamento: z.enum(GROUPINGS).default('dia'), format }).meta({ id: 'ReportSeriesQuery' });
export const ReportCohortsQuery = CommonFilters.extend({ format }).meta({ id: 'ReportCohortsQuery' });
export const ReportSummaryQuery = CommonFilters.omit({ data_inicio: true, data_fim: true }).meta({ id: 'ReportSummaryQuery' });
export const ReportDetailedQuery = CommonFilters.extend({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  format,
}).meta({ id: 'ReportDetailedQuery' });
export const ReportAgentsQuery = CommonFilters.extend({ format }).meta({ id: 'ReportAgentsQuery' });

// The report lists are unbounded (one row per category, agent, newsletter or period): .spectral.yaml.
export const ReportFilters = z
  .object({
    categorias: z.array(z.object({ main: Label, issues: z.array(Label) })),
    agentes: z.array(Agent),
    newsletters: z.array(Label),
    canais: z.array(z.enum(TICKET_CHANNELS)).max(TICKET_CHANNELS.length).describe('where tickets are opened: the API or e-mail'),
    status: z.array(z.enum(PATCHABLE_STATUSES)).max(PATCHABLE_STATUSES.length),
    agrupamentos: z.array(z.enum(GROUPINGS)).max(GROUPINGS.length),
    cache: Cache,
  })
  .meta({ id: 'ReportFilters' });
export const ReportComparison = z
  .object({ atual: PeriodStats, anterior: PeriodStats, variacao: z.object({ totalTickets: z.number(), taxaResolucao: z.number() }), cache: Cache })
  .meta({ id: 'ReportComparison' });
export const ReportResolutionMetrics = z
  .object({
    periodo: Periodo,
    primeiraResposta: Durations,
    resolucao: Durations,
    reabertura: z.object({ taxa: z.number().describe('percent'), reabertos: Count, resolvidos: Count }),
    cache: Cache,
  })
  .meta({ id: 'ReportResolutionMetrics' });
export const ReportDashboard = z
  .object({
    abertos: Count,
    emAndamento: Count,
    semResposta: Count,
    criados: z.object({ hoje: Count, semana: Count }),
    resolvidos: z.object({ hoje: Count, semana: Count }),
    maisAntigoAberto: z.object({ id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), status: z.enum(TICKET_STATUSES), createdAt: IsoDateTime, idadeSegundos: Count }).nullable(),
    hoje: IsoDate,
    semanaDesde: IsoDate,
    cache: Cache,
  })
  .meta({ id: 'ReportDashboard' });
export const ReportCategories = z
  .object({
    periodo: Periodo,
    categorias: z.array(
      z.object({ main: Label, issue: Label, total: Count, abertos: Count, emAndamento: Count, resolvidos: Count, fechados: Count, taxaResolucao: z.number() }),
    ),
    cache: Cache,
  })
  .meta({ id: 'ReportCategories' });
export const ReportDistribution = z
  .object({
    periodo: Periodo,
    por: z.enum(['hora', 'dia_semana', 'newsletter']),
    distribuicao: z.array(
      z.object({ chave: z.union([Label, z.number().int().min(0).max(23), z.null()]).describe('the hour (0–23), the weekday (1–7) or the newsletter'), total: Count }),
    ),
    cache: Cache,
  })
  .meta({ id: 'ReportDistribution' });
export const ReportSeries = z
  .object({
    periodo: Periodo,
    agrupamento: z.enum(GROUPINGS),
    serie: z.array(z.object({ periodo: Text(16).describe('YYYY-MM-DD HH:00, YYYY-MM-DD, YYYY-Www, YYYY-MM or YYYY'), criados: Count, resolvidos: Count })),
    cache: Cache,
  })
  .meta({ id: 'ReportSeries' });
export const ReportCohorts = z
  .object({
    periodo: Periodo,
    coortes: z.array(z.object({ semana: Text(10), criados: Count, em1Dia: Count, em3Dias: Count, em7Dias: Count })),
    cache: Cache,
  })
  .meta({ id: 'ReportCohorts' });
export const ReportSummary = PeriodStats.extend({
  primeiraResposta: Durations,
  resolucao: Durations,
  reabertura: z.object({ taxa: z.number(), reabertos: Count, resolvidos: Count }),
  cache: Cache,
}).meta({ id: 'ReportSummary' });
export const ReportDetailed = z
  .object({
    periodo: Periodo,
    linhas: z.array(DetailRow).max(100),
    pagination: SupportPagination,
    cache: Cache,
  })
  .meta({ id: 'ReportDetailed' });
export const ReportAgents = z
  .object({
    periodo: Periodo,
    agentes: z.array(z.object({ agente: Agent, respostas: Count, ticketsResolvidos: Count, atribuidos: Count.describe('Tickets assigned to the agent now'), atribuidosAtivos: Count.describe('Of those, open or in progress'), primeiraResposta: Durations, resolucao: Durations })),
    cache: Cache,
  })
  .meta({ id: 'ReportAgents' });

/** Who works on a ticket: a staff member's e-mail, or null for no one (issue 38). */
export const AssignTicketBody = z.strictObject({ assignee: emailAddress.nullable() }).meta({ id: 'AssignTicketRequest' });
const ValueCount = z.object({ value: Text(LABEL_MAX), count: Count }).meta({ id: 'QueueValueCount' });
/** The support desk queue's counts (issue 38). */
export const QueueCountsView = z
  .object({
    mine: Count.describe('Open or in progress, assigned to you'),
    unassigned: Count.describe('Open or in progress, assigned to no one'),
    open: Count,
    pending: Count.describe('in_progress: answered, not resolved'),
    all: Count.describe('Every ticket not deleted'),
    newsletters: z.array(ValueCount).max(100).describe('Open or in progress, by newsletter (the 100 largest)'),
    issues: z.array(ValueCount).max(100).describe('Open or in progress, by issue'),
    tags: z.array(z.object({ id: Id, count: Count }).meta({ id: 'QueueTagCount' })).max(100).describe('Open or in progress, by tag id'),
  })
  .meta({ id: 'QueueCounts' });

// ---- Live updates (issue 38) --------------------------------------------------------------------

/** What a staff member is doing on a ticket, said again every ~10 s by the page (the entry lives PRESENCE_TTL_SECONDS, 30 s). */
export const PresenceBody = z
  .strictObject({ state: z.enum(PRESENCE_STATES).describe('viewing: the ticket is open on their screen; replying: they are typing a reply') })
  .meta({ id: 'PresenceRequest' });
export const PresencePersonView = z
  .object({ email: Text(255).describe("the staff member's e-mail (a token without one: its subject)"), state: z.enum(PRESENCE_STATES) })
  .meta({ id: 'PresencePerson' });
/** Who is on a ticket now: the answer of the presence routes, and the `data` of a stream's `presence` event. */
export const TicketPresenceView = z
  .object({ ticketId: Id, people: z.array(PresencePersonView).max(PRESENCE_PEOPLE_MAX).describe('sorted by e-mail; empty when no one is on it') })
  .meta({ id: 'TicketPresence' });
export const LiveEventsQuery = z
  .object({
    ticket: id.optional().describe("One ticket's events only (an open ticket's page); without it, every ticket's (the queue)"),
    lastEventId: z
      .string()
      .max(15)
      .regex(/^\d{1,15}$/, 'lastEventId must be the id of an event this stream sent')
      .optional()
      .describe('Resume after this event (as the Last-Event-ID header, which EventSource sends by itself when it reconnects)'),
  })
  .meta({ id: 'LiveEventsQuery' });
/** One Server-Sent Event of GET /support/eventos: its name, its id (ticket events) and its data, JSON text. */
export const LiveStreamEvent = z
  .object({
    event: z.enum(['ticket', 'presence', 'reset']),
    id: z.string().regex(/^\d{1,15}$/).max(15).optional().describe('On ticket events: the cursor a reconnecting client sends back as Last-Event-ID'),
    data: z
      .string()
      .max(EVENT_DATA_MAX)
      .describe(
        'JSON. ticket: {id, status, assignee (where the ticket has the field), updatedAt, lastMessageAt, tags (ids)}; ' +
          'presence: {ticketId, people: [{email, state}]} (TicketPresence); reset: {reason} (resume_window_passed, too_many_changes, stream_overflow)',
      ),
  })
  .meta({ id: 'SupportLiveEvent' });

/** An internal note (issue 38): staff to staff. */
export const AddNoteBody = z.strictObject({ conteudo: text(TEXT_MAX) }).meta({ id: 'AddNoteRequest' });

// ---- Mailgun's inbound webhook (issue 39) -------------------------------------------------------

/** The largest message the configuration allows (SUPPORT_MAIL_INBOUND_MAX_BYTES, 30 MiB unless configured). */
const INBOUND_MAIL_MAX_BYTES = 100 * 1024 * 1024;

/**
 * One delivery of a Mailgun route's `forward()` to a URL ending in `mime` (the route reads its own
 * stream; this documents it). Mailgun adds other fields (`from`, `subject`…): they are ignored.
 */
export const MailgunInboundBody = z
  .looseObject({
    'body-mime': z
      .string()
      .min(1)
      .max(INBOUND_MAIL_MAX_BYTES)
      .meta({ format: 'binary' })
      .describe('the raw message (RFC 5322) as Mailgun received it, at most SUPPORT_MAIL_INBOUND_MAX_BYTES (30 MiB unless configured; more: 406)'),
    recipient: z.string().min(1).max(20_000).describe("the envelope recipients, comma-separated: each the desk's address or its +tag form (else 406)"),
    sender: z.string().max(998).optional().describe('the envelope sender (MAIL FROM); empty for a bounce'),
    timestamp: z.string().max(12).regex(/^\d{1,12}$/).describe('when Mailgun signed the delivery (Unix seconds); more than 5 minutes from now: 401'),
    token: z.string().min(1).max(256).describe('a random string Mailgun makes per delivery; a second delivery with it: 409'),
    signature: z.string().length(64).regex(/^[0-9a-fA-F]{64}$/).describe('hex HMAC-SHA256 of timestamp and token (joined) with the webhook signing key (MAILGUN_WEBHOOK_SIGNING_KEY); wrong or missing: 401'),
  })
  .meta({ id: 'MailgunInboundRequest' });

export const MailgunInboundAnswer = z
  .object({ received: z.literal(true), id: Uuid.describe('the inbound record the message was stored as (its processing follows)') })
  .meta({ id: 'MailgunInboundAnswer' });
