/**
 * Task queues and workflow ids, in one place (GUIDE §5). Workflow ids carry the business key so
 * operators find runs in the Temporal UI by what they are about.
 *
 * Pure: imported by workflows, APIs and workers alike.
 */
export const TASK_QUEUES = {
  /** Platform checks and maintenance (the smoke workflow). */
  ops: 'platform-ops',
  /** AI chat runs: model calls, tool calls, context providers. */
  ai: 'ai-chat',
  /** Support work: bulk ticket operations, AI fast responses. */
  support: 'support-ops',
  /** Support by e-mail (issue 39): staff replies and acknowledgements handed to SMTP, requesters' mail processed, their relays. */
  supportMail: 'support-mail',
  /** News: article imports (admin endpoint, CLI `import` and `seed`). */
  news: 'news-ingest',
  /** News sources: one poller per source, page reads, each article's enrichment and re-enrichments. */
  newsSources: 'news-sources',
  /** Quizzes: the daily generation and its model calls. */
  quiz: 'quiz-generation',
  /** Billing: the subscription workflows driven by Stripe's webhooks. */
  billing: 'billing',
  /** WhatsApp: one conversation workflow per phone number, breaking-news alerts. */
  whatsapp: 'whatsapp',
  /** Readers' notifications (issue 40): breaking alerts on every channel, the daily digest. */
  notify: 'news-notify',
  /** Webhooks to API customers (issue 40): each event's fan-out into messages, each message's deliveries. */
  webhooks: 'news-webhooks',
} as const;

export type TaskQueueKey = keyof typeof TASK_QUEUES;
export type TaskQueue = (typeof TASK_QUEUES)[TaskQueueKey];

/** The name a queue has in a deployment (TASK_QUEUE_PREFIX + base name). */
export const taskQueueName = (prefix: string, queue: TaskQueue): string => `${prefix}${queue}`;

export const workflowIds = {
  /** One smoke check: API → Temporal → worker → activities → MongoDB and MinIO. */
  smoke: (checkId: string) => `smoke-${checkId}`,
  /** One AI chat run, named after the user who asked (spec: visible per user in the Temporal UI). */
  aiChat: (userId: string, requestId: string) => `ai-chat-${userId}-${requestId}`,
  /** One bulk ticket operation (its id is the operation id clients poll). */
  ticketBulk: (operationId: string) => `ticket-bulk-${operationId}`,
  /** The mail of one staff message to its ticket's requester (messageId 0: the ticket's acknowledgement). */
  supportMail: (ticketId: number, messageId: number) => `support-mail-${ticketId}-${messageId === 0 ? 'ack' : messageId}`,
  /** The processing of one requester's mail the receiver stored (its `support_inbound_mail` record's id). */
  supportInbound: (recordId: string) => `support-inbound-${recordId}`,
  /** One AI fast response for a ticket. */
  ticketFastResponse: (ticketId: number, runId: string) => `ticket-fast-response-${ticketId}-${runId}`,
  /** The long-lived poller of one news source (runs while the source is enabled). */
  newsSource: (sourceId: string) => `news-source-${sourceId}`,
  /** The enrichment of one article (the article's id is known before it is published). */
  newsEnrich: (articleId: string) => `news-enrich-${articleId}`,
  /** The re-enrichment of the articles a filter matched (its id is the operation id clients poll). */
  newsReenrich: (operationId: string) => `news-reenrich-${operationId}`,
  /** One article import (its id is the import id clients poll). */
  newsImport: (importId: string) => `news-import-${importId}`,
  /** The generation of one quiz: one run at a time per quiz date (`2026-11-21` or `2026-11-21-night`). */
  quizGeneration: (quizDate: string) => `quiz-generation-${quizDate}`,
  /** A generation asked for by an admin, for the quizzes of one edition day. */
  quizGenerationDay: (date: string) => `quiz-daily-manual-${date}`,
  /** The long-lived subscription workflow of one Stripe customer (signal-with-start). */
  subscription: (customerId: string) => `subscription-${customerId}`,
  /** The conversation of one WhatsApp phone number (signal-with-start; digits only). */
  whatsappConversation: (phone: string) => `whatsapp-${phone}`,
  /** The WhatsApp alerts of one breaking article (started once per article). */
  whatsappAlerts: (articleId: string) => `whatsapp-alerts-${articleId}`,
  /** The breaking alerts of one article on every channel (issue 40). */
  newsAlerts: (articleId: string) => `news-alerts-${articleId}`,
  /** A digest run asked for by hand (the CLI, a test) for one slot (its ISO instant). */
  newsDigestManual: (slot: string) => `news-digest-manual-${slot}`,
  /** The webhook messages of one event of the log (`article:<id>` → `webhook-fanout-article-<id>`), started once. */
  webhookFanOut: (eventKey: string) => `webhook-fanout-${eventKey.replace(/:/g, '-')}`,
  /** The deliveries of one webhook message (its msg id, the webhook-id receivers see). */
  webhookMessage: (msgId: string) => `webhook-message-${msgId}`,
  /** One more delivery of a message a customer asked for (a replay). */
  webhookReplay: (msgId: string, replayId: string) => `webhook-replay-${msgId}-${replayId}`,
};

/** The daily digest's schedule (every 15 minutes; its runs are `<prefix>news-digest-<scheduled time>`), per deployment prefix (issue 40). */
export const newsDigestScheduleId = (prefix: string): string => `${prefix}news-digest`;

/** The webhook fan-out relay's schedule (every minute), per deployment prefix (issue 40). */
export const webhookRelayScheduleId = (prefix: string): string => `${prefix}webhook-fanout-relay`;

/** The WhatsApp message relay's schedule (every minute), per deployment prefix. */
export const whatsappRelayScheduleId = (prefix: string): string => `${prefix}whatsapp-message-relay`;

/** The daily quiz generation schedule (its runs are `<id>-<scheduled time>`), per deployment prefix. */
export const quizScheduleId = (prefix: string): string => `${prefix}quiz-daily-generation`;

/** The support mail relay's schedule (every minute), per deployment prefix (issue 39). */
export const supportMailRelayScheduleId = (prefix: string): string => `${prefix}support-mail-relay`;

/** The inbound mail relay's schedule (every minute), per deployment prefix (issue 39). */
export const supportInboundRelayScheduleId = (prefix: string): string => `${prefix}support-inbound-relay`;

/** The billing event relay's schedule (every minute), per deployment prefix. */
export const billingRelayScheduleId = (prefix: string): string => `${prefix}billing-event-relay`;
