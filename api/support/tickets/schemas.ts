/** Request and response schemas of the support service (support-ticket-api.md §2, §4). */
import { z } from 'zod';
import { emailAddress, wholeNumber } from '../../../models/params.rules';
import { Count, IsoDateTime, SearchText, Text } from '../../shared/views';
import { LABEL_MAX, MESSAGE_ORIGINS, PATCHABLE_STATUSES, TEXT_MAX, TICKET_ISSUES, TICKET_STATUSES } from '../../../models/support/ticket.rules';

const id = wholeNumber((n) => n.positive());
export const TicketIdParams = z.object({ id });
export const TagParams = z.object({ id, tagId: id });
export const TagIdParams = z.object({ tagId: id });
export const AttachmentIdParams = z.object({ attachmentId: id });
export const QuickReplyIdParams = z.object({ replyId: id });
export const UseQuickReplyParams = z.object({ id, replyId: id });

const text = (max: number) => z.string().max(max).trim().min(1);
export const IssueSchema = z.enum(TICKET_ISSUES, { message: `issue must be one of: ${TICKET_ISSUES.join(' | ')}` });

const DESCRIPTION_MAX = 10_000;
export const CreateTicketBody = z.strictObject({
  main: text(LABEL_MAX).describe('Main category'),
  issue: IssueSchema,
  description: text(DESCRIPTION_MAX),
  email: emailAddress,
  newsletter: text(LABEL_MAX).optional(),
  wantReply: z.boolean().optional(),
});

export const UpdateTicketBody = z
  .strictObject({
    status: z.enum(PATCHABLE_STATUSES).optional(),
    issue: IssueSchema.optional(),
    main: text(LABEL_MAX).optional(),
    newsletter: text(LABEL_MAX).optional(),
    replied: z.string().max(TEXT_MAX).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');

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
    page: wholeNumber((n) => n.min(1).max(100_000)).default(1),
    limit: wholeNumber((n) => n.min(1).max(100)).default(10),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to');

/** Page-numbered pagination of the support lists (spec §4.2): page, limit (1–100), total, totalPages. */
export const SupportPagination = z
  .object({ page: z.number().int().min(1).max(100_000), limit: z.number().int().min(1).max(100), total: Count, totalPages: Count })
  .meta({ id: 'SupportPagination' });

/** Ids are sequence numbers from 1 (spec §2). */
const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** The bounds of the request bodies every stored value went through (below), the e-mail's of RFC 5321. */
const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const TagSchema = z.object({ id: Id, name: Text(50), color: z.string().max(7).regex(COLOR), isDefault: z.boolean() }).meta({ id: 'Tag' });
export const MessageSchema = z
  .object({
    id: Id.nullable().describe('null for the first message, which carries the description'),
    conteudo: Text(TEXT_MAX),
    remetente: Text(255).describe("the sender's e-mail, or the staff member's id"),
    origem: z.enum(MESSAGE_ORIGINS),
    createdAt: IsoDateTime,
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
    replied: Text(TEXT_MAX).nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    deletedAt: IsoDateTime.nullable(),
    tags: z.array(TagSchema),
  })
  .meta({ id: 'Ticket' });
export const TicketDetailSchema = TicketSchema.extend({ anexos: z.array(AttachmentSummary), mensagens: z.array(MessageSchema) }).meta({ id: 'TicketDetail' });

export const AddMessageBody = z.strictObject({ conteudo: text(TEXT_MAX) });
export const AssignTagBody = z.strictObject({ tagId: id });
const hex = z.string().max(7).regex(COLOR, 'color must be a hex colour like #1a2b3c');
export const CreateTagBody = z.strictObject({ name: text(50), color: hex });
export const UpdateTagBody = z
  .strictObject({ name: text(50).optional(), color: hex.optional() })
  .refine((b) => b.name !== undefined || b.color !== undefined, 'at least one field is required');
export const CreateQuickReplyBody = z.strictObject({ title: text(LABEL_MAX), content: text(TEXT_MAX), category: text(60).optional() });
export const UpdateQuickReplyBody = z
  .strictObject({ title: text(LABEL_MAX).optional(), content: text(TEXT_MAX).optional(), category: text(60).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');

/** A tag as listed, with its times. */
export const TagView = TagSchema.extend({ createdAt: IsoDateTime, updatedAt: IsoDateTime }).meta({ id: 'TagListed' });
/** What a change of a ticket's status or issue answers. */
export const TicketUpdated = TicketSchema.pick({ id: true, status: true, issue: true, replied: true, updatedAt: true }).meta({ id: 'TicketUpdated' });
