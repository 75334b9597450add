/**
 * The examples of the OpenAPI documents that are not written by hand: each error answer's, built
 * with the service's own envelope from the code and message the stack really sends for that
 * status (so a 401 shows UNAUTHENTICATED, never another code), and the success answer's envelope
 * around a route's example data (api/shared/route.ts `example`).
 */
import type { ErrorCode } from '../../models/errors';
import type { Envelope } from './envelope';
import type { AnyRoute } from './route';

type Scheme = AnyRoute['auth']['scheme'];

/** What a caller of each kind of credential is told when it is missing or refused. */
const UNAUTHENTICATED: Partial<Record<NonNullable<Scheme>, string>> & { default: string } = {
  apiKeyAuth: 'Missing API key. Create an API key in the dashboard (POST /api/keys with your account token) and send it in the X-API-Key header.',
  sessionCookie: 'Not signed in: sign in to the dashboard first',
  metaSignature: 'Missing or invalid X-Hub-Signature-256: the body must be signed with the app secret',
  default: 'Invalid or expired token',
};
const FORBIDDEN: Partial<Record<NonNullable<Scheme>, string>> & { default: string } = {
  apiKeyAuth: 'This API key lacks the scope read:articles (it has read:entities)',
  adminBearer: 'Missing permission: news.admin',
  metaVerifyToken: 'Webhook verification failed: hub.mode must be subscribe and hub.verify_token must match',
  sessionCookie: 'Request refused: send it from the dashboard (no Origin header, or another site)',
  default: 'Missing permission: support.agent',
};

/** The code and message a status is sent with (api/shared/errors.ts STATUS, read backwards). */
function failureFor(status: number, scheme: Scheme): { code: ErrorCode; message: string; details?: unknown } {
  switch (status) {
    case 400:
      return {
        code: 'VALIDATION_FAILED',
        message: 'Invalid request: query.limit: Too big: expected number to be <=100',
        details: [{ path: 'query.limit', message: 'Too big: expected number to be <=100' }],
      };
    case 401:
      return { code: 'UNAUTHENTICATED', message: (scheme && UNAUTHENTICATED[scheme]) ?? UNAUTHENTICATED.default };
    case 403:
      return { code: 'FORBIDDEN', message: (scheme && FORBIDDEN[scheme]) ?? FORBIDDEN.default };
    case 404:
      return { code: 'NOT_FOUND', message: 'Not found' };
    case 405:
      return { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' };
    case 406:
      return { code: 'MESSAGE_REFUSED', message: 'The message exceeds the limit of 31457280 bytes: refused for good (406: Mailgun does not deliver it again)', details: { reason: 'too-large', maxBytes: 31_457_280 } };
    case 409:
      return { code: 'CONFLICT', message: 'The request conflicts with the current state: reload and try again' };
    case 413:
      return { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' };
    case 415:
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type: send application/json' };
    case 422:
      return { code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was already used with another request to this operation: send a new key for a new request' };
    case 429:
      return { code: 'RATE_LIMITED', message: 'Rate limit exceeded: 100 requests per minute' };
    case 503:
      return { code: 'DEPENDENCY_UNAVAILABLE', message: 'mongodb is unavailable, please retry later', details: { dependency: 'mongodb' } };
    case 504:
      return { code: 'TIMEOUT', message: 'The request did not finish in time' };
    default:
      return { code: 'INTERNAL', message: 'Internal error' };
  }
}

/** The body an error status is answered with on this route, in the envelope of its service. */
export function failureExample(envelope: Envelope, status: number, scheme: Scheme): Record<string, unknown> {
  return envelope.failure({ status, ...failureFor(status, scheme) });
}

/** The success envelope around a route's example (route.ts RouteExample), or undefined without one. */
export function successExample(route: AnyRoute): Record<string, unknown> | undefined {
  const example = route.example;
  if (!example || (route.response && example.response === undefined)) return undefined;
  return {
    success: true,
    ...(example.message !== undefined ? { message: example.message } : {}),
    data: example.response ?? null,
    ...(route.pagination && example.pagination !== undefined ? { pagination: example.pagination } : {}),
  };
}
