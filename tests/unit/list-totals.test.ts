import { canonicalKey, createListTotals } from '../../models/infra/list-totals';

/** A list of `n` rows that counts how often it was counted. */
function list(n: number) {
  const state = { n, counts: 0 };
  return {
    state,
    read: (offset: number) => async (limit: number) => Array.from({ length: Math.max(0, Math.min(limit, state.n - offset)) }, (_, i) => offset + i),
    count: async () => {
      state.counts += 1;
      return state.n;
    },
  };
}

describe('list totals', () => {
  it('counts nothing when the page reaches the end of the list: the total is exact', async () => {
    const totals = createListTotals({ maxAgeMs: 10_000 });
    const l = list(45);
    expect(await totals.page('k', { offset: 0, limit: 50 }, l.read(0), l.count)).toEqual({ items: expect.any(Array), total: 45, hasMore: false });
    expect(await totals.page('k', { offset: 40, limit: 20 }, l.read(40), l.count)).toMatchObject({ total: 45, hasMore: false });
    expect((await totals.page('k', { offset: 40, limit: 20 }, l.read(40), l.count)).items).toEqual([40, 41, 42, 43, 44]);
    expect(l.state.counts).toBe(0);
  });

  it('shares one count per filter for at most maxAgeMs, then counts again', async () => {
    let clock = 1_000;
    const totals = createListTotals({ maxAgeMs: 10_000, now: () => clock });
    const l = list(1_000);
    const first = await Promise.all([1, 2, 3].map(() => totals.page('k', { offset: 0, limit: 20 }, l.read(0), l.count)));
    expect(first.map((p) => p.total)).toEqual([1_000, 1_000, 1_000]);
    expect(first[0]!.hasMore).toBe(true);
    expect(l.state.counts).toBe(1);
    l.state.n = 1_005;
    clock += 9_999;
    expect((await totals.page('k', { offset: 0, limit: 20 }, l.read(0), l.count)).total).toBe(1_000);
    expect(l.state.counts).toBe(1);
    // Another filter has its own count.
    expect((await totals.page('other', { offset: 0, limit: 20 }, l.read(0), l.count)).total).toBe(1_005);
    clock += 2;
    expect((await totals.page('k', { offset: 0, limit: 20 }, l.read(0), l.count)).total).toBe(1_005);
    expect(l.state.counts).toBe(3);
  });

  it('never gives a total below what the page proves, and counts past the end', async () => {
    let clock = 0;
    const totals = createListTotals({ maxAgeMs: 10_000, now: () => clock });
    const l = list(100);
    expect((await totals.page('k', { offset: 0, limit: 20 }, l.read(0), l.count)).total).toBe(100);
    l.state.n = 300;
    clock += 1;
    // The shared count says 100, but this page shows rows 200–220 and more beyond.
    expect(await totals.page('k', { offset: 200, limit: 20 }, l.read(200), l.count)).toMatchObject({ total: 221, hasMore: true });
    // A page past the end needs the count (it proves nothing).
    expect(await totals.page('k', { offset: 500, limit: 20 }, l.read(500), l.count)).toMatchObject({ items: [], total: 100, hasMore: false });
  });

  it('counts every time when maxAgeMs is 0, and does not keep a failed count', async () => {
    const l = list(50);
    const exact = createListTotals({ maxAgeMs: 0 });
    await exact.page('k', { offset: 0, limit: 10 }, l.read(0), l.count);
    await exact.page('k', { offset: 0, limit: 10 }, l.read(0), l.count);
    expect(l.state.counts).toBe(2);

    const shared = createListTotals({ maxAgeMs: 10_000 });
    await expect(shared.page('k', { offset: 0, limit: 10 }, l.read(0), () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect((await shared.page('k', { offset: 0, limit: 10 }, l.read(0), l.count)).total).toBe(50);
  });

  it('names a filter the same whatever the order of its keys, and dates and patterns by value', () => {
    const d = new Date('2026-11-20T00:00:00Z');
    expect(canonicalKey('a', { x: 1, y: { $gte: d, $lt: 3 } })).toBe(canonicalKey('a', { y: { $lt: 3, $gte: new Date(d) }, x: 1 }));
    expect(canonicalKey('a', { x: 1 })).not.toBe(canonicalKey('b', { x: 1 }));
    expect(canonicalKey('a', { t: /ab/i })).not.toBe(canonicalKey('a', { t: /ab/ }));
    expect(canonicalKey('a', { t: undefined, u: 1 })).toBe(canonicalKey('a', { u: 1 }));
  });
});
