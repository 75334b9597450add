/** Request and response schemas of the support service (support-ticket-api.md §2, §4). */
import { z } from 'zod';
import { emailAddress, wholeNumber } from '../../../models/params.rules';
import { MESSAGE_ORIGINS, PATCHABLE_STATUSES, TICKET_ISSUES, TICKET_STATUSES } from '../../../models/support/ticket.rules';

const id = wholeNumber((n) => n.positive());
export const TicketIdParams = z.object({ id });
export const TagParams = z.object({ id, tagId: id });
export const TagIdParams = z.object({ tagId: id });
export const AttachmentIdParams = z.object({ attachmentId: id });
export const QuickReplyIdParams = z.object({ replyId: id });
export const UseQuickReplyParams = z.object({ id, replyId: id });

const text = (max: number) => z.string().max(max).trim().min(1);
export const IssueSchema = z.enum(TICKET_ISSUES, { message: `issue must be one of: ${TICKET_ISSUES.join(' | ')}` });

export const CreateTicketBody = z.strictObject({
  main: text(120).describe('Main category'),
  issue: IssueSchema,
  description: text(10_000),
  email: emailAddress,
  newsletter: text(120).optional(),
  wantReply: z.boolean().optional(),
});

export const UpdateTicketBody = z
  .strictObject({
    status: z.enum(PATCHABLE_STATUSES).optional(),
    issue: IssueSchema.optional(),
    main: text(120).optional(),
    newsletter: text(120).optional(),
    replied: z.string().max(20_000).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date()).transform((v) => new Date(v));
export const ListTicketsQuery = z
  .object({
    status: z.enum(TICKET_STATUSES).optional(),
    includeDeleted: bool.optional().describe('Also list deleted tickets (default false)'),
    issue: IssueSchema.optional(),
    main: z.string().max(120).optional(),
    newsletter: z.string().max(120).optional(),
    email: emailAddress.optional(),
    tag: id.optional().describe('Tag id'),
    from: isoDate.optional().describe('Created at or after (ISO 8601 date or datetime)'),
    to: isoDate.optional().describe('Created at or before'),
    // A NUL cannot be in a MongoDB regular expression (MongoDB refuses it; it surfaced as a 500).
    // eslint-disable-next-line no-control-regex -- matching the NUL character is the point
    q: z.string().max(100).regex(/^[^\u0000]*$/, 'must not contain a NUL character').trim().min(2).optional().describe('Text in the description (case-insensitive)'),
    page: wholeNumber((n) => n.min(1).max(100_000)).default(1),
    limit: wholeNumber((n) => n.min(1).max(100)).default(10),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to');

export const TagSchema = z.object({ id: z.number(), name: z.string(), color: z.string(), isDefault: z.boolean() });
export const MessageSchema = z.object({
  id: z.number().nullable().describe('null for the first message, which carries the description'),
  conteudo: z.string(),
  remetente: z.string(),
  origem: z.enum(MESSAGE_ORIGINS),
  createdAt: z.string(),
});
export const AttachmentSummary = z.object({ id: z.number(), nomeArquivo: z.string(), tipoArquivo: z.string(), tamanhoArquivo: z.number(), createdAt: z.string() });
export const TicketSchema = z.object({
  id: z.number(),
  main: z.string(),
  issue: z.string(),
  description: z.string(),
  status: z.enum(TICKET_STATUSES),
  email: z.string(),
  newsletter: z.string().nullable(),
  wantReply: z.boolean(),
  replied: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
  tags: z.array(TagSchema),
});
export const TicketDetailSchema = TicketSchema.extend({ anexos: z.array(AttachmentSummary), mensagens: z.array(MessageSchema) });

export const AddMessageBody = z.strictObject({ conteudo: text(20_000) });
export const AssignTagBody = z.strictObject({ tagId: id });
const hex = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'color must be a hex colour like #1a2b3c');
export const CreateTagBody = z.strictObject({ name: text(50), color: hex });
export const UpdateTagBody = z
  .strictObject({ name: text(50).optional(), color: hex.optional() })
  .refine((b) => b.name !== undefined || b.color !== undefined, 'at least one field is required');
export const CreateQuickReplyBody = z.strictObject({ title: text(120), content: text(20_000), category: text(60).optional() });
export const UpdateQuickReplyBody = z
  .strictObject({ title: text(120).optional(), content: text(20_000).optional(), category: text(60).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');
