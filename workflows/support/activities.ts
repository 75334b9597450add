/** The activities the support workflows call: bulk operations and fast responses (activities/support.activities.ts). */
export interface SupportActivities {
  processBulkChunk(input: { operationId: string; start: number; end: number }): Promise<{ processed: number }>;
  draftFastResponse(input: { ticketId: number }): Promise<{ draft: string }>;
  saveFastResponse(input: { ticketId: number; draft: string; send: boolean; by: string; key: string }): Promise<{ messageId: number | null }>;
  finishBulkOperation(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed' }): Promise<void>;
}

/** The activities of the mail of a staff message or an acknowledgement (activities/support-mail.activities.ts; issue 39). */
export interface SupportMailActivities {
  /** Hands the mail to SMTP once; a delivery already ended is left as it is. Throws (retried) while the server cannot take it. */
  deliverMail(input: { ticketId: number; messageId: number }): Promise<{ estado: string; motivo: string | null }>;
  /** Every attempt failed: the delivery is failed, with why. */
  giveUpMail(input: { ticketId: number; messageId: number; reason: string }): Promise<void>;
}
