/**
 * Support by e-mail (issue 39), a requester's mail through Mailgun's inbound webhook: one delivery
 * of a route's `forward()` to `…/support/inbound/mailgun/mime`, read by the route (its fields, and
 * `body-mime` up to the size limit), is checked and then accepted like a message the SMTP receiver
 * took (`acceptInboundMail`: stored in MinIO, recorded `via: 'mailgun'`, handed over to the
 * processing workflow). In this order, each refusal storing nothing:
 * 1. the signature (models/support/mailgun.ts): missing, wrong or more than 9 hours from now →
 *    UNAUTHENTICATED (401), before anything else is looked at;
 * 2. `body-mime` missing → VALIDATION_FAILED (400); larger than the limit → MESSAGE_REFUSED (406:
 *    Mailgun does not deliver it again);
 * 3. the recipients: none, or more than 50 → VALIDATION_FAILED; one that is not the desk's address
 *    or its `+tag` form → MESSAGE_REFUSED;
 * 4. the token, taken once (a unique index): a delivery seen before is answered as it was (200,
 *    the same record: Mailgun resending after a lost answer stores nothing twice, and neither
 *    does a replay); one still being stored → CONFLICT (409, Mailgun tries again later);
 * 5. stored and recorded; a MinIO or MongoDB fault → DEPENDENCY_UNAVAILABLE (503, Mailgun retries),
 *    nothing half-kept (acceptInboundMail's clean-up), and the token given back so that the retry
 *    is not taken for a replay.
 */
import { Readable } from 'node:stream';
import { AppError } from '../../models/errors';
import type { Logger } from '../../models/infra/logger';
import { isDeskRecipient } from '../../models/support/mail-in.rules';
import {
  MAILGUN_MAX_RECIPIENTS,
  MAILGUN_TOKEN_TTL_MS,
  mailgunRecipients,
  mailgunSender,
  receivedClient,
  UNKNOWN_CLIENT,
  verifyMailgunSignature,
  type MailgunSignatureFields,
} from '../../models/support/mailgun';
import type { MailgunTokenRepo } from '../../models/support/mailgun-token.repo';
import { acceptInboundMail, type InboundMailDeps } from './inbound-mail';

/** One delivery as the route read it. */
export interface MailgunDelivery extends MailgunSignatureFields {
  recipient?: string | undefined;
  sender?: string | undefined;
  /** `body-mime`'s bytes, at most the limit; `tooLarge` when there were more (the rest was read and dropped). */
  mime?: { chunks: Buffer[]; bytes: number; tooLarge: boolean } | undefined;
}

export interface MailgunMailDeps {
  /** What the SMTP receiver accepts a message with (storage, records, hand-over). */
  accept: InboundMailDeps;
  tokens: Pick<MailgunTokenRepo, 'claim' | 'stored' | 'release'>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  now?: () => Date;
}

export interface MailgunMailInput {
  delivery: MailgunDelivery;
  signingKey: string;
  deskAddress: string;
  maxBytes: number;
}

const SIGNATURE_REFUSED: Record<'missing' | 'bad-signature' | 'stale', string> = {
  missing: "Missing Mailgun signature: the body must carry timestamp, token and signature, as Mailgun's forward() posts them",
  'bad-signature': 'Invalid Mailgun signature: it must be the hex HMAC-SHA256 of timestamp and token with the webhook signing key',
  stale: 'The Mailgun timestamp is more than 9 hours from now: refused as a possible replay',
};

const refused = (message: string, details: Record<string, unknown>) => new AppError('MESSAGE_REFUSED', message, { details });
const tooLarge = (maxBytes: number) => refused(`The message exceeds the limit of ${maxBytes} bytes: refused for good (406: Mailgun does not deliver it again)`, { reason: 'too-large', maxBytes });

/** The first 64 KiB of the message (where its headers are), without copying the rest. */
function headOf(chunks: Buffer[]): Buffer {
  const head: Buffer[] = [];
  let bytes = 0;
  for (const chunk of chunks) {
    if (bytes >= 64 * 1024) break;
    head.push(chunk);
    bytes += chunk.length;
  }
  return Buffer.concat(head, bytes);
}

