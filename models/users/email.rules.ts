/**
 * Whose address is proven (issue 35, item 4: account pre-hijack). A user's `email` is a proven
 * address: a sign-in code mailed to it came back (`emailVerifiedAt`), or the identity provider's
 * token or the operator said so. An address typed on WhatsApp at sign-up is nobody's proof: it is
 * kept as `unverifiedEmail`, and a verified sign-in never adopts, nor links a phone to, the user
 * that holds it that way. Users WhatsApp made before this rule hold the typed address as `email`
 * with no `emailVerifiedAt`: they are told apart by their id (signUpUserId's prefix). Pure.
 */

/** The prefix of the ids of the users a WhatsApp sign-up makes (models/whatsapp/login-code.rules.ts). */
export const WHATSAPP_SIGN_UP_PREFIX = 'usr_wa_';

export interface EmailFacts {
  _id: string;
  email?: string | null | undefined;
  emailVerifiedAt?: Date | null | undefined;
  unverifiedEmail?: string | null | undefined;
}

/** Made by a WhatsApp sign-up, its address never proven since (before or after this rule). */
export function isUnprovenWhatsAppUser(user: EmailFacts): boolean {
  return user._id.startsWith(WHATSAPP_SIGN_UP_PREFIX) && !user.emailVerifiedAt;
}

/** The user's proven address, if it has one. */
export function verifiedEmailOf(user: EmailFacts): string | undefined {
  if (!user.email) return undefined;
  return isUnprovenWhatsAppUser(user) ? undefined : user.email;
}

/** The address the user gave but never proved (typed on WhatsApp), if any. */
export function unverifiedEmailOf(user: EmailFacts): string | undefined {
  if (verifiedEmailOf(user)) return undefined;
  return user.unverifiedEmail ?? user.email ?? undefined;
}
