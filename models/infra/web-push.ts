/**
 * Web Push sending (RFC 8030, with RFC 8291's encryption and RFC 8292's VAPID), over the web-push
 * library: one push to one browser subscription, and what the push service's answer means. It
 * never throws for an answer or the network: the caller gets an outcome (delivered, gone, retry,
 * refused; see web-push.rules.ts) and decides. The VAPID keys go with each call, never into the
 * library's module-wide setting, so two senders in one process (or a test) cannot mix them up.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { generateVAPIDKeys, getVapidHeaders, sendNotification, WebPushError, type RequestOptions } from 'web-push';
import { classifyPushAnswer, isValidTopic, MAX_PUSH_PAYLOAD_BYTES, pushEndpointRefusal, subscriptionKeysRefusal, type PushOutcome } from './web-push.rules';

export type { PushOutcome } from './web-push.rules';

/** A browser's subscription as PushSubscription.toJSON() gives it. */
export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** How the push service should keep and deliver one push (RFC 8030 §5.2–5.4). */
export interface PushSendOptions {
  /** How long the push service keeps the message for a browser that is offline. */
  ttlSeconds: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A newer push with the same topic replaces one not yet delivered (at most 32 base64url characters). */
  topic?: string;
}

export interface WebPushOptions {
  /** The application server's identity (RFC 8292): a mailto: or https: contact and its P-256 key pair, base64url. */
  vapid: { subject: string; publicKey: string; privateKey: string };
  /** Extra certificates to trust besides the system's (the push double's in development and tests). */
  caFile?: string;
  /** How long a connection may stay silent before the push counts as failed (and is retried). */
  timeoutMs: number;
  /** When given, endpoints the policy refuses (pushEndpointRefusal) are not called. */
  endpointPolicy?: { allowHosts: readonly string[]; production: boolean };
  now?: () => number;
}

export interface WebPush {
  /** The VAPID public key, for the page's `applicationServerKey`. */
  publicKey: string;
  /** Sends `payload` as JSON to one subscription. */
  send(subscription: WebPushSubscription, payload: object, options: PushSendOptions): Promise<PushOutcome>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createWebPush(options: WebPushOptions): WebPush {
  const { vapid } = options;
  // The library checks the subject and keys at each send; checking once here makes a wrong
  // configuration fail at start-up rather than as every push's refusal.
  getVapidHeaders('https://push.example', vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
  const ca = options.caFile ? readFileSync(options.caFile, 'utf8') : undefined;
  // One agent for every push, so that many pushes to one service share connections.
  const agent = new Agent({ keepAlive: true, ...(ca ? { ca: [ca, ...rootCertificates] } : {}) });
  const now = options.now ?? Date.now;

  return {
    publicKey: vapid.publicKey,
    async send(subscription, payload, sendOptions) {
      const refusal =
        (options.endpointPolicy ? pushEndpointRefusal(subscription.endpoint, options.endpointPolicy) : null) ??
        subscriptionKeysRefusal(subscription.keys) ??
        (sendOptions.topic !== undefined && !isValidTopic(sendOptions.topic) ? 'a topic is at most 32 base64url characters' : null) ??
        (!Number.isInteger(sendOptions.ttlSeconds) || sendOptions.ttlSeconds < 0 ? 'the TTL must be a whole number of seconds' : null);
      if (refusal) return { kind: 'refused', status: null, reason: refusal };
      const body = JSON.stringify(payload);
      if (Buffer.byteLength(body) > MAX_PUSH_PAYLOAD_BYTES) return { kind: 'refused', status: null, reason: `the payload is ${Buffer.byteLength(body)} bytes, more than a push carries (${MAX_PUSH_PAYLOAD_BYTES})` };
      const request: RequestOptions = {
        vapidDetails: vapid,
        TTL: sendOptions.ttlSeconds,
        urgency: sendOptions.urgency,
        contentEncoding: 'aes128gcm',
        timeout: options.timeoutMs,
        agent,
        ...(sendOptions.topic === undefined ? {} : { topic: sendOptions.topic }),
      };
      try {
        const res = await sendNotification({ endpoint: subscription.endpoint, keys: subscription.keys }, body, request);
        return classifyPushAnswer(res.statusCode, undefined, now());
      } catch (err) {
        if (err instanceof WebPushError) {
          const retryAfter = err.headers['retry-after'] as string | string[] | undefined;
          return classifyPushAnswer(err.statusCode, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now(), err.body);
        }
        // No answer: refused connections, resets, TLS failures and the socket timeout. The push
        // may or may not have arrived; only sending it again makes sure it does.
        const code = (err as { code?: unknown }).code;
        return { kind: 'retry', status: null, reason: `no answer from the push service: ${typeof code === 'string' ? `${code} ` : ''}${(err as Error).message}` };
      }
    },
    close: () => agent.destroy(),
  };
}

/** A new VAPID key pair (base64url), for the operator's tooling: made once, then kept in the configuration. */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  return generateVAPIDKeys();
}
