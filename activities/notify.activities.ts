/**
 * The readers' notification activities (issue 40; queue `news-notify`): who is told of a breaking
 * article on which channel, and each channel's batch: e-mail and Web Push here, WhatsApp through the WhatsApp
 * activities' own `sendAlerts` (its hourly cap and templates). Errors: a mail server out of reach
 * is retried (DEPENDENCY_UNAVAILABLE), WhatsApp's failures are mapped by its activities.
 */
import { Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createMailer, type Mailer } from '../models/infra/mail';
import { createWebPush, type WebPush } from '../models/infra/web-push';
import { createAlertClaimRepo } from '../models/news/alert-claim.repo';
import { createArticleQueries } from '../models/news/article-query';
import { createPreferencesRepo } from '../models/news/preferences.repo';
import { createPushSubscriptionRepo } from '../models/news/push-subscription.repo';
import { createReaderMailRepo } from '../models/news/reader-mail.repo';
import { createUserRepo } from '../models/users/user.repo';
import { createWhatsAppRepo } from '../models/whatsapp/whatsapp.repo';
import { alertAudience, sendMailAlerts } from '../operations/news/alerts';
import { digestDue, sendDigestPage } from '../operations/news/digest';
import type { DigestCandidate } from '../models/news/digest.rules';
import { sendPushAlerts } from '../operations/news/push-alerts';
import type { NewsAlertActivities, NewsDigestActivities } from '../workflows/news/activities';
import { withAttempt } from './attempt';
import { createWhatsAppActivities } from './whatsapp.activities';

export interface NotifyActivityDeps {
  conn: Connection;
  config: Pick<Config, 'mail' | 'devServices' | 'web' | 'whatsapp' | 'webPush' | 'isProduction'>;
  /** Undefined: made from the configuration (tests pass their own). */
  mailer?: Mailer;
  /** Undefined: made from the configuration when it has VAPID keys (tests pass their own). */
  webPush?: WebPush;
  now?: () => Date;
}

/** The domain of an address written `a@b` or `Name <a@b>`. */
const domainOf = (from: string) => /@([^\s<>@]+?)>?$/.exec(from.trim())?.[1] ?? 'localhost';

export function createNotifyActivities(deps: NotifyActivityDeps): NewsAlertActivities & NewsDigestActivities {
  const now = deps.now ?? (() => new Date());
  const p = deps.config.webPush;
  const webPush =
    deps.webPush ??
    (p.vapid ? createWebPush({ vapid: p.vapid, ...(p.caFile ? { caFile: p.caFile } : {}), timeoutMs: p.timeoutMs, endpointPolicy: { allowHosts: p.allowHosts, production: deps.config.isProduction } }) : undefined);
  const ports = {
    articles: createArticleQueries(deps.conn),
    preferences: createPreferencesRepo(deps.conn),
    whatsapp: createWhatsAppRepo(deps.conn),
    users: createUserRepo(deps.conn),
    claims: createAlertClaimRepo(deps.conn),
    pushSubscriptions: createPushSubscriptionRepo(deps.conn),
    webPush,
    pushEnabled: webPush !== undefined,
    readerMail: createReaderMailRepo(deps.conn),
    mailer: deps.mailer ?? createMailer(deps.config),
    whatsappEnabled: deps.config.whatsapp.api !== undefined,
    mail: {
      from: deps.config.mail.readerFrom,
      domain: domainOf(deps.config.mail.readerFrom),
      webUrl: deps.config.web.url.replace(/\/+$/, ''),
      secret: deps.config.web.secret,
      returnPath: deps.config.mail.readerReturnPath,
    },
    now,
  };
  // A digest run's pages share its slot's candidates: read once per process and slot.
  let slotCandidates: { slot: number; read: Promise<DigestCandidate[]> } | null = null;
  const candidates = (slot: Date, read: () => Promise<DigestCandidate[]>): Promise<DigestCandidate[]> => {
    if (slotCandidates?.slot !== slot.getTime()) {
      const entry = { slot: slot.getTime(), read: read() };
      entry.read.catch(() => {
        if (slotCandidates === entry) slotCandidates = null;
      });
      slotCandidates = entry;
    }
    return slotCandidates.read;
  };
  const whatsapp = createWhatsAppActivities({ conn: deps.conn, config: deps.config, codeSecret: undefined, ...(deps.now ? { now: deps.now } : {}) });
  return {
    alertAudience: (input) => alertAudience(ports, input),
    sendMailAlerts: (input) => withAttempt(({ signal }) => sendMailAlerts(ports, input, signal)),
    // The ledger of a batch's delivered subscriptions rides in the heartbeat details, which a
    // retried attempt starts from.
    sendPushAlerts: (input) =>
      withAttempt((attempt) => {
        const before = Context.current().info.heartbeatDetails as { delivered?: string[] } | undefined;
        return sendPushAlerts({ ...ports, warn: (message, meta) => Context.current().log.warn(message, meta) }, input, { signal: attempt.signal, delivered: before?.delivered ?? [], progress: (delivered) => attempt.heartbeat({ delivered }) });
      }),
    sendAlerts: (input) => whatsapp.sendAlerts(input),
    digestDue: ({ slot }) => digestDue(ports, new Date(slot)),
    sendDigestPage: (input) => withAttempt(({ signal }) => sendDigestPage({ ...ports, candidates }, { ...input, slot: new Date(input.slot) }, signal)),
  };
}
