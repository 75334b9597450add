import { z } from 'zod';
import { aiEnvelope, envelopeSelector, newsEnvelope, quizEnvelope, supportEnvelope } from '../../api/shared/envelope';
import { STATUS, classifyInfrastructure, toFailure } from '../../api/shared/errors';
import { AppError, ERROR_CODES } from '../../models/errors';

describe('error mapping', () => {
  it('gives every error code a status', () => {
    for (const code of ERROR_CODES) expect(STATUS[code]).toBeGreaterThanOrEqual(400);
  });

  it('maps AppErrors to their status and keeps the message', () => {
    const { failure, unexpected } = toFailure(new AppError('CONFLICT', 'quiz already exists for 2026-01-01'));
    expect(failure).toEqual({ status: 409, code: 'CONFLICT', message: 'quiz already exists for 2026-01-01' });
    expect(unexpected).toBe(false);
  });

  it('turns zod errors into 400 with field details', () => {
    const err = z.object({ email: z.email() }).safeParse({ email: 'nope' }).error!;
    const { failure } = toFailure(err);
    expect(failure.status).toBe(400);
    expect(failure.code).toBe('VALIDATION_FAILED');
    expect(failure.details).toEqual([expect.objectContaining({ path: 'body.email' })]);
  });

  it('hides the message of unexpected errors behind a generic 500', () => {
    const { failure, unexpected } = toFailure(new Error('secret connection string mongodb://u:p@h'));
    expect(failure).toEqual({ status: 500, code: 'INTERNAL', message: 'Internal server error' });
    expect(unexpected).toBe(true);
  });

  it('maps http-errors from the body parser (413, malformed JSON)', () => {
    expect(toFailure(Object.assign(new Error('request entity too large'), { status: 413, expose: true })).failure).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(toFailure(Object.assign(new Error('Unexpected token } in JSON'), { status: 400, expose: true })).failure).toMatchObject({
      status: 400,
      message: 'Malformed JSON body',
    });
  });

  it('recognises MongoDB and Temporal outages as 503 naming the dependency', () => {
    const mongo = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    expect(classifyInfrastructure(mongo)).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', details: { dependency: 'mongodb' } });
    const temporal = Object.assign(new Error('14 UNAVAILABLE'), { name: 'ServiceError', cause: { code: 14 } });
    expect(classifyInfrastructure(temporal)).toMatchObject({ details: { dependency: 'temporal' } });
    const notFound = Object.assign(new Error('5 NOT_FOUND'), { name: 'ServiceError', cause: { code: 5 } });
    expect(classifyInfrastructure(notFound)).toBeUndefined();
  });
});

describe('envelopes', () => {
  const f = { status: 404, code: 'NOT_FOUND' as const, message: 'ticket not found' };

  it('formats each service its spec\'s way', () => {
    expect(newsEnvelope.failure(f)).toEqual({ success: false, error: 'ticket not found', statusCode: 404, code: 'NOT_FOUND' });
    expect(supportEnvelope.failure(f)).toEqual({ success: false, message: 'ticket not found', error: 'NOT_FOUND' });
    expect(quizEnvelope.failure(f)).toEqual({ success: false, message: 'ticket not found', code: 'NOT_FOUND' });
    expect(aiEnvelope.failure(f)).toEqual({ success: false, error: 'ticket not found', code: 'NOT_FOUND' });
  });

  it('validates each failure body against its own documented schema', () => {
    for (const e of [newsEnvelope, supportEnvelope, quizEnvelope, aiEnvelope]) {
      expect(e.failureSchema.safeParse(e.failure({ ...f, details: [{ path: 'x', message: 'y' }] })).success).toBe(true);
    }
  });

  it('chooses the AI envelope under /ai and the quiz envelope elsewhere', () => {
    const pick = envelopeSelector(quizEnvelope, [{ prefix: '/ai', envelope: aiEnvelope }]);
    expect(pick('/ai/chat')).toBe(aiEnvelope);
    expect(pick('/ai')).toBe(aiEnvelope);
    expect(pick('/aix')).toBe(quizEnvelope);
    expect(pick('/quiz/available')).toBe(quizEnvelope);
  });
});
