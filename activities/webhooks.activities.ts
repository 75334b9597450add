/**
 * The webhooks' activities (issue 40, part 5; queue `news-webhooks`): an event's fan-out into
 * messages, one attempt of a message, ending a message, disabling an endpoint (and mailing its
 * owner), and the fan-out relay. Thin: the use cases are operations/events/webhook-fanout.ts and
 * webhook-delivery.ts; workflows are started with the worker's own Temporal client.
 */
import { Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createEventLogRepo } from '../models/events/event-log.repo';
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../models/events/secret-box';
import { createWebhookAttemptRepo } from '../models/events/webhook-attempt.repo';
import { createWebhookEndpointRepo } from '../models/events/webhook-endpoint.repo';
import { createWebhookMessageRepo } from '../models/events/webhook-message.repo';
import { WEBHOOK_USER_AGENT } from '../models/events/webhook-signing';
import { createMailer, type Mailer } from '../models/infra/mail';
import { createWebhookSender, type WebhookSender } from '../models/infra/webhook-sender';
import { createUserRepo } from '../models/users/user.repo';
import { deliverAttempt, disableEndpoint, finishMessage } from '../operations/events/webhook-delivery';
import { fanOutPage, markDispatched, relayUndispatched, temporalWebhookStarts } from '../operations/events/webhook-fanout';
import type { WebhookActivities } from '../workflows/events/activities';
import type { WebhookRelayActivities } from '../workflows/relay';
import { withAttempt } from './attempt';

export interface WebhookActivityDeps {
  conn: Connection;
  config: Pick<Config, 'mail' | 'devServices' | 'web' | 'news' | 'temporal'>;
  /** Undefined: made from the configuration (tests pass their own). */
  mailer?: Mailer;
  sender?: WebhookSender;
  now?: () => Date;
}

/** The domain of an address written `a@b` or `Name <a@b>`. */
const domainOf = (from: string) => /@([^\s<>@]+?)>?$/.exec(from.trim())?.[1] ?? 'localhost';

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities & WebhookRelayActivities {
  const now = deps.now ?? (() => new Date());
  const prefix = deps.config.temporal.taskQueuePrefix;
  const repos = {
    events: createEventLogRepo(deps.conn),
    webhookEndpoints: createWebhookEndpointRepo(deps.conn, createSecretBox(deps.config.web.secret, WEBHOOK_SECRETS_INFO)),
    webhookMessages: createWebhookMessageRepo(deps.conn),
    webhookAttempts: createWebhookAttemptRepo(deps.conn),
    users: createUserRepo(deps.conn),
  };
  const fetch = deps.config.news.fetch;
  const sender = deps.sender ?? createWebhookSender({ userAgent: WEBHOOK_USER_AGENT, allowHosts: fetch.allowHosts, timeoutMs: fetch.timeoutMs });
  let mailer: Mailer | undefined = deps.mailer;
  const disableDeps = () => ({ ...repos, mailer: (mailer ??= createMailer(deps.config)), mail: { from: deps.config.mail.from, domain: domainOf(deps.config.mail.from) }, now });
  const starts = () => temporalWebhookStarts(Context.current().client, prefix);
  return {
    fanOutPage: (input) => withAttempt(() => fanOutPage({ ...repos, starts: starts(), now }, input)),
    markDispatched: (input) => markDispatched({ ...repos, now }, input.eventKey),
    deliverAttempt: (input) => withAttempt(() => deliverAttempt({ ...repos, sender, now }, input)),
    finishMessage: (input) => finishMessage(repos, input),
    disableEndpoint: (input) => withAttempt(() => disableEndpoint(disableDeps(), input)),
    forwardUndispatchedEvents: (input) => withAttempt(() => relayUndispatched({ ...repos, starts: starts(), now }, input)),
  };
}
