/**
 * What comes back about readers' mail (issue 40): a delivery-status notification (a bounce) or a
 * feedback report (a complaint) naming one of our alerts or digests by its Message-ID. Readers'
 * mail goes out with our inbound mailbox as its return path (READER_MAIL_RETURN_PATH), so both
 * arrive through the inbound path of the e-mail channel, whose processing hands them here when the
 * Message-ID is not the desk's.
 *
 * - A hard bounce (5.x.x) suppresses the address: no alert or digest goes to it until the reader
 *   proves it again. The mail is marked `bounced`. A delay (4.x.x) changes nothing.
 * - A complaint (any feedback type but `not-spam`) suppresses the address too, and switches the
 *   reader's e-mail alerts and digest off: they asked not to get our mail, which one-click
 *   unsubscribe would have done.
 *
 * Only a Message-ID found in our ledger counts: a report about mail we did not send changes nothing.
 */
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import type { ReaderMailRepo } from '../../models/news/reader-mail.repo';

export interface ReaderMailFeedbackDeps {
  readerMail: Pick<ReaderMailRepo, 'byMessageId' | 'markBounced' | 'suppress'>;
  preferences: Pick<PreferencesRepo, 'update'>;
  now: () => Date;
}

/** One recipient of a bounce, as the DSN reported it. */
export interface BouncedRecipient {
  address: string;
  status: string;
  diagnostic: string;
  hard: boolean;
}

/**
 * A bounce about a reader mail: null when the Message-ID is none of ours (the caller goes on), else
 * the addresses suppressed. The record's own address is suppressed when the DSN's recipient is
 * missing or rewritten (a forwarding address): the mail failed for good, and it went to that one.
 */
export async function readerMailBounced(deps: ReaderMailFeedbackDeps, originalMessageId: string, recipients: readonly BouncedRecipient[]): Promise<{ mailId: string; suppressed: string[] } | null> {
  const mail = await deps.readerMail.byMessageId(originalMessageId);
  if (!mail) return null;
  const hard = recipients.filter((r) => r.hard);
  if (hard.length === 0) return { mailId: mail._id, suppressed: [] };
  const now = deps.now();
  const detail = hard.map((r) => `${r.address}: ${r.status} ${r.diagnostic}`.trim()).join('; ');
  await deps.readerMail.suppress(mail.to, 'bounce', detail, mail._id, now);
  await deps.readerMail.markBounced(mail._id, detail, now);
  return { mailId: mail._id, suppressed: [mail.to.toLowerCase()] };
}

/**
 * A complaint about a reader mail: null when the Message-ID is none of ours, else what was done
 * (a `not-spam` report does nothing).
 */
export async function readerMailComplained(deps: ReaderMailFeedbackDeps, originalMessageId: string, feedbackType: string): Promise<{ mailId: string; suppressed: string[] } | null> {
  const mail = await deps.readerMail.byMessageId(originalMessageId);
  if (!mail) return null;
  if (feedbackType === 'not-spam') return { mailId: mail._id, suppressed: [] };
  await deps.readerMail.suppress(mail.to, 'complaint', `feedback-type ${feedbackType}`, mail._id, deps.now());
  await deps.preferences.update(mail.userId, { $set: { 'notificationSettings.email': false, 'notificationSettings.digest': false } });
  return { mailId: mail._id, suppressed: [mail.to.toLowerCase()] };
}
