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

export function createLogger(options: { name: string; level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      base: { service: options.name, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}
