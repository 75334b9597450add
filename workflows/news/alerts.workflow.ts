/**
 * The breaking alerts of one article on every channel (`news-alerts-<articleId>`, started once per
 * article by the import or the enrichment that published it; issue 40, docs/decisions.md "Events
 * out"): the readers the one rule tells, a page at a time, each on one channel (a browser by
 * Web Push, WhatsApp or e-mail), each once. Batches of 50 per channel; a page's batches run one
 * after another, so a run's history stays small however many readers there are. Replaces whatsappAlertsWorkflow for new
 * articles (that one stays registered while runs started before finish).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { NewsAlertActivities } from './activities';
import { RETRY, withNonRetryable } from '../retry-policies';
import { WHATSAPP_FAILURES } from '../whatsapp/failures';

// A page that cannot be read after these tries fails the run: its alerts would come too late anyway.
const { alertAudience } = proxyActivities<NewsAlertActivities>({
  startToCloseTimeout: '1 minute',
  retry: RETRY.short,
});

// A batch is retried while the Cloud API or the mail server throttles or fails (what was sent is
// not sent again); an alert is worth little after a few hours, so the retries stop after about that.
const { sendAlerts, sendMailAlerts, sendPushAlerts } = proxyActivities<NewsAlertActivities>({
  startToCloseTimeout: '5 minutes',
  retry: withNonRetryable(RETRY.alerts, [WHATSAPP_FAILURES.notConfigured]),
});

export interface NewsAlertsInput {
  articleId: string;
  /** Readers per page. */
  pageSize?: number;
}

export interface NewsAlertsResult {
  /** Absent from runs that had no push recipient (and from those recorded before push alerts). */
  push?: { recipients: number; sent: number; gone: number; refused: number; unsubscribed: number };
  whatsapp: { recipients: number; sent: number; capped: number; refused: number };
  email: { recipients: number; sent: number; failed: number; skipped: number };
}

const BATCH = 50;

export async function newsAlertsWorkflow(input: NewsAlertsInput): Promise<NewsAlertsResult> {
  const result: NewsAlertsResult = { whatsapp: { recipients: 0, sent: 0, capped: 0, refused: 0 }, email: { recipients: 0, sent: 0, failed: 0, skipped: 0 } };
  let after: string | null = null;
  do {
    const page: Awaited<ReturnType<NewsAlertActivities['alertAudience']>> = await alertAudience({ articleId: input.articleId, after, limit: input.pageSize ?? 500 });
    if (page.title === null) return result; // not (or no longer) a breaking article
    result.whatsapp.recipients += page.whatsapp.length;
    result.email.recipients += page.email.length;
    // Push first, as the channels are ordered; histories recorded before push alerts have no `push`.
    const push = page.push ?? [];
    if (push.length > 0) {
      const counts = (result.push ??= { recipients: 0, sent: 0, gone: 0, refused: 0, unsubscribed: 0 });
      counts.recipients += push.length;
      for (let i = 0; i < push.length; i += BATCH) {
        const batch = await sendPushAlerts({ articleId: input.articleId, recipients: push.slice(i, i + BATCH) });
        counts.sent += batch.sent;
        counts.gone += batch.gone;
        counts.refused += batch.refused;
        counts.unsubscribed += batch.unsubscribed;
      }
    }
    for (let i = 0; i < page.whatsapp.length; i += BATCH) {
      const batch = await sendAlerts({ articleId: input.articleId, title: page.title, recipients: page.whatsapp.slice(i, i + BATCH) });
      result.whatsapp.sent += batch.sent;
      result.whatsapp.capped += batch.capped;
      result.whatsapp.refused += batch.refused;
    }
    for (let i = 0; i < page.email.length; i += BATCH) {
      const batch = await sendMailAlerts({ articleId: input.articleId, recipients: page.email.slice(i, i + BATCH) });
      result.email.sent += batch.sent;
      result.email.failed += batch.failed;
      result.email.skipped += batch.skipped;
    }
    after = page.next;
  } while (after !== null);
  return result;
}
