/**
 * Breaking-news alerts on WhatsApp (issue 15), the use cases of the alert workflow's activities:
 * who to alert (a page at a time), and sending a batch of alerts within each phone's hourly cap.
 */
import { WhatsAppSendError, type OutboundMessage } from '../../models/infra/whatsapp';
import type { ArticleQueries } from '../../models/news/article-query';
import { alertHour } from '../../models/news/alert.rules';
import type { AlertClaimRepo } from '../../models/news/alert-claim.repo';
import { whoIsTold } from '../../models/news/audience.rules';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import type { WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { sendOnce, type OutboundDeps } from './outbound';

/** WhatsApp's customer-service window: free-form text reaches a phone that wrote within it. */
const SERVICE_WINDOW_MS = 24 * 3_600_000;

/** Alerts a batch sends at once. */
const ALERT_CONCURRENCY = 8;

export interface AlertRecipientsDeps {
  articles: Pick<ArticleQueries, 'alertTarget'>;
  preferences: Pick<PreferencesRepo, 'alertCandidates'>;
  whatsapp: Pick<WhatsAppRepo, 'phonesOf'>;
  claims: Pick<AlertClaimRepo, 'claim'>;
  now: () => Date;
}

export interface Recipient {
  userId: string;
  phone: string;
  /** The phone wrote within WhatsApp's 24-hour window: the alert may be free-form text. */
  inWindow: boolean;
}

/**
 * A page of the readers to alert of a breaking article on WhatsApp: those the one rule
 * (audience.rules whoIsTold) tells on WhatsApp, a linked phone reaching them, and the claim of
 * their one alert for the article taken by WhatsApp (news_alert_claims: a channel before it that
 * told them first keeps it). By account id, `limit` after `after`; `next` is where the following
 * page starts (null: none).
 */
export async function alertRecipients(deps: AlertRecipientsDeps, input: { articleId: string; after: string | null; limit: number }): Promise<{ title: string | null; recipients: Recipient[]; next: string | null }> {
  const article = await deps.articles.alertTarget(input.articleId);
  if (!article?.isBreaking) return { title: article?.title ?? null, recipients: [], next: null };
  const now = deps.now();
  const page = await deps.preferences.alertCandidates(article, input.after, input.limit, ['whatsapp']);
  const phones = new Map((await deps.whatsapp.phonesOf(page.map((p) => p._id))).map((c) => [c.userId!, c]));
  const windowStart = now.getTime() - SERVICE_WINDOW_MS;
  const recipients: Recipient[] = [];
  for (const candidate of page) {
    const contact = phones.get(candidate._id);
    // The channels this workflow delivers: WhatsApp (push and e-mail join the same rule in their own turn).
    const told = whoIsTold({ follows: candidate, settings: candidate.settings, reachable: { whatsapp: contact !== undefined } }, article, now, ['whatsapp']);
    if (!told.told || !contact || !(await deps.claims.claim(article._id, candidate._id, told.channel, now))) continue;
    recipients.push({ userId: candidate._id, phone: contact._id, inWindow: (contact.lastInboundAt?.getTime() ?? 0) > windowStart });
  }
  return { title: article.title, recipients, next: page.length === input.limit ? page[page.length - 1]!._id : null };
}

export interface SendAlertsDeps extends OutboundDeps {
  whatsapp: OutboundDeps['whatsapp'] & Pick<WhatsAppRepo, 'takeAlertSlot'>;
  /** Per phone and hour, and the approved template sent outside the 24-hour window. */
  alerts: { perHour: number; template: { name: string; language: string } };
  now: () => Date;
}

/**
 * Sends a breaking article's alert to each recipient once (key `alert:<article>:<phone>`), within
 * the hourly cap: as text inside WhatsApp's 24-hour window, else as the approved template. A
 * throttled or failing API fails the batch, to be retried (what was sent is not sent again); a
 * refused message is counted and the rest go on. Once `signal` aborts (the attempt is over), no
 * further recipient is begun.
 */
export async function sendAlerts(deps: SendAlertsDeps, input: { articleId: string; title: string; recipients: { phone: string; inWindow: boolean }[] }, signal: AbortSignal): Promise<{ sent: number; capped: number; refused: number }> {
  const hour = alertHour(deps.now());
  const { template } = deps.alerts;
  let sent = 0;
  let capped = 0;
  let refused = 0;
  // Readers are independent (one alert per phone and article): a few at a time, not one by one.
  const queue = [...input.recipients];
  const alert = async (r: { phone: string; inWindow: boolean }): Promise<void> => {
    signal.throwIfAborted();
    const key = `alert:${input.articleId}:${r.phone}`;
    if (!(await deps.whatsapp.takeAlertSlot(r.phone, hour, deps.alerts.perHour, key))) {
      capped += 1;
      return;
    }
    const message: OutboundMessage = r.inWindow
      ? { type: 'text', text: `🚨 Urgente: *${input.title}*\n\nEnvie *noticias* para ver mais, ou *parar* para pausar os alertas.` }
      : { type: 'template', name: template.name, language: template.language, parameters: [input.title.slice(0, 900)] };
    try {
      await sendOnce(deps, { key, phone: r.phone, kind: 'alert', message });
      sent += 1;
    } catch (err) {
      if (err instanceof WhatsAppSendError && !err.retryable) refused += 1;
      else throw err;
    }
  };
  await Promise.all(
    Array.from({ length: ALERT_CONCURRENCY }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) await alert(r);
    }),
  );
  return { sent, capped, refused };
}
