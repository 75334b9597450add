/** The activities the support workflows call: bulk operations and fast responses (activities/support.activities.ts). */
export interface SupportActivities {
  processBulkChunk(input: { operationId: string; start: number; end: number }): Promise<{ processed: number }>;
  draftFastResponse(input: { ticketId: number }): Promise<{ draft: string }>;
  saveFastResponse(input: { ticketId: number; draft: string; send: boolean; by: string; key: string }): Promise<{ messageId: number | null }>;
  finishBulkOperation(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed' }): Promise<void>;
}
