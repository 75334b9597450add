/**
 * Links to a ticket's file that are too large to attach to a mail (issue 39): the support service's
 * `GET /support/arquivos/{id}?expira=…&assinatura=…` serves the file to whoever holds a link that is
 * unexpired and signed with the desk's mail secret (HMAC-SHA256 over the file's id and the expiry).
 * The requester has no token; the link in their mail is their key, so it expires.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a link in a mail opens its file. */
export const FILE_LINK_TTL_SECONDS = 30 * 24 * 3600;

const mac = (secret: string, attachmentId: number, expires: number) => createHmac('sha256', secret).update(`file-link.${attachmentId}.${expires}`).digest('base64url');

/** The link's query for a file, valid until `now + ttl`. */
export function signFileLink(secret: string, attachmentId: number, now: Date, ttlSeconds = FILE_LINK_TTL_SECONDS): { expira: number; assinatura: string } {
  const expira = Math.floor(now.getTime() / 1000) + ttlSeconds;
  return { expira, assinatura: mac(secret, attachmentId, expira) };
}

/** Whether a link's query opens the file now: signed for this file and not expired. */
export function fileLinkValid(secret: string, attachmentId: number, expira: number, assinatura: string, now: Date): boolean {
  if (!Number.isSafeInteger(expira) || expira * 1000 < now.getTime()) return false;
  const expected = Buffer.from(mac(secret, attachmentId, expira));
  const given = Buffer.from(assinatura);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
