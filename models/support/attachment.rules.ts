/**
 * A ticket's files (support-ticket-api.md §4.5–4.8): which types are accepted, how large a file may
 * be, how a type is read from the file's content, and the names a file is kept and served under.
 * Shared by the upload route (api/support/tickets/attachments.ts) and the mail the requester sends
 * (mail-in.rules.ts, issue 39). Computation only: `detectType` reads bytes it is given with
 * file-type, nothing here touches a file, the network or a store.
 */
import { fileTypeFromBuffer } from 'file-type';

/** The largest file a ticket accepts (spec §4.5: 10 MB). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export const ALLOWED_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/csv',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;
export type AllowedType = (typeof ALLOWED_TYPES)[number];

/** How many first bytes of a file `detectType` needs (file-type reads at most this far). */
export const SNIFF_BYTES = 4_100;

/**
 * The type of a file from its first bytes. Text files have no signature: they are accepted as
 * text/csv or text/plain when the bytes are UTF-8 without NULs. Old Excel files are OLE compound
 * files (file-type: application/x-cfb), accepted as Excel only when declared so.
 */
export async function detectType(head: Buffer, declared: string, filename: string): Promise<string | undefined> {
  const found = await fileTypeFromBuffer(head);
  if (found) {
    if (found.mime === 'application/x-cfb') return declared === 'application/vnd.ms-excel' || /\.xls$/i.test(filename) ? 'application/vnd.ms-excel' : undefined;
    return (ALLOWED_TYPES as readonly string[]).includes(found.mime) ? found.mime : undefined;
  }
  if (head.includes(0)) return undefined;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
  } catch {
    return undefined;
  }
  return declared === 'text/csv' || /\.csv$/i.test(filename) ? 'text/csv' : 'text/plain';
}

/** A file name safe to keep in an object key: letters, digits, dot, dash, underscore. */
export function keySafeName(name: string): string {
  const base = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (base || 'arquivo').slice(-100);
}

/** The name with accents stripped and anything outside printable ASCII replaced. */
export function asciiName(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '_') || 'arquivo';
}
