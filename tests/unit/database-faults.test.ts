/**
 * The database faults every service answers 503 (retry later), with the errors the development
 * database really raised while it crashed, recovered and cancelled statements (issue 34); and the
 * errors that stay what they are (a duplicate key is a 409 of its route, a bad query a bug).
 */
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { toFailure } from '../../api/shared/errors';
import { isDatabaseUnavailable } from '../../models/infra/database-faults.rules';

const server = (errmsg: string, code = 1, codeName = 'InternalError') => new MongoServerError({ errmsg, code, codeName });

describe('database faults', () => {
  it.each([
    ['a backend lost mid-query', server('unexpected EOF')],
    ['a connection reset', server('read tcp 127.0.0.1:55976->127.0.0.1:30307: read: connection reset by peer')],
    ['crash recovery', server('the database system is in recovery mode')],
    ['start-up', server('the database system is not yet accepting connections')],
    ['a killed postmaster', server('terminating connection due to unexpected postmaster exit')],
    ['a backend ended by an operator', server('terminating connection due to administrator command')],
    ['a crash of another backend', server('terminating connection because of crash of another server process')],
    ['PostgreSQL down behind FerretDB', server('[msg_find.go:42 handler.(*Handler).msgFind] [pool.go:86 documentdb.(*Pool).Acquire] failed to connect to `user=postgres database=postgres`:\n\t127.0.0.1:5433 (127.0.0.1): dial error: dial tcp 127.0.0.1:5433: connect: connection refused')],
    ['a bare EOF', server('EOF')],
    ['a PostgreSQL call cut short in FerretDB', server('context deadline exceeded')],
    ['a statement past maxTimeMS', server('canceling statement due to statement timeout', 50, 'MaxTimeMSExpired')],
    ['an index broken by a crash', server('right sibling of RUM page is of different type')],
    ['MongoDB shutting down', server('interrupted at shutdown', 11600, 'InterruptedAtShutdown')],
    ['no server to select', new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017', { type: 'Unknown', servers: new Map(), stale: false, compatible: true, heartbeatFrequencyMS: 10_000, localThresholdMS: 15, setName: null, maxElectionId: null, maxSetVersion: null, commonWireVersion: 0, logicalSessionTimeoutMinutes: null } as never)],
    ['a network error', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
  ])('answers %s with 503 naming the database', (_, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(toFailure(err).failure).toMatchObject({ status: 503, code: 'DEPENDENCY_UNAVAILABLE', message: 'mongodb is unavailable, please retry later' });
  });

  it.each([
    ['a duplicate key', server('E11000 duplicate key error collection: newsletter.tags', 11000, 'DuplicateKey')],
    ['a bad query', server('unknown operator: $nope', 2, 'BadValue')],
    ['a document the validator refused', server('Document failed validation', 121, 'DocumentValidationFailure')],
    ['an error of ours', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ])('leaves %s alone (not an outage)', (_, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