/** Accepts one delivery; resolves with the record's id once the message is stored and recorded. See the file's comment. */
export async function acceptMailgunMail(deps: MailgunMailDeps, input: MailgunMailInput): Promise<{ id: string; repeated: boolean }> {
  const { delivery, deskAddress, maxBytes } = input;
  const now = (deps.now ?? (() => new Date()))();
  const verdict = verifyMailgunSignature(input.signingKey, delivery, now);
  if (verdict !== 'ok') {
    deps.logger.info({ verdict }, 'mailgun delivery refused: signature');
    throw new AppError('UNAUTHENTICATED', SIGNATURE_REFUSED[verdict]);
  }

  const { mime } = delivery;
  if (!mime || mime.bytes === 0) throw new AppError('VALIDATION_FAILED', 'body-mime is missing: forward to a URL ending in /mime, so that Mailgun posts the raw message', { details: [{ path: 'body.body-mime', message: 'Required' }] });
  if (mime.tooLarge || mime.bytes > maxBytes) {
    deps.logger.info({ bytes: mime.bytes }, 'mailgun delivery refused: larger than the limit');
    throw tooLarge(maxBytes);
  }
  const recipients = mailgunRecipients(delivery.recipient ?? '');
  if (recipients.length === 0) throw new AppError('VALIDATION_FAILED', 'recipient is missing: the envelope recipients, comma-separated', { details: [{ path: 'body.recipient', message: 'Required' }] });
  if (recipients.length > MAILGUN_MAX_RECIPIENTS) throw new AppError('VALIDATION_FAILED', `At most ${MAILGUN_MAX_RECIPIENTS} recipients in one delivery`, { details: [{ path: 'body.recipient', message: `At most ${MAILGUN_MAX_RECIPIENTS}` }] });
  const others = recipients.filter((r) => !isDeskRecipient(r, deskAddress)).length;
  if (others > 0) {
    deps.logger.info({ recipients: recipients.length, others }, 'mailgun delivery refused: recipient not the desk');
    throw refused(`Not for this desk: ${others} of ${recipients.length} recipients are neither its address nor its +tag form`, { reason: 'recipient', refused: others });
  }

  const token = delivery.token!;
  const claim = await deps.tokens.claim(token, now, MAILGUN_TOKEN_TTL_MS);
  if (claim.state === 'stored') {
    deps.logger.info({ id: claim.recordId }, 'mailgun delivery seen before: answered as it was, nothing stored again');
    return { id: claim.recordId, repeated: true };
  }
  if (claim.state === 'in-flight') {
    deps.logger.warn({}, 'mailgun delivery refused: the same delivery is being stored');
    throw new AppError('CONFLICT', 'This Mailgun delivery is being received already (its token is in use): try again later');
  }
  try {
    const id = await acceptInboundMail(deps.accept, {
      stream: Readable.from(mime.chunks),
      envelope: { mailFrom: mailgunSender(delivery.sender), rcptTo: recipients },
      remote: receivedClient(headOf(mime.chunks)) ?? UNKNOWN_CLIENT,
      via: 'mailgun',
      maxBytes,
    });
    // The message is stored: a repeat of this delivery is answered with it. Should this write fail,
    // a repeat gets 409 until the token expires, and the message is kept either way.
    await deps.tokens.stored(token, id).catch((err: unknown) => deps.logger.warn({ err, id }, 'mailgun delivery stored; its token not marked'));
    return { id, repeated: false };
  } catch (err) {
    // Not kept: the token goes back, so Mailgun's retry of this delivery is no replay.
    await deps.tokens.release(token).catch((cleanup: unknown) => deps.logger.error({ err: cleanup }, 'mailgun delivery not kept, and its token could not be given back: a retry of it will be refused as a replay'));
    if (err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE') throw tooLarge(maxBytes);
    throw err;
  }
}
