/** Bulk operations over tickets (pure shapes and limits). */
export const BULK_TYPES = ['status', 'delete', 'messages', 'fast_response'] as const;
export type BulkType = (typeof BULK_TYPES)[number];
export const BULK_MAX_TICKETS = 10_000;
/** Tickets per activity call: small enough to heartbeat often, large enough to keep history short. */
export const BULK_CHUNK_SIZE = 200;
export type BulkState = 'running' | 'completed' | 'cancelled' | 'failed';

export interface BulkParams {
  status?: 'open' | 'in_progress' | 'resolved' | 'closed';
  conteudo?: string;
  /** fast_response: also send the draft as an admin message. */
  send?: boolean;
}

export interface BulkWorkflowInput {
  operationId: string;
  total: number;
  chunkSize: number;
}

export const chunkRanges = (total: number, size: number): [number, number][] =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) => [i * size, Math.min(total, (i + 1) * size)]);
