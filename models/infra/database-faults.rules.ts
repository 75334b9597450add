/**
 * Which database errors mean "the database cannot serve now" (503 naming it, retry later) rather
 * than a bug of ours (500). Pure: used by every service's error mapping (api/shared/errors.ts)
 * and tested with the errors the development database and the driver really raise
 * (tests/unit/database-faults.test.ts; tests/integration/stack.test.ts kills the database under
 * requests and counts only 200 and 503).
 */

/** The driver's own errors for a server it cannot reach, lost, or gave up on. */
const DRIVER_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
  'MongoOperationTimeoutError',
  // Mongoose's name for the driver's server selection failure.
  'MongooseServerSelectionError',
]);

/**
 * MongoDB's server codes for an operation that could not run now: time limits (50 MaxTimeMSExpired,
 * 262 ExceededTimeLimit), shutdown and interruption (91, 11600, 11602), elections and
 * failover (189, 10107, 13435, 13436), network (6, 7, 89, 9001), and 11601 Interrupted.
 */
const SERVER_UNAVAILABLE_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11601, 11602, 13435, 13436]);

/**
 * PostgreSQL's words, as the development database (FerretDB on PostgreSQL) passes them on inside
 * an InternalError: the server restarting after a crash (57P01–57P03: "in recovery mode", "not yet
 * accepting connections", "terminating connection because of crash of another server process"),
 * a connection lost mid-query ("unexpected EOF", "conn closed", a reset), a statement cancelled
 * by its time limit (57014), out of memory (53200), and an index the server reports damaged
 * (XX001/XX002, and the extended RUM's "right sibling of RUM page is of different type" after a
 * crash recovery). None of them is a fault of the request.
 */
const POSTGRES_UNAVAILABLE = [
  /SQLSTATE (57P0[1-4]|57014|53\d{3}|08\d{3}|XX001|XX002)/,
  /database system is (in recovery mode|not yet accepting connections|starting up|shutting down)/i,
  /terminating connection (because of crash|due to (administrator command|unexpected postmaster exit))/i,
  /canceling statement due to (statement timeout|user request)/i,
  /no connection to the server|could not connect to server|the database system is in (recovery|shutdown)/i,
  /unexpected EOF|^EOF$|conn(ection)? closed|conn busy|closed pool|connection reset|broken pipe|i\/o timeout|failed to connect|connection refused|server closed the connection/i,
  // FerretDB's own words when its PostgreSQL call was cut short (Go's context), e.g. by a restart.
  /context (canceled|deadline exceeded)/i,
  // Out of backends or memory to start one.
  /too many clients|remaining connection slots|could not fork/i,
  /right sibling of RUM page|index ".*" contains unexpected|could not read block/i,
];

/**
 * The database (the driver, MongoDB, or the development database behind FerretDB) cannot serve
 * now. Looks through `cause` too (a library that wraps the driver's error, as a rate limiter's
 * store may).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error)) return false;
  if (depth < 3 && err.cause !== undefined && isDatabaseUnavailable(err.cause, depth + 1)) return true;
  if (DRIVER_UNAVAILABLE.has(err.name)) return true;
  // Mongoose with bufferCommands=false while the connection is down.
  if (err.name === 'MongooseError' && /before initial connection|buffering timed out|not connected/i.test(err.message)) return true;
  if (err.name === 'MongoServerError' || err.name === 'MongoBulkWriteError' || err.name === 'MongoWriteConcernError') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && SERVER_UNAVAILABLE_CODES.has(code)) return true;
    const labels = (err as { errorLabels?: unknown }).errorLabels;
    if (Array.isArray(labels) && labels.includes('RetryableWriteError')) return true;
    return POSTGRES_UNAVAILABLE.some((re) => re.test(err.message ?? ''));
  }
  return false;
}
