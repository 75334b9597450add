/**
 * Rate-limit counts kept in the process between syncs (api/shared/rate-limit.ts SyncedWindows),
 * against a fake shared store and a clock the test moves.
 */
import { SyncedWindows, type Counted } from '../../api/shared/rate-limit';

const WINDOW_MS = 60_000;

/** A shared store of fixed windows, as the Mongo one: adds n to the key's open window or opens one. */
function fakeStore(clock: { now: number }) {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const calls: Array<[string, number]> = [];
  let failing = false;
  return {
    calls,
    windows,
    fail(on: boolean) {
      failing = on;
    },
    async add(key: string, n: number): Promise<Counted> {
      calls.push([key, n]);
      await Promise.resolve();
      if (failing) throw new Error('store down');
      let w = windows.get(key);
      if (!w || clock.now >= w.resetAt) windows.set(key, (w = { count: 0, resetAt: clock.now + WINDOW_MS }));
      w.count += n;
      return { consumed: w.count, msBeforeNext: w.resetAt - clock.now };
    },
  };
}

function setup(syncMs = 1_000) {
  const clock = { now: 1_000_000 };
  const store = fakeStore(clock);
  const windows = new SyncedWindows((k, n) => store.add(k, n), syncMs, () => clock.now);
  return { clock, store, windows };
}

it('syncMs 0: every request is counted in the store', async () => {
  const { store, windows } = setup(0);
  for (let i = 1; i <= 3; i++) expect((await windows.count('k')).consumed).toBe(i);
  expect(store.calls).toEqual([['k', 1], ['k', 1], ['k', 1]]);
});

it('the first requests of a window arriving together open it once and count on from it', async () => {
  const { store, windows } = setup();
  const counts = await Promise.all(Array.from({ length: 5 }, () => windows.count('k')));
  expect(counts.map((c) => c.consumed).sort()).toEqual([1, 2, 3, 4, 5]);
  expect(store.calls).toEqual([['k', 1]]);
  expect(counts[0]!.msBeforeNext).toBe(WINDOW_MS);
});

it('a sync adds the local counts in one call and learns what other processes added', async () => {
  const { store, windows } = setup();
  await windows.count('k');
  await windows.count('k');
  await windows.count('k');
  store.windows.get('k')!.count += 10; // another process
  await windows.sync();
  expect(store.calls).toEqual([['k', 1], ['k', 2]]);
  expect(store.windows.get('k')!.count).toBe(13);
  expect((await windows.count('k')).consumed).toBe(14);
});

it('a failed sync keeps its counts for the next one', async () => {
  const { store, windows } = setup();
  await windows.count('k');
  await windows.count('k');
  store.fail(true);
  await expect(windows.sync()).rejects.toThrow('store down');
  await windows.count('k');
  store.fail(false);
  await windows.sync();
  expect(store.windows.get('k')!.count).toBe(3);
});

it('when its window ends, the next request opens a new one in the store; unsynced counts of the ended window are dropped', async () => {
  const { clock, store, windows } = setup();
  await windows.count('k');
  await windows.count('k');
  clock.now += WINDOW_MS;
  expect(await windows.count('k')).toEqual({ consumed: 1, msBeforeNext: WINDOW_MS });
  await windows.sync();
  expect(store.calls).toEqual([['k', 1], ['k', 1]]);
});

it('a failed opening fails that request, and the next one opens the window again', async () => {
  const { store, windows } = setup();
  store.fail(true);
  await expect(windows.count('k')).rejects.toThrow('store down');
  store.fail(false);
  expect((await windows.count('k')).consumed).toBe(1);
});

it('keys are counted apart', async () => {
  const { windows } = setup();
  await windows.count('a');
  await windows.count('a');
  expect((await windows.count('b')).consumed).toBe(1);
  expect((await windows.count('a')).consumed).toBe(3);
});

it('forgets ended windows at the next sync, also of keys seen once', async () => {
  const { clock, windows } = setup();
  await windows.count('once');
  expect(windows.size).toBe(1);
  clock.now += WINDOW_MS;
  await windows.sync();
  expect(windows.size).toBe(0);
});

it('a request while a sync is on its way to the store still counts what the sync carries', async () => {
  const clock = { now: 1_000_000 };
  const store = fakeStore(clock);
  let release!: () => void;
  let held = false;
  const windows = new SyncedWindows(
    async (k, n) => {
      if (held) await new Promise<void>((r) => (release = r));
      return await store.add(k, n);
    },
    1_000,
    () => clock.now,
  );
  for (let i = 1; i <= 3; i++) expect((await windows.count('k')).consumed).toBe(i);
  held = true;
  const syncing = windows.sync(); // carries 2 local counts; the store has not answered yet
  await Promise.resolve();
  expect((await windows.count('k')).consumed).toBe(4);
  held = false;
  release();
  await syncing;
  expect((await windows.count('k')).consumed).toBe(5);
});
