/** Bulk operations over tickets (pure shapes and limits). */
export const BULK_TYPES = ['status', 'delete', 'messages', 'fast_response', 'tags', 'assign'] as const;
export type BulkType = (typeof BULK_TYPES)[number];
export const BULK_MAX_TICKETS = 10_000;
/** Tickets per activity call: small enough to heartbeat often, large enough to keep history short. */
export const BULK_CHUNK_SIZE = 200;
/** Tickets per group inside a chunk: the unit of its round trips, progress and cancellation. */
export const BULK_GROUP = 100;
export type BulkState = 'running' | 'completed' | 'cancelled' | 'failed';

/** The key of one ticket's change in an operation: its history event's and its outcome's `_id`. */
export const bulkKey = (operationId: string, ticketId: number) => `${operationId}:${ticketId}`;

export interface BulkParams {
  status?: 'open' | 'in_progress' | 'resolved' | 'closed';
  conteudo?: string;
  /** fast_response: also send the draft as an admin message. */
  send?: boolean;
  /** tags: the tags put on and taken off each ticket. */
  addTags?: number[];
  removeTags?: number[];
  /** assign: the new assignee (null: no one), and whether a manager started it (a manager reassigns; an agent only takes tickets no one has). */
  assignee?: string | null;
  override?: boolean;
}

/** Tags one bulk operation may put on or take off. */
export const BULK_TAGS_MAX = 20;

export interface BulkWorkflowInput {
  operationId: string;
  total: number;
  chunkSize: number;
}

export { chunkRanges } from '../chunks.rules';
