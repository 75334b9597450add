/**
 * The webhook messages of one event of the log (`webhook-fanout-<key>`, issue 40, part 5): started
 * by the activity that appended the event (and by the relay for one it missed), it reads the
 * subscribed endpoints a page at a time; each page's activity stores the page's messages and starts
 * their workflows (webhookMessageWorkflow), so the history holds a few events per page, however many
 * endpoints there are. Then the event is marked dispatched.
 */
import { proxyActivities } from '@temporalio/workflow';
import { FAN_OUT_PAGE } from '../../models/events/webhook-message.rules';
import { RETRY } from '../retry-policies';
import type { WebhookActivities } from './activities';

const { fanOutPage, markDispatched } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '2 minutes',
  // A page repeated makes no message twice; a run that gives up is started again by the relay.
  retry: RETRY.short,
});

export interface WebhookFanOutInput {
  eventKey: string;
  /** Endpoints per page. */
  pageSize?: number;
}

export async function webhookFanOutWorkflow(input: WebhookFanOutInput): Promise<{ messages: number; pages: number }> {
  let after: string | null = null;
  let messages = 0;
  let pages = 0;
  do {
    const page: { messages: number; next: string | null } = await fanOutPage({ eventKey: input.eventKey, after, limit: input.pageSize ?? FAN_OUT_PAGE });
    messages += page.messages;
    pages += 1;
    after = page.next;
  } while (after !== null);
  await markDispatched({ eventKey: input.eventKey });
  return { messages, pages };
}
