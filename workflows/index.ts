/** Every workflow type the worker registers. */
export { smokeWorkflow } from './ops/smoke.workflow';
export { aiChatWorkflow } from './ai/chat.workflow';
export { bulkTicketOperationWorkflow } from './support/bulk.workflow';
export { ticketFastResponseWorkflow } from './support/fast-response.workflow';
export { newsIngestWorkflow } from './news/ingest.workflow';
