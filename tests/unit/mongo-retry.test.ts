/**
 * Writes and index builds the development database aborts as deadlocks are repeated after random
 * pauses (models/infra/mongo.ts); other failures are not. Timers are Jest's fake ones.
 */
import { buildIndexesRacing, writeRacingOnUniqueKey } from '../../models/infra/mongo';

const failing = (errors: Error[]) => {
  let calls = 0;
  return {
    build: async () => {
      calls += 1;
      const err = errors.shift();
      if (err) throw err;
      return 'built';
    },
    calls: () => calls,
  };
};
const deadlock = () => Object.assign(new Error('deadlock detected'), { code: 16908292 });

beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/** Runs `op` with fake timers, moving the clock as far as its pauses need; its outcome and the time that took. */
async function elapsed<T>(op: () => Promise<T>): Promise<{ outcome: PromiseSettledResult<T>; ms: number }> {
  const start = Date.now();
  const settled = Promise.allSettled([op()]);
  await jest.runAllTimersAsync();
  const [outcome] = await settled;
  return { outcome: outcome!, ms: Date.now() - start };
}

it('repeats a build aborted as a deadlock, until it succeeds', async () => {
  const b = failing([new Error('deadlock detected'), deadlock()]);
  const { outcome } = await elapsed(() => buildIndexesRacing(b.build));
  expect(outcome).toEqual({ status: 'fulfilled', value: 'built' });
  expect(b.calls()).toBe(3);
});

it('gives up after ten deadlocks, and at once on any other failure', async () => {
  const deadlocks = failing(Array.from({ length: 11 }, () => new Error('deadlock detected')));
  const { outcome } = await elapsed(() => buildIndexesRacing(deadlocks.build));
  expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'deadlock detected' } });
  expect(deadlocks.calls()).toBe(10);
  const other = failing([new Error('index key too large')]);
  const second = await elapsed(() => buildIndexesRacing(other.build));
  expect(second.outcome).toMatchObject({ status: 'rejected', reason: { message: 'index key too large' } });
  expect([other.calls(), second.ms]).toEqual([1, 0]);
});

it('pauses a random time below 50 ms, doubling to at most 1 s, before each repeat', async () => {
  const w = failing(Array.from({ length: 9 }, deadlock));
  jest.spyOn(Math, 'random').mockReturnValue(0.999);
  const longest = await elapsed(() => writeRacingOnUniqueKey(w.build));
  expect(longest.outcome).toEqual({ status: 'fulfilled', value: 'built' });
  // Below 50 + 100 + 200 + 400 + 800 + 1000 × 4 ms in all, and close to it with random() near 1.
  expect(longest.ms).toBeLessThanOrEqual(5_550);
  expect(longest.ms).toBeGreaterThan(5_500);
  jest.spyOn(Math, 'random').mockReturnValue(0);
  const shortest = await elapsed(() => writeRacingOnUniqueKey(failing([deadlock(), deadlock()]).build));
  expect(shortest).toEqual({ outcome: { status: 'fulfilled', value: 'built' }, ms: 0 });
});

it('repeats no write that failed otherwise, E11000 included', async () => {
  const duplicate = failing([Object.assign(new Error('E11000 duplicate key'), { code: 11000 })]);
  const { outcome } = await elapsed(() => writeRacingOnUniqueKey(duplicate.build));
  expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 11000 } });
  expect(duplicate.calls()).toBe(1);
});
