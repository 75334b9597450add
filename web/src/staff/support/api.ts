/**
 * The support desk's calls: the support API's own operations, served by the dashboard under the
 * staff session at /api/staff + their path (api/web/console.ts), in the dashboard's envelope. The
 * shapes are the support API's views (api/support/contracts.ts); the values the page needs from the
 * model (statuses, views, issues, transitions) are the pure rules' (models/support/*.rules.ts).
 */
import { ApiError } from '../../api';
import type { PresencePerson, PresenceState } from '../../../../models/support/live.rules';
import type { DeliveryState, MessageChannel, MessageOrigin, PatchableStatus, QueueView, TicketStatus } from '../../../../models/support/ticket.rules';
import { segment, staffApi, staffPath, type Query } from '../api';

export type { MessageOrigin, PatchableStatus, PresencePerson, PresenceState, QueueView, TicketStatus };

/** Tickets a queue page shows (the API allows up to 100). */
export const PAGE_SIZE = 50;

/** Tag (a ticket's) and TagListed (GET /support/tags). */
export interface Tag {
  id: number;
  name: string;
  color: string;
  isDefault: boolean;
}

/** Ticket */
export interface Ticket {
  id: number;
  main: string;
  issue: string;
  description: string;
  status: TicketStatus;
  email: string;
  newsletter: string | null;
  wantReply: boolean;
  replied: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  assignee: string | null;
  tags: Tag[];
}

/** Message: the first (id null) carries the description. */
export interface Message {
  id: number | null;
  conteudo: string;
  remetente: string;
  origem: MessageOrigin;
  createdAt: string;
  /** Where it came from (absent on messages stored before channels were recorded). */
  canal?: MessageChannel;
  /** A staff reply's mail to the requester (issue 39). */
  entrega?: { estado: DeliveryState; motivo: string | null; atualizadoEm: string };
  /** A message that came by e-mail whose From failed DMARC (issue 39). */
  dmarcFalhou?: true;
  /** Files of a message that came by e-mail that were not kept, with why (issue 39). */
  arquivosRecusados?: { nome: string; tipo: string; tamanho: number; motivo: string; detalhe: string }[];
}

export interface AttachmentSummary {
  id: number;
  nomeArquivo: string;
  tipoArquivo: string;
  tamanhoArquivo: number;
  createdAt: string;
}

/** TicketDetail */
export interface TicketDetail extends Ticket {
  anexos: AttachmentSummary[];
  mensagens: Message[];
}

/** QueueCounts: each view's count, and the active tickets (open or in progress) by newsletter, issue and tag. */
export interface QueueCounts {
  mine: number;
  unassigned: number;
  open: number;
  pending: number;
  all: number;
  newsletters: { value: string; count: number }[];
  issues: { value: string; count: number }[];
  tags: { id: number; count: number }[];
}

/** QuickReply */
export interface QuickReply {
  id: number;
  title: string;
  content: string;
  category: string | null;
  usageCount: number;
}

/** ReportFilters (support.manager only): every newsletter and category the reports know. */
export interface ReportFilters {
  categorias: { main: string; issues: string[] }[];
  newsletters: string[];
}

/** FastResponseResult */
export interface FastResponse {
  replied: string;
  sent: boolean;
  messageId: number | null;
}

export type BulkKind = 'status' | 'delete' | 'messages' | 'fast-response' | 'tags' | 'assign';
export type BulkState = 'running' | 'completed' | 'cancelled' | 'failed';

/** BulkOperationAccepted */
export interface BulkAccepted {
  operationId: string;
  total: number;
  state: BulkState;
}

