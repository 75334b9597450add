/**
 * One-click unsubscribe (issue 40; RFC 8058): the address in a reader mail's List-Unsubscribe
 * header, posted by the mailbox provider (no sign-in, no cookie) or by the page its link opens,
 * switches that list's setting off. Idempotent: a second post answers the same. A token we did not
 * sign is not found (404), whatever it names.
 */
import { notFound } from '../../models/errors';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import { readUnsubscribeToken } from '../../models/news/reader-mail-ids';
import { SETTING_OF_LIST, type ReaderList } from '../../models/news/reader-mail.rules';

export interface UnsubscribeDeps {
  preferences: Pick<PreferencesRepo, 'update'>;
  /** The key tokens are signed with (WEB_SECRET). */
  secret: string;
}

/** Switches the token's list off for its reader. */
export async function unsubscribe(deps: UnsubscribeDeps, token: string): Promise<{ list: ReaderList; unsubscribed: true }> {
  const target = readUnsubscribeToken(deps.secret, token);
  if (!target) throw notFound('unsubscribe link');
  await deps.preferences.update(target.userId, { $set: { [`notificationSettings.${SETTING_OF_LIST[target.list]}`]: false } });
  return { list: target.list, unsubscribed: true };
}
