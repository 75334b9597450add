/** Every workflow type the worker registers. */
export { smokeWorkflow } from './ops/smoke.workflow';
export { aiChatWorkflow } from './ai/chat.workflow';
export { bulkTicketOperationWorkflow } from './support/bulk.workflow';
export { ticketFastResponseWorkflow } from './support/fast-response.workflow';
export { supportMailWorkflow } from './support/mail.workflow';
export { supportMailRelayWorkflow } from './support/mail-relay.workflow';
export { supportInboundMailWorkflow } from './support/inbound.workflow';
export { supportInboundRelayWorkflow } from './support/inbound-relay.workflow';
export { newsImportWorkflow } from './news/import.workflow';
export { newsSourceWorkflow } from './news/source.workflow';
export { newsEnrichWorkflow } from './news/enrich.workflow';
export { newsReenrichWorkflow } from './news/reenrich.workflow';
/** Deprecated: the single-writer import queue, kept registered so runs started before the upgrade finish. */
export { newsIngestWorkflow } from './news/ingest.workflow';
export { quizDailyWorkflow, quizGenerationWorkflow } from './quiz/generation.workflow';
export { subscriptionWorkflow } from './billing/subscription.workflow';
export { billingRelayWorkflow } from './billing/relay.workflow';
export { whatsappConversationWorkflow } from './whatsapp/conversation.workflow';
export { whatsappRelayWorkflow } from './whatsapp/relay.workflow';
export { whatsappAlertsWorkflow } from './whatsapp/alerts.workflow';
export { newsAlertsWorkflow } from './news/alerts.workflow';
export { newsDigestWorkflow } from './news/digest.workflow';
export { webhookFanOutWorkflow } from './events/fanout.workflow';
export { webhookMessageWorkflow } from './events/message.workflow';
export { webhookRelayWorkflow } from './events/relay.workflow';
