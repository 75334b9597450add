/**
 * The only place HTTP statuses are chosen for errors. A new ErrorCode without a status does not
 * compile. Infrastructure faults are recognised here and become 503 naming the dependency.
 */
import { z } from 'zod';
import { AppError, type ErrorCode, type FieldIssue, dependencyUnavailable } from '../../models/errors';
import { isDatabaseUnavailable } from '../../models/infra/database-faults.rules';
import type { Failure } from './envelope';

export const STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  MESSAGE_REFUSED: 406,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  DEPENDENCY_UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const satisfies Record<ErrorCode, number>;

export function zodIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: i.message,
  }));
}

export function validationError(error: z.ZodError, where: 'body' | 'query' | 'params'): AppError {
  const issues = zodIssues(error, where);
  const first = issues[0];
  const message = first ? `Invalid request: ${first.path}: ${first.message}` : 'Invalid request';
  return new AppError('VALIDATION_FAILED', message, { details: issues });
}

/** Recognises a failure of MongoDB, Temporal or MinIO and names the dependency. */
export function classifyInfrastructure(err: unknown): AppError | undefined {
  if (!(err instanceof Error)) return undefined;
  const name = err.name;
  if (isDatabaseUnavailable(err)) return dependencyUnavailable('mongodb', err);
  // @temporalio/client: the connection failed (TransportError) or gRPC said UNAVAILABLE (14) or
  // DEADLINE_EXCEEDED (4). Other ServiceErrors (NOT_FOUND…) are not infrastructure faults.
  const grpcCode = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (name === 'TransportError' || (name === 'ServiceError' && (grpcCode === 14 || grpcCode === 4))) {
    return dependencyUnavailable('temporal', err);
  }
  // MinIO failures are turned into DEPENDENCY_UNAVAILABLE where they happen (models/infra/storage.ts).
  return undefined;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

/** Turns anything thrown by a handler or middleware into a Failure (status, code, message). */
export function toFailure(err: unknown): { failure: Failure; headers?: Record<string, string>; unexpected: boolean } {
  if (err instanceof z.ZodError) {
    const appErr = validationError(err, 'body');
    return { failure: fromAppError(appErr), unexpected: false };
  }
  if (err instanceof AppError) {
    return { failure: fromAppError(err), ...(err.headers ? { headers: err.headers } : {}), unexpected: false };
  }
  const infra = classifyInfrastructure(err);
  if (infra) return { failure: fromAppError(infra), unexpected: false };

  // http-errors thrown by koa-body / @koa/router / ctx.throw.
  const h = err as HttpLikeError;
  const status = h.status ?? h.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code: ErrorCode =
      status === 413
        ? 'PAYLOAD_TOO_LARGE'
        : status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : status === 405
            ? 'METHOD_NOT_ALLOWED'
            : status === 404
              ? 'ROUTE_NOT_FOUND'
              : status === 401
                ? 'UNAUTHENTICATED'
                : status === 403
                  ? 'FORBIDDEN'
                  : 'VALIDATION_FAILED';
    const message =
      code === 'PAYLOAD_TOO_LARGE'
        ? 'Request body is too large'
        : h.type === 'entity.parse.failed' || /json/i.test((err as Error).message ?? '')
          ? 'Malformed JSON body'
          : h.expose && err instanceof Error
            ? err.message
            : 'Invalid request';
    return { failure: { status: STATUS[code], code, message }, unexpected: false };
  }
  return {
    failure: { status: 500, code: 'INTERNAL', message: 'Internal server error' },
    unexpected: true,
  };
}

export function fromAppError(err: AppError): Failure {
  const failure: Failure = { status: STATUS[err.code], code: err.code, message: err.message };
  if (err.details !== undefined) failure.details = err.details;
  return failure;
}
