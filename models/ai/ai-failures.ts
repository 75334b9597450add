/** Maps the failure of a workflow that calls the AI provider to the APIs' statuses. */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/common';
import { AI_FAILURES } from './chat.rules';
import { AppError, dependencyUnavailable } from '../errors';

/** No AI provider is configured on this deployment (503). */
export const aiNotConfigured = () => new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider is not configured', { details: { dependency: 'ai-provider' } });
/** The provider failed and the retries gave up (503). */
export const aiUnavailable = () => new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider is unavailable, please retry later', { details: { dependency: 'ai-provider' } });

export function chatFailure(err: unknown): AppError {
  if (!(err instanceof WorkflowFailedError)) return err instanceof AppError ? err : dependencyUnavailable('temporal', err);
  let cause: unknown = err.cause;
  while (cause instanceof ActivityFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    switch (cause.type) {
      case 'NOT_FOUND':
        return new AppError('NOT_FOUND', cause.message);
      case AI_FAILURES.rejected:
        return new AppError('VALIDATION_FAILED', cause.message);
      case AI_FAILURES.notConfigured:
        return aiNotConfigured();
      default:
        // Rate limited, 5xx, timeouts, refused credentials: retried until the policy gave up.
        return aiUnavailable();
    }
  }
  if (cause instanceof TimeoutFailure) return aiUnavailable();
  if (cause instanceof CancelledFailure) return new AppError('TIMEOUT', 'AI request was cancelled');
  return new AppError('INTERNAL', 'AI request failed');
}

