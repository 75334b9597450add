/**
 * Activities of the WhatsApp workflows (issue 15). The use cases are the WhatsApp operations:
 * a conversation's steps (operations/whatsapp/conversation.ts), alerts (alerts.ts) and sending
 * once under a key (outbound.ts). An activity gives them the worker's repositories and Cloud API
 * client, built once here, and keeps what is Temporal's: the attempt's end stopping a batch of
 * alerts (activities/attempt.ts), and failures no retry changes as non-retryable ApplicationFailures.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createWhatsAppClient, WhatsAppSendError, type WhatsAppClient } from '../models/infra/whatsapp';
import { createArticleQueries } from '../models/news/article-query';
import { createAlertClaimRepo } from '../models/news/alert-claim.repo';
import { createPreferencesRepo } from '../models/news/preferences.repo';
import { createUserRepo } from '../models/users/user.repo';
import { createWhatsAppRepo } from '../models/whatsapp/whatsapp.repo';
import { alertRecipients, sendAlerts } from '../operations/whatsapp/alerts';
import * as conversation from '../operations/whatsapp/conversation';
import { sendOnce, WhatsAppNotConfigured } from '../operations/whatsapp/outbound';
import { WHATSAPP_FAILURES } from '../workflows/whatsapp/failures';
import type { WhatsAppActivities } from '../workflows/whatsapp/activities';
import { withAttempt } from './attempt';

export interface WhatsAppActivityDeps {
  conn: Connection;
  config: Pick<Config, 'whatsapp'>;
  /** Derives log-in codes (HMAC of the code message's key); without one, log-in codes are refused. */
  codeSecret: string | undefined;
  /** Undefined: made from the configuration (tests pass their own). */
  client?: WhatsAppClient | undefined;
  now?: () => Date;
}

/** What no retry changes fails the activity for good; anything else (429, 5xx, the network) is retried with backoff. */
function asFailure(err: unknown): unknown {
  if (err instanceof WhatsAppNotConfigured) return ApplicationFailure.create({ type: WHATSAPP_FAILURES.notConfigured, nonRetryable: true, message: err.message });
  if (err instanceof WhatsAppSendError && !err.retryable) return ApplicationFailure.create({ type: WHATSAPP_FAILURES.rejected, nonRetryable: true, message: err.message, details: [{ status: err.status, code: err.code }] });
  return err;
}

/** `run`, its failures mapped by {@link asFailure}. */
async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asFailure(err);
  }
}

export function createWhatsAppActivities(deps: WhatsAppActivityDeps): WhatsAppActivities {
  const api = deps.config.whatsapp.api;
  // The worker's ports, built once: each operation takes the part it uses.
  const ports = {
    whatsapp: createWhatsAppRepo(deps.conn),
    users: createUserRepo(deps.conn),
    preferences: createPreferencesRepo(deps.conn),
    claims: createAlertClaimRepo(deps.conn),
    articles: createArticleQueries(deps.conn),
    client: deps.client ?? (api ? createWhatsAppClient({ apiUrl: api.url, accessToken: api.accessToken, phoneNumberId: api.phoneNumberId }) : undefined),
    codeSecret: deps.codeSecret,
    now: deps.now ?? (() => new Date()),
    alerts: { perHour: deps.config.whatsapp.alertsPerHour, template: deps.config.whatsapp.alertTemplate },
  };
  const { whatsapp } = ports;

  return {
    send: (input) => mapped(() => sendOnce(ports, input)),
    /** The stored message, and whether it was handled already (null: not stored). */
    async loadInbound(id) {
      const doc = await whatsapp.inboundById(id);
      return doc ? { content: doc.content, handled: doc.handledAt !== null } : null;
    },
    markHandled: (id) => whatsapp.markHandled(id),
    readerOf: (phone) => conversation.readerOf(ports, phone),
    latestNews: (userId) => conversation.latestNews(ports, userId),
    breakingNews: () => conversation.breakingNews(ports),
    accountSummary: (input) => conversation.accountSummary(ports, input),
    setAlerts: (input) => conversation.setAlerts(ports, input),
    loadPreferences: (userId) => conversation.loadPreferences(ports, userId),
    savePreferences: (input) => conversation.savePreferences(ports, input),
    signUp: (input) => conversation.signUp(ports, input),
    requestLoginCode: (input) => mapped(() => conversation.requestLoginCode(ports, input)),
    alertRecipients: (input) => alertRecipients(ports, input),
    sendAlerts: (input) => withAttempt(({ signal }) => mapped(() => sendAlerts(ports, input, signal))),
  };
}
