/**
 * Save, then start: how a use case hands recorded work to a workflow (a bulk operation, an import).
 *
 * 1. The record is saved first, so the workflow and a client polling its status both find it.
 * 2. The workflow is started (its id derives from the record's, so a repeated start is harmless).
 * 3. When the start fails (Temporal unreachable: the client gets 503), the record is abandoned:
 *    marked failed with the reason, conditionally on still being in its starting state.
 *
 * Two faults at once (the start and the abandon both fail) leave a record that says it runs with
 * no workflow behind it. Its reader repairs it (`settleOrphan`): a record still unfinished after a
 * grace period whose workflow Temporal does not know is marked failed. And should a start that
 * reported failure have reached Temporal after all, the workflow finds its record failed and does
 * nothing (each workflow's first activity checks the state).
 */
export interface SaveThenStart<R> {
  save(): Promise<void>;
  start(): Promise<R>;
  abandon(reason: string): Promise<void>;
}

export const NOT_STARTED = 'The workflow could not be started (Temporal was unavailable); nothing was done.';

export async function saveThenStart<R>(steps: SaveThenStart<R>): Promise<R> {
  await steps.save();
  try {
    return await steps.start();
  } catch (err) {
    await steps.abandon(NOT_STARTED).catch(() => undefined);
    throw err;
  }
}

/** How long a record may say it runs before its reader asks Temporal whether its workflow exists. */
export const ORPHAN_GRACE_MS = 60_000;

/**
 * For a record read while unfinished: past the grace period, asks whether its workflow exists and
 * abandons the record when it does not. Returns true when the record was abandoned.
 */
export async function settleOrphan(record: { createdAt: Date }, now: Date, steps: { exists(): Promise<boolean>; abandon(reason: string): Promise<void> }): Promise<boolean> {
  if (now.getTime() - record.createdAt.getTime() < ORPHAN_GRACE_MS) return false;
  if (await steps.exists()) return false;
  await steps.abandon(NOT_STARTED);
  return true;
}
