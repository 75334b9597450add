/**
 * The daily digest (issue 40), the use cases of newsDigestWorkflow's activities: which digest
 * hours are due at a slot (digest.rules dueHours over the zones readers use), and mailing a page of
 * the due readers their digest: each reader's top articles of the last 24 hours by the feed's
 * relevance (digest.rules digestOf), once per reader and local day (the record
 * `digest:<user>:<day>`), to a proven address that does not bounce or complain. A reader with
 * nothing to read that day gets no mail.
 */
import { AppError } from '../../models/errors';
import type { Mailer } from '../../models/infra/mail';
import type { ArticleQueries } from '../../models/news/article-query';
import { DIGEST_CANDIDATES, DIGEST_WINDOW_MS, digestDay, digestKey, digestOf, dueHours, type DigestCandidate, type DigestPageResult, type DueHour } from '../../models/news/digest.rules';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import { readerMessageId, unsubscribeToken } from '../../models/news/reader-mail-ids';
import type { ReaderMailRepo } from '../../models/news/reader-mail.repo';
import { composeDigestMail, listHeaders } from '../../models/news/reader-mail.rules';
import type { UserRepo } from '../../models/users/user.repo';

export interface DigestDeps {
  preferences: Pick<PreferencesRepo, 'digestTimeZones' | 'digestReaders'>;
  articles: Pick<ArticleQueries, 'digestCandidates'>;
  users: Pick<UserRepo, 'verifiedEmails'>;
  readerMail: Pick<ReaderMailRepo, 'begin' | 'end' | 'suppressedOf'>;
  mailer: Pick<Mailer, 'send'>;
  /** The sender, the domain lists are named under, the dashboard's address, the key of tokens, and where bounces go. */
  mail: { from: string; domain: string; webUrl: string; secret: string; returnPath?: string | undefined };
  /** The candidates of a slot, read once per process and slot (a run's pages share them). */
  candidates?: (slot: Date, read: () => Promise<DigestCandidate[]>) => Promise<DigestCandidate[]>;
  now: () => Date;
}

/** The digest hours due at `slot`, in the time zones readers with the digest on use. */
export async function digestDue(deps: Pick<DigestDeps, 'preferences'>, slot: Date): Promise<DueHour[]> {
  return dueHours(slot, await deps.preferences.digestTimeZones());
}

/** Digests mailed at once: the mailer pools a few connections. */
const MAIL_CONCURRENCY = 8;

/**
 * Mails a page of the readers due at `slot` (by user id after `after`) their digest. A mail server
 * out of reach or answering 4xx fails the page, to be retried: what was sent is not sent again. A
 * permanent refusal ends that reader's digest `failed` and the rest go on. Once `signal` aborts (the
 * attempt is over), no further reader is begun.
 */
export async function sendDigestPage(deps: DigestDeps, input: { slot: Date; due: DueHour[]; after: string | null; limit: number }, signal: AbortSignal): Promise<DigestPageResult> {
  const readers = await deps.preferences.digestReaders(input.due, input.after, input.limit);
  const result: DigestPageResult = { readers: readers.length, sent: 0, empty: 0, skipped: 0, failed: 0, next: readers.length === input.limit ? readers[readers.length - 1]!._id : null };
  if (readers.length === 0) return result;
  const until = input.slot;
  const read = () => deps.articles.digestCandidates(new Date(until.getTime() - DIGEST_WINDOW_MS), until, DIGEST_CANDIDATES);
  const [candidates, addresses] = await Promise.all([deps.candidates ? deps.candidates(input.slot, read) : read(), deps.users.verifiedEmails(readers.map((r) => r._id))]);
  const suppressed = await deps.readerMail.suppressedOf([...addresses.values()]);

  const queue = [...readers];
  const mailOne = async (prefs: (typeof readers)[number]): Promise<void> => {
    signal.throwIfAborted();
    const to = addresses.get(prefs._id);
    const items = digestOf(prefs, candidates, input.slot);
    if (!to || suppressed.has(to.toLowerCase()) || items.length === 0) {
      result.empty += 1;
      return;
    }
    const settings = prefs.notificationSettings;
    const day = digestDay(input.slot, settings.timeZone);
    const key = digestKey(prefs._id, day);
    const record = await deps.readerMail.begin({ _id: key, kind: 'digest', userId: prefs._id, to, messageId: readerMessageId(deps.mail.secret, key, deps.mail.domain) }, deps.now());
    if (!record) {
      result.skipped += 1;
      return;
    }
    const unsubscribeUrl = `${deps.mail.webUrl}/unsubscribe/${unsubscribeToken(deps.mail.secret, prefs._id, 'digest')}`;
    const composed = composeDigestMail(
      items.map(({ article }) => ({ title: article.title, summary: article.summary, sourceName: article.sourceName, url: article.sourceUrl, isBreaking: article.isBreaking })),
      day,
      settings.language,
      { unsubscribeUrl, preferencesUrl: `${deps.mail.webUrl}/account/preferences` },
    );
    try {
      const answer = await deps.mailer.send({
        to: record.to,
        from: deps.mail.from,
        messageId: record.messageId,
        ...composed,
        headers: listHeaders({ list: 'digest', domain: deps.mail.domain, unsubscribeUrl }),
        ...(deps.mail.returnPath ? { envelopeFrom: deps.mail.returnPath } : {}),
      });
      await deps.readerMail.end(key, 'sent', answer?.response ?? '', deps.now());
      result.sent += 1;
    } catch (err) {
      if (err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE') throw err;
      await deps.readerMail.end(key, 'failed', (err as Error).message, deps.now());
      result.failed += 1;
    }
  };
  await Promise.all(
    Array.from({ length: MAIL_CONCURRENCY }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) await mailOne(r);
    }),
  );
  return result;
}
