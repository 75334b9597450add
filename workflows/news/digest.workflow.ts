/**
 * The daily digest (issue 40; docs/decisions.md "Events out"): one run per slot of the digest
 * schedule (every 15 minutes), which mails the readers whose digest hour it is in their time zone
 * (digest.rules), a page at a time. Each reader's digest is one mail per local day, whatever the
 * run's retries, so a run taken again sends nothing twice. Long runs continue as new every
 * PAGES_PER_RUN pages, so the history stays small at any number of readers.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { NewsDigestActivities } from './activities';
import { RETRY } from '../retry-policies';

const { digestDue } = proxyActivities<NewsDigestActivities>({
  startToCloseTimeout: '1 minute',
  retry: RETRY.short,
});

// A page is retried while the mail server is out of reach (what was sent is not sent again); the
// next slot's run does not take this slot's readers, so the retries last a few hours.
const { sendDigestPage } = proxyActivities<NewsDigestActivities>({
  startToCloseTimeout: '10 minutes',
  retry: RETRY.alerts,
});

export interface NewsDigestInput {
  /** The slot (ISO instant); absent: the scheduled time of the schedule's run, else the run's start. */
  slot?: string;
  /** Readers per page. */
  pageSize?: number;
  /** Pages per run before it continues as new (PAGES_PER_RUN; tests make it small). */
  pagesPerRun?: number;
  /** Where a run continued as new picks up: the slot's due hours and the last reader done. */
  resume?: { due: { timeZone: string; hour: number }[]; after: string };
  /** The counts so far (a continued run carries them). */
  totals?: NewsDigestResult;
}

export interface NewsDigestResult {
  slot: string;
  readers: number;
  sent: number;
  empty: number;
  skipped: number;
  failed: number;
}

const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);
const SLOT_MS = 15 * 60_000;
/** Pages per run before it continues as new (a page is a handful of history events). */
const PAGES_PER_RUN = 500;

export async function newsDigestWorkflow(input: NewsDigestInput = {}): Promise<NewsDigestResult> {
  const info = workflowInfo();
  const at = input.slot ? new Date(input.slot) : (info.typedSearchAttributes.get(SCHEDULED_START) ?? info.runStartTime);
  const slot = new Date(Math.floor(at.getTime() / SLOT_MS) * SLOT_MS).toISOString();
  const totals: NewsDigestResult = input.totals ?? { slot, readers: 0, sent: 0, empty: 0, skipped: 0, failed: 0 };
  const due = input.resume?.due ?? (await digestDue({ slot }));
  if (due.length === 0) return totals;
  let after: string | null = input.resume?.after ?? null;
  for (let pages = 0; ; pages += 1) {
    if (pages === (input.pagesPerRun ?? PAGES_PER_RUN) && after !== null) {
      const { resume: _resume, totals: _totals, ...kept } = input;
      await continueAsNew<typeof newsDigestWorkflow>({ ...kept, slot, resume: { due, after }, totals });
    }
    const page = await sendDigestPage({ slot, due, after, limit: input.pageSize ?? 200 });
    totals.readers += page.readers;
    totals.sent += page.sent;
    totals.empty += page.empty;
    totals.skipped += page.skipped;
    totals.failed += page.failed;
    if (page.next === null) return totals;
    after = page.next;
  }
}
