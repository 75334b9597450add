/** The activities the support workflows call: bulk operations and fast responses (activities/support.activities.ts). */
import type { MessageChannel } from '../../models/support/ticket.rules';
export interface SupportActivities {
  processBulkChunk(input: { operationId: string; start: number; end: number }): Promise<{ processed: number }>;
  draftFastResponse(input: { ticketId: number }): Promise<{ draft: string }>;
  saveFastResponse(input: { ticketId: number; draft: string; send: boolean; by: string; key: string; canal?: MessageChannel }): Promise<{ messageId: number | null }>;
  finishBulkOperation(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed' }): Promise<void>;
}

/** What processing a requester's mail came to (operations/support/inbound-process.ts InboundResult). */
export type SupportInboundOutcome = { state: 'processed' | 'failed' } & Record<string, unknown>;

/** The activities of a requester's mail the receiver stored (activities/support-mail.activities.ts; issue 39). */
export interface SupportInboundActivities {
  /** Parses, authenticates, threads and stores it; a settled record answers its result. Throws (retried) while a dependency is out of reach. */
  processInboundMail(input: { id: string }): Promise<SupportInboundOutcome>;
  /** Every attempt failed: the record is settled `failed`, with why. */
  giveUpInboundMail(input: { id: string; reason: string }): Promise<void>;
}

/** The activities of the mail of a staff message or an acknowledgement (activities/support-mail.activities.ts; issue 39). */
export interface SupportMailActivities {
  /** Hands the mail to SMTP once; a delivery already ended is left as it is. Throws (retried) while the server cannot take it. */
  deliverMail(input: { ticketId: number; messageId: number }): Promise<{ estado: string; motivo: string | null }>;
  /** Every attempt failed: the delivery is failed, with why. */
  giveUpMail(input: { ticketId: number; messageId: number; reason: string }): Promise<void>;
}
