/**
 * Signing outgoing webhooks as the Standard Webhooks specification (v1) says: a secret per
 * endpoint (`whsec_` and base64), and on every delivery the `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers, the signature an HMAC-SHA256 of `id.timestamp.body`. The signature
 * itself is computed by the specification's own library (standardwebhooks), so what we send is
 * by construction what its verifiers, in every language, accept.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The secret's prefix the specification gives, so a receiver can tell it from other tokens. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Names us to receivers, who may filter their logs or firewalls by it. */
export const WEBHOOK_USER_AGENT = 'NewsletterPlatform-Webhooks/1.0';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes (256 bits, as the HMAC's key). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * A new message id: `msg_` and 16 random bytes in base64url. The id is the same on every retry of
 * one message, so receivers can drop duplicates by it; base64url has no '.', which separates the
 * signed parts.
 */
export function newWebhookMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

export interface WebhookToSign {
  msgId: string;
  timestamp: Date;
  /** The exact bytes sent, as text: the signature covers them, not a re-serialisation. */
  body: string;
  /** The endpoint's secrets, the current one first; two while a rotation overlaps. */
  secrets: readonly string[];
}

/** The Unix seconds the signature covers, as the header carries them (whole seconds, no '.'). */
export const webhookTimestamp = (timestamp: Date): string => String(Math.floor(timestamp.getTime() / 1000));

/**
 * The `webhook-signature` header's value: `v1,<base64 signature>` for each secret, separated by
 * spaces, so that a receiver holding either the old or the new secret during a rotation verifies.
 * Throws on an id with a '.' or whitespace (the signed content is `id.timestamp.body`, and the
 * header is split on spaces), an invalid date or no secret at all.
 */
export function signWebhook({ msgId, timestamp, body, secrets }: WebhookToSign): string {
  if (!msgId || /[.\s]/.test(msgId)) throw new Error('signWebhook: the message id must be non-empty, with no "." or whitespace');
  if (Number.isNaN(timestamp.getTime())) throw new Error('signWebhook: the timestamp is not a valid date');
  if (secrets.length === 0) throw new Error('signWebhook: at least one secret is needed');
  return secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(' ');
}

/** The headers of one delivery, as receivers read them. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
  'user-agent': string;
  [name: string]: string;
}

/**
 * Every header a delivery carries. The timestamp is the time of this attempt (a retry is signed
 * anew, so a receiver's five-minute tolerance holds), while the id stays the message's.
 */
export function webhookHeaders(message: WebhookToSign & { userAgent?: string }): WebhookHeaders {
  return {
    'webhook-id': message.msgId,
    'webhook-timestamp': webhookTimestamp(message.timestamp),
    'webhook-signature': signWebhook(message),
    'content-type': 'application/json',
    'user-agent': message.userAgent ?? WEBHOOK_USER_AGENT,
  };
}
