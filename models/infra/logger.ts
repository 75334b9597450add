/**
 * Structured JSON logs (pino). Secrets never reach the log: headers and fields that carry
 * credentials are redacted wherever they appear, and request logging records only safe fields.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths redacted in every log line (pino redact syntax). */
export const REDACTED_PATHS = [
  '*.authorization',
  '*.Authorization',
  '*["x-api-key"]',
  '*.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.accessKey',
  '*.secretKey',
  // Webhook endpoints' signing secrets (whsec_…), in clear or sealed.
  '*.secrets',
  '*.signingSecrets',
  '*.ciphertext',
  '*.jwtSecret',
  '*.accessToken',
  '*.appSecret',
  '*.verifyToken',
  '*.smtpUrl',
  '*["x-csrf-token"]',
  '*.csrfToken',
  '*["hub.verify_token"]',
  '*["x-hub-signature-256"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
];

/** A Standard Webhooks signing secret (ours, or Stripe's), wherever in a message it appears. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]+/g;

/** Text with every whsec_… value replaced, as a path redacted. */
export const scrubSecrets = (text: string): string => (text.includes('whsec_') ? text.replace(WEBHOOK_SECRET, 'whsec_[redacted]') : text);

export function createLogger(options: { name: string; level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      base: { service: options.name, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      // The message and its interpolated arguments: a secret pasted into one (an error's text) is
      // not written. Fields are redacted by path above.
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
}
