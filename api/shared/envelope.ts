/**
 * Each spec formats failures its own way (GUIDE §4). One formatter per area, chosen when the app
 * is built; everything else in the stack produces (status, code, message, details) and lets the
 * formatter shape it.
 *
 * Beyond the spec's fields we add `code` (a stable machine-readable ErrorCode; the support spec
 * already calls it `error`) and `details` (field-level validation issues) when there are any.
 */
import { z } from 'zod';
import type { ErrorCode } from '../../models/errors';

export interface Failure {
  status: number;
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export interface Envelope {
  /** Name used in the OpenAPI document for the error schema. */
  name: string;
  failure(f: Failure): Record<string, unknown>;
  /** The JSON schema of a failure body, for the OpenAPI document. */
  failureSchema: z.ZodType;
}

const details = z.unknown().optional().describe('Field-level issues (validation) or extra context');
const code = z.string().describe('Stable error code, e.g. VALIDATION_FAILED');

/** News Intelligence API: `{success:false, error, statusCode}`. */
export const newsEnvelope: Envelope = {
  name: 'NewsError',
  failure: (f) => ({ success: false, error: f.message, statusCode: f.status, code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), error: z.string(), statusCode: z.number().int(), code, details }),
};

/** Support Ticket API: `{success:false, message, error?}` where `error` is the stable code. */
export const supportEnvelope: Envelope = {
  name: 'SupportError',
  failure: (f) => ({ success: false, message: f.message, error: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), message: z.string(), error: code.optional(), details }),
};

/** Quiz API: `{success:false, message}`. */
export const quizEnvelope: Envelope = {
  name: 'QuizError',
  failure: (f) => ({ success: false, message: f.message, code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), message: z.string(), code, details }),
};

/** AI API: `{success:false, error}`. */
export const aiEnvelope: Envelope = {
  name: 'AiError',
  failure: (f) => ({ success: false, error: f.message, code: f.code, ...withDetails(f) }),
  failureSchema: z.object({ success: z.literal(false), error: z.string(), code, details }),
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