/** BulkOperation */
export interface BulkOperation {
  operationId: string;
  type: string;
  state: BulkState;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: { ticketId: number; error: string }[];
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** The queue's filters (GET /support), and a bulk operation's `filter` (a whole view). */
export interface QueueFilter {
  view: QueueView;
  status?: TicketStatus | undefined;
  newsletter?: string | undefined;
  issue?: string | undefined;
  tag?: number | undefined;
  q?: string | undefined;
  assignee?: string | undefined;
}

/** A bulk operation's tickets: ids, or every ticket of a view when it starts. */
export type BulkSelection = { ticketIds: number[] } | { filter: QueueFilter };

/** TicketPresence */
export interface TicketPresence {
  ticketId: number;
  people: PresencePerson[];
}

export interface Page<T> {
  items: T[];
  page: number;
  total: number;
  totalPages: number;
  /** When the server answered (its `Date` header, to the second): live events up to it are in the page already. */
  servedAt: number;
}

/**
 * A page of a list: the envelope's `pagination` beside `data` (the shell's `api()` answers `data`
 * alone). A GET carries no CSRF token; failures are the same `ApiError` as everywhere.
 */
async function getPage<T>(path: string, query: Query): Promise<Page<T>> {
  const res = await fetch(staffPath(path, query), { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  let json: { success?: boolean; data?: T[]; pagination?: { page: number; total: number; totalPages: number }; error?: string; code?: string; details?: unknown } | undefined;
  try {
    json = (await res.json()) as typeof json;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json?.success) throw new ApiError(res.status, json?.error ?? res.statusText, json?.code, json?.details);
  const p = json.pagination ?? { page: 1, total: json.data?.length ?? 0, totalPages: 1 };
  const served = Date.parse(res.headers.get('Date') ?? '');
  return { items: json.data ?? [], page: p.page, total: p.total, totalPages: p.totalPages, servedAt: Number.isNaN(served) ? Date.now() : served };
}

const ticket = (id: number) => `/support/${segment(String(id))}`;

/** Where an attachment is read from (an <img>'s source, a download link): same origin, the session's cookie. */
export const attachmentUrl = (attachmentId: number): string => staffPath(`/support/anexos/${segment(String(attachmentId))}/download`);

/** The whole mail a requester's message came in (a download: `message/rfc822`). */
export const originalMailUrl = (ticketId: number, messageId: number): string => staffPath(`${ticket(ticketId)}/mensagens/${segment(String(messageId))}/original`);

/** The live stream (Server-Sent Events): every ticket's changes, or one ticket's. */
export const eventsUrl = (ticketId?: number): string => staffPath('/support/eventos', ticketId ? { ticket: ticketId } : undefined);

export const supportApi = {
  list: (filter: QueueFilter, page: number, limit = PAGE_SIZE) => getPage<Ticket>('/support', { ...filter, page, limit }),
  /** A requester's tickets (newest first). */
  byRequester: (email: string, limit = 10) => getPage<Ticket>('/support', { email, limit, page: 1 }),
  counts: () => staffApi.get<QueueCounts>('/support/views'),
  tags: () => staffApi.get<Tag[]>('/support/tags'),
  reportFilters: () => staffApi.get<ReportFilters>('/support/relatorios/filtros'),
  quickReplies: () => staffApi.get<QuickReply[]>('/support/respostas-rapidas'),

  detail: (id: number) => staffApi.get<TicketDetail>(ticket(id)),
  setStatus: (id: number, status: PatchableStatus) => staffApi.patch<{ id: number; status: TicketStatus; updatedAt: string }>(ticket(id), { status }),
  remove: (id: number) => staffApi.delete<{ id: number }>(ticket(id)),
  restore: (id: number) => staffApi.post<{ id: number; status: TicketStatus }>(`${ticket(id)}/restore`),
  assign: (id: number, assignee: string | null) => staffApi.put<Ticket>(`${ticket(id)}/assignee`, { assignee }),
  reply: (id: number, conteudo: string, lastSeenMessageId: number, force = false) =>
    staffApi.post<Message>(`${ticket(id)}/mensagens`, { conteudo, lastSeenMessageId, ...(force ? { force: true } : {}) }),
  note: (id: number, conteudo: string) => staffApi.post<Message>(`${ticket(id)}/notas`, { conteudo }),
  sendQuickReply: (id: number, replyId: number) => staffApi.post<Message>(`${ticket(id)}/respostas-rapidas/${segment(String(replyId))}`),
  draft: (id: number) => staffApi.post<FastResponse>(`${ticket(id)}/fast-response`, { send: false }),
  addTag: (id: number, tagId: number) => staffApi.post<null>(`${ticket(id)}/tags`, { tagId }),
  removeTag: (id: number, tagId: number) => staffApi.delete<null>(`${ticket(id)}/tags/${segment(String(tagId))}`),

  presence: (id: number, state: PresenceState) => staffApi.put<TicketPresence>(`${ticket(id)}/presenca`, { state }),
  leave: (id: number) => staffApi.delete<TicketPresence>(`${ticket(id)}/presenca`),

  startBulk: (kind: BulkKind, selection: BulkSelection, params: Record<string, unknown>) => staffApi.post<BulkAccepted>(`/support/bulk/${kind}`, { ...selection, ...params }),
  bulk: (operationId: string) => staffApi.get<BulkOperation>(`/support/bulk/${segment(operationId)}`),
  cancelBulk: (operationId: string) => staffApi.post<{ state: string }>(`/support/bulk/${segment(operationId)}/cancel`),
};

/**
 * Uploads a file (multipart, the field `arquivo`). `api()` sends JSON only, so this is its own
 * request, with the session's CSRF token as every change carries it.
 */
export async function uploadAttachment(id: number, file: File, csrfToken: string): Promise<AttachmentSummary> {
  const body = new FormData();
  body.append('arquivo', file, file.name);
  const res = await fetch(staffPath(`${ticket(id)}/anexos`), { method: 'POST', credentials: 'same-origin', headers: { Accept: 'application/json', 'X-CSRF-Token': csrfToken }, body });
  let json: { success?: boolean; data?: AttachmentSummary; error?: string; code?: string; details?: unknown } | undefined;
  try {
    json = (await res.json()) as typeof json;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json?.success || !json.data) throw new ApiError(res.status, json?.error ?? res.statusText, json?.code, json?.details);
  return json.data;
}

