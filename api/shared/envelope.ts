/**
 * Each spec formats failures its own way (GUIDE §4). One formatter per area, chosen when the app
 * is built; everything else in the stack produces (status, code, message, details) and lets the
 * formatter shape it.
 *
 * Beyond the spec's fields we add `code` (a stable machine-readable ErrorCode; the support spec
 * already calls it `error`) and `details` (field-level validation issues) when there are any.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../models/errors';

export interface Failure {
  status: number;
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export interface Envelope {
  /** Name used in the OpenAPI document for the error schema (components.schemas). */
  name: string;
  failure(f: Failure): Record<string, unknown>;
  /** The JSON schema of a failure body, for the OpenAPI document (registered under `name`). */
  failureSchema: z.ZodType;
}

/**
 * The longest failure message sent: messages may quote the request (a route not found names its
 * path, up to the 16 KiB header limit), so longer ones are cut, and the documents can say so.
 */
export const FAILURE_MESSAGE_MAX = 2000;
const bounded = (message: string) => (message.length > FAILURE_MESSAGE_MAX ? `${message.slice(0, FAILURE_MESSAGE_MAX - 1)}…` : message);

const details = z.unknown().optional().describe('Field-level issues (validation) or extra context');
const code = z.enum(ERROR_CODES).describe('Stable error code, e.g. VALIDATION_FAILED');
const message = z.string().max(FAILURE_MESSAGE_MAX);
const statusCode = z.number().int().min(400).max(599);

/** News Intelligence API: `{success:false, error, statusCode}`. */
export const newsEnvelope: Envelope = {
  name: 'NewsError',
  failure: (f) => ({ success: false, error: bounded(f.message), statusCode: f.status, code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), error: message, statusCode, code, details }).meta({ id: 'NewsError' }),
};

/** Support Ticket API: `{success:false, message, error?}` where `error` is the stable code. */
export const supportEnvelope: Envelope = {
  name: 'SupportError',
  failure: (f) => ({ success: false, message: bounded(f.message), error: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), message, error: code.optional(), details }).meta({ id: 'SupportError' }),
};

/** Quiz API: `{success:false, message}`. */
export const quizEnvelope: Envelope = {
  name: 'QuizError',
  failure: (f) => ({ success: false, message: bounded(f.message), code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), message, code, details }).meta({ id: 'QuizError' }),
};

/** AI API: `{success:false, error}`. */
export const aiEnvelope: Envelope = {
  name: 'AiError',
  failure: (f) => ({ success: false, error: bounded(f.message), code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), error: message, code, details }).meta({ id: 'AiError' }),
};

function withDetails(f: Failure): { details?: unknown } {
  return f.details === undefined ? {} : { details: f.details };
}

/** Picks the envelope by path prefix (the quiz service serves the AI area under /ai). */
export interface EnvelopeRule {
  prefix: string;
  envelope: Envelope;
}

export function envelopeSelector(fallback: Envelope, rules: EnvelopeRule[] = []): (path: string) => Envelope {
  return (path) => rules.find((r) => path === r.prefix || path.startsWith(`${r.prefix}/`))?.envelope ?? fallback;
}
