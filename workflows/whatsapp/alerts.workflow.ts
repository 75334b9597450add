/**
 * The WhatsApp alerts of one breaking article (`whatsapp-alerts-<articleId>`, started once per
 * article by the import that inserted it; issue 15, docs/decisions.md "WhatsApp"): every reader
 * with WhatsApp alerts on whose sectors, topics, watchlist or keywords the article matches gets one
 * message, within the hourly cap per reader; as text inside WhatsApp's 24-hour customer-service
 * window, else as the approved template. Readers are read a page at a time, so a run's history
 * stays small however many there are.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { WhatsAppActivities } from './activities';
import { RETRY, withNonRetryable } from '../retry-policies';
import { WHATSAPP_FAILURES } from './failures';

type Activities = WhatsAppActivities;

// A page that cannot be read after these tries fails the run: its alerts would come too late anyway.
const { alertRecipients } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: RETRY.short,
});

// A batch is retried while the Cloud API throttles or fails (what was sent is not sent again);
// an alert is worth little after a few hours, so the retries stop after about that.
const { sendAlerts } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: withNonRetryable(RETRY.alerts, [WHATSAPP_FAILURES.notConfigured]),
});

export interface WhatsAppAlertsInput {
  articleId: string;
  /** Readers per page. */
  pageSize?: number;
}

export interface WhatsAppAlertsResult {
  recipients: number;
  sent: number;
  capped: number;
  refused: number;
}

export async function whatsappAlertsWorkflow(input: WhatsAppAlertsInput): Promise<WhatsAppAlertsResult> {
  const result: WhatsAppAlertsResult = { recipients: 0, sent: 0, capped: 0, refused: 0 };
  let after: string | null = null;
  do {
    const page: Awaited<ReturnType<Activities['alertRecipients']>> = await alertRecipients({ articleId: input.articleId, after, limit: input.pageSize ?? 500 });
    if (page.title === null) return result; // not (or no longer) a breaking article
    result.recipients += page.recipients.length;
    for (let i = 0; i < page.recipients.length; i += 50) {
      const batch = await sendAlerts({ articleId: input.articleId, title: page.title, recipients: page.recipients.slice(i, i + 50) });
      result.sent += batch.sent;
      result.capped += batch.capped;
      result.refused += batch.refused;
    }
    after = page.next;
  } while (after !== null);
  return result;
}
