/**
 * Typed domain errors. Code throws AppError with a code from this closed union; the HTTP layer maps
 * each code to a status in one place (api/shared/errors.ts), and activities turn them into
 * non-retryable ApplicationFailures with the code as the failure type.
 */
export const ERROR_CODES = [
  /** The request's body, query or path failed validation. `details` lists the fields. */
  'VALIDATION_FAILED',
  /** No credentials, or credentials that do not verify (bad signature, expired, unknown key). */
  'UNAUTHENTICATED',
  /** Authenticated, but lacking the permission, scope or plan the operation needs. */
  'FORBIDDEN',
  /** The addressed resource does not exist (or is not visible to the caller). */
  'NOT_FOUND',
  /** The route itself does not exist. */
  'ROUTE_NOT_FOUND',
  /** The HTTP method is not allowed on an existing route. */
  'METHOD_NOT_ALLOWED',
  /** The operation conflicts with the current state (duplicate, illegal transition). */
  'CONFLICT',
  /** An Idempotency-Key already used by this caller on this operation, sent with another request. */
  'IDEMPOTENCY_KEY_REUSED',
  /** The request body is larger than the configured limit. */
  'PAYLOAD_TOO_LARGE',
  /** The body's media type is not accepted by the route. */
  'UNSUPPORTED_MEDIA_TYPE',
  /**
   * A mail a provider delivered is refused for good (larger than the limit, not addressed to the
   * desk): answered 406, the status that tells Mailgun not to retry it.
   */
  'MESSAGE_REFUSED',
  /** A rate limit or quota was exceeded. */
  'RATE_LIMITED',
  /** A dependency (MongoDB, Temporal, MinIO, an upstream provider) is unavailable; retry later. */
  'DEPENDENCY_UNAVAILABLE',
  /** An upstream call did not finish in time. */
  'TIMEOUT',
  /** Anything unexpected. Its message is never shown to clients. */
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldIssue {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: FieldIssue[] | Record<string, unknown>;
  /** Extra response headers (Retry-After…). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly details: AppErrorOptions['details'];
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}


/** Throws NOT_FOUND naming the resource: `tickets.findById(id) ?? notFound('ticket')`. */
export function notFound(resource: string): never {
  throw new AppError('NOT_FOUND', `${resource} not found`);
}

/** Wraps an infrastructure failure so that it maps to 503 and names the dependency. */
export function dependencyUnavailable(dependency: string, cause?: unknown): AppError {
  return new AppError('DEPENDENCY_UNAVAILABLE', `${dependency} is unavailable, please retry later`, {
    cause,
    details: { dependency },
  });
}
