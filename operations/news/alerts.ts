/**
 * Breaking alerts on every channel (issue 40), the use cases of newsAlertsWorkflow's activities:
 * who is told of a breaking article and on which channel (a page of readers at a time, by the one
 * rule, audience.rules whoIsTold, each reader's one alert claimed for that channel), and sending a
 * batch of alerts by e-mail. WhatsApp's batches go through operations/whatsapp/alerts sendAlerts,
 * with its hourly cap and templates.
 */
import { AppError } from '../../models/errors';
import type { Mailer } from '../../models/infra/mail';
import type { ArticleQueries } from '../../models/news/article-query';
import type { AlertClaimRepo } from '../../models/news/alert-claim.repo';
import { ALERT_CHANNELS, whoIsTold, type AlertChannel } from '../../models/news/audience.rules';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import type { ReaderLanguage } from '../../models/news/preferences.rules';
import type { PushSubscriptionRepo } from '../../models/news/push-subscription.repo';
import { readerMessageId, unsubscribeToken } from '../../models/news/reader-mail-ids';
import type { ReaderMailRepo } from '../../models/news/reader-mail.repo';
import { composeAlertMail, listHeaders } from '../../models/news/reader-mail.rules';
import type { UserRepo } from '../../models/users/user.repo';
import type { WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import type { Recipient } from '../whatsapp/alerts';

/** WhatsApp's customer-service window: free-form text reaches a phone that wrote within it. */
const SERVICE_WINDOW_MS = 24 * 3_600_000;

/** The channels this deployment delivers alerts on (push reaches a reader with a subscribed browser). */
const DELIVERED: readonly AlertChannel[] = ['push', 'whatsapp', 'email'];

export interface AlertAudienceDeps {
  articles: Pick<ArticleQueries, 'alertTarget'>;
  preferences: Pick<PreferencesRepo, 'alertCandidates'>;
  whatsapp: Pick<WhatsAppRepo, 'phonesOf'>;
  users: Pick<UserRepo, 'verifiedEmails'>;
  pushSubscriptions: Pick<PushSubscriptionRepo, 'subscribedOf'>;
  claims: Pick<AlertClaimRepo, 'claimMany'>;
  /** Addresses that bounced or complained are not reachable. */
  readerMail: Pick<ReaderMailRepo, 'suppressedOf'>;
  /** Whether WhatsApp's Cloud API is configured here: without it no phone is reachable. */
  whatsappEnabled: boolean;
  /** Whether Web Push (VAPID) is configured here: without it no browser is reachable. */
  pushEnabled: boolean;
  now: () => Date;
}

/** A reader an alert is pushed to (to each of their subscribed browsers). */
export interface PushRecipient {
  userId: string;
  language: ReaderLanguage;
}

/** A reader an alert is mailed to. */
export interface MailRecipient {
  userId: string;
  to: string;
  language: ReaderLanguage;
}

export interface AlertAudience {
  /** The article's title; null when it is not (or no longer) a breaking article: nobody is told. */
  title: string | null;
  push: PushRecipient[];
  whatsapp: Recipient[];
  email: MailRecipient[];
  next: string | null;
}

/**
 * A page of the readers told of a breaking article, by channel: the readers the one rule tells
 * (breaking, at or above their minimum score, followed, not in quiet hours) on the first channel
 * they turned on that reaches them (a subscribed browser; a linked phone; a proven address), each
 * claimed once for the article (a retry of this page claims the same). By account id, `limit` after `after`; `next`
 * is where the following page starts (null: none).
 */
export async function alertAudience(deps: AlertAudienceDeps, input: { articleId: string; after: string | null; limit: number }): Promise<AlertAudience> {
  const article = await deps.articles.alertTarget(input.articleId);
  if (!article?.isBreaking) return { title: null, push: [], whatsapp: [], email: [], next: null };
  const now = deps.now();
  const page = await deps.preferences.alertCandidates(article, input.after, input.limit, ALERT_CHANNELS);
  const ids = page.map((p) => p._id);
  const [phones, addresses, browsers] = await Promise.all([
    deps.whatsappEnabled ? deps.whatsapp.phonesOf(ids).then((cs) => new Map(cs.map((c) => [c.userId!, c]))) : new Map<string, never>(),
    deps.users.verifiedEmails(ids),
    deps.pushEnabled ? deps.pushSubscriptions.subscribedOf(ids) : new Set<string>(),
  ]);
  const suppressed = await deps.readerMail.suppressedOf([...addresses.values()]);
  const windowStart = now.getTime() - SERVICE_WINDOW_MS;
  const audience: AlertAudience = { title: article.title, push: [], whatsapp: [], email: [], next: page.length === input.limit ? page[page.length - 1]!._id : null };
  const tells = page.flatMap((reader) => {
    const phone = phones.get(reader._id);
    const proven = addresses.get(reader._id);
    const address = proven && !suppressed.has(proven.toLowerCase()) ? proven : undefined;
    const told = whoIsTold({ follows: reader, settings: reader.settings, reachable: { push: browsers.has(reader._id), whatsapp: phone !== undefined, email: address !== undefined } }, article, now, DELIVERED);
    return told.told ? [{ reader, phone, address, channel: told.channel }] : [];
  });
  const held = await deps.claims.claimMany(article._id, tells.map((t) => ({ userId: t.reader._id, channel: t.channel })), now);
  for (const { reader, phone, address, channel } of tells) {
    if (!held.has(reader._id)) continue;
    if (channel === 'push') audience.push.push({ userId: reader._id, language: reader.settings.language });
    if (channel === 'whatsapp' && phone) audience.whatsapp.push({ userId: reader._id, phone: phone._id, inWindow: (phone.lastInboundAt?.getTime() ?? 0) > windowStart });
    if (channel === 'email' && address) audience.email.push({ userId: reader._id, to: address, language: reader.settings.language });
  }
  return audience;
}

export interface MailAlertsDeps {
  articles: Pick<ArticleQueries, 'alertArticle'>;
  readerMail: Pick<ReaderMailRepo, 'begin' | 'end'>;
  mailer: Pick<Mailer, 'send'>;
  /** The sender (READER_MAIL_FROM, else MAIL_FROM), the domain lists are named under, the dashboard's address, and the key of tokens. */
  mail: { from: string; domain: string; webUrl: string; secret: string; returnPath?: string | undefined };
  now: () => Date;
}

/** Alerts mailed at once: the mailer pools a few connections. */
const MAIL_CONCURRENCY = 4;

/**
 * Mails a breaking article's alert to each recipient once (record `alert:<article>:<user>`): a
 * server out of reach or answering 4xx fails the batch, to be retried (what was sent is not sent
 * again, and a mail whose attempt died after the server took it goes again with its Message-ID);
 * a permanent refusal (5xx) ends that mail `failed` and the rest go on. Once `signal` aborts (the
 * attempt is over), no further recipient is begun.
 */
export async function sendMailAlerts(deps: MailAlertsDeps, input: { articleId: string; recipients: MailRecipient[] }, signal: AbortSignal): Promise<{ sent: number; failed: number; skipped: number }> {
  const article = await deps.articles.alertArticle(input.articleId);
  if (!article) return { sent: 0, failed: 0, skipped: input.recipients.length };
  let sent = 0;
  let failed = 0;
  let skipped = 0;
  const queue = [...input.recipients];
  const mailOne = async (r: MailRecipient): Promise<void> => {
    signal.throwIfAborted();
    const key = `alert:${input.articleId}:${r.userId}`;
    const record = await deps.readerMail.begin({ _id: key, kind: 'alert', userId: r.userId, to: r.to, messageId: readerMessageId(deps.mail.secret, key, deps.mail.domain) }, deps.now());
    if (!record) {
      skipped += 1; // sent or refused before
      return;
    }
    const unsubscribeUrl = `${deps.mail.webUrl}/unsubscribe/${unsubscribeToken(deps.mail.secret, r.userId, 'alerts')}`;
    const composed = composeAlertMail(
      { title: article.title, summary: article.summary, sourceName: article.sourceName, url: article.sourceUrl, publishedAt: article.publishedAt },
      r.language,
      { unsubscribeUrl, preferencesUrl: `${deps.mail.webUrl}/account/preferences` },
    );
    try {
      const answer = await deps.mailer.send({ to: record.to, from: deps.mail.from, messageId: record.messageId, ...composed, headers: listHeaders({ list: 'alerts', domain: deps.mail.domain, unsubscribeUrl }), ...(deps.mail.returnPath ? { envelopeFrom: deps.mail.returnPath } : {}) });
      await deps.readerMail.end(key, 'sent', answer?.response ?? '', deps.now());
      sent += 1;
    } catch (err) {
      // Out of reach or a temporary answer: the batch is retried. A refusal ends this mail.
      if (err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE') throw err;
      await deps.readerMail.end(key, 'failed', (err as Error).message, deps.now());
      failed += 1;
    }
  };
  await Promise.all(
    Array.from({ length: MAIL_CONCURRENCY }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) await mailOne(r);
    }),
  );
  return { sent, failed, skipped };
}
