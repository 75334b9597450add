/**
 * The AI usage reports (operations/ai/usage.ts) with a fake repository: the administrators' report
 * per user and model (its period, its bounds, its pages) and the caller's own report, which shares
 * the period's rules.
 */
import { AppError } from '../../models/errors';
import type { UsageByUserAndModel, UsageByUserAndModelQuery, UsageDay } from '../../models/ai/usage.repo';
import { periodOf, usageByUserAndModel, usageReport } from '../../operations/ai/usage';

const NOW = new Date('2026-11-24T15:30:00Z');

/** A repository that records what it was asked and answers `answer`. */
function fakeUsage(answer: UsageByUserAndModel = { rows: [], total: 0, totals: { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 } }) {
  const asked: UsageByUserAndModelQuery[] = [];
  return {
    asked,
    deps: {
      ai: {
        usage: {
          byUserAndModel: async (q: UsageByUserAndModelQuery) => {
            asked.push(q);
            return answer;
          },
        },
      },
    },
  };
}

describe('usage per user and model (administrators)', () => {
  it('reads the last 30 days (today included) by default, of every user', async () => {
    const { deps, asked } = fakeUsage();
    const report = await usageByUserAndModel(deps, { page: 1, limit: 20 }, NOW);
    expect(asked).toEqual([{ from: '2026-10-26', to: '2026-11-24', user: undefined, page: 1, limit: 20 }]);
    expect(report).toEqual({
      from: '2026-10-26',
      to: '2026-11-24',
      user: null,
      rows: [],
      totals: { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
    });
  });

  it("answers the repository's rows, their sums and the pages they make, for one user and a period", async () => {
    const rows = [
      { userId: 'usr_em_a', model: 'gpt-4o', requests: 3, promptTokens: 900, completionTokens: 300, totalTokens: 1_200 },
      { userId: 'usr_em_a', model: 'gpt-4o-mini', requests: 5, promptTokens: 400, completionTokens: 100, totalTokens: 500 },
    ];
    const totals = { requests: 9, promptTokens: 1_350, completionTokens: 420, totalTokens: 1_770 };
    const { deps, asked } = fakeUsage({ rows, total: 5, totals });
    const report = await usageByUserAndModel(deps, { from: '2026-11-01', to: '2026-11-10', user: 'usr_em_a', page: 2, limit: 2 }, NOW);
    expect(asked).toEqual([{ from: '2026-11-01', to: '2026-11-10', user: 'usr_em_a', page: 2, limit: 2 }]);
    expect(report).toEqual({ from: '2026-11-01', to: '2026-11-10', user: 'usr_em_a', rows, totals, pagination: { page: 2, limit: 2, total: 5, totalPages: 3 } });
  });

  it('takes `to` alone as the end of 30 days, and `from` alone up to today', async () => {
    const { deps, asked } = fakeUsage();
    await usageByUserAndModel(deps, { to: '2026-03-01', page: 1, limit: 20 }, NOW); // 2026 is no leap year
    await usageByUserAndModel(deps, { from: '2026-11-20', page: 1, limit: 20 }, NOW);
    expect(asked.map((q) => [q.from, q.to])).toEqual([
      ['2026-01-31', '2026-03-01'],
      ['2026-11-20', '2026-11-24'],
    ]);
  });

  it('refuses a period longer than 366 days (400), asking the database nothing', async () => {
    const { deps, asked } = fakeUsage();
    const err = await usageByUserAndModel(deps, { from: '2025-01-01', to: '2026-11-24', page: 1, limit: 20 }, NOW).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_FAILED');
    expect((err as AppError).message).toContain('at most 366 days');
    expect(asked).toEqual([]);
    // 366 days exactly is a period (a leap year's worth).
    await usageByUserAndModel(deps, { from: '2027-11-24', to: '2028-11-24', page: 1, limit: 20 }, NOW);
    expect(asked).toHaveLength(1);
  });
});

describe("the caller's own usage", () => {
  it('shares the period rules: the last 30 days by default, at most 366', async () => {
    const days: UsageDay[] = [{ day: '2026-11-24', requests: 2, promptTokens: 30, completionTokens: 10, totalTokens: 40 }];
    const asked: [string, string, string][] = [];
    const deps = {
      ai: {
        usage: {
          byDay: async (userId: string, from: string, to: string) => {
            asked.push([userId, from, to]);
            return days;
          },
          tokensOn: async () => 40,
        },
      },
      config: { ai: { dailyTokensPerUser: 1_000 } } as never,
    };
    const report = await usageReport(deps, 'usr_em_a', {}, NOW);
    expect(asked).toEqual([['usr_em_a', '2026-10-26', '2026-11-24']]);
    expect(report.totals).toEqual({ requests: 2, promptTokens: 30, completionTokens: 10, totalTokens: 40 });
    expect(report.budget).toMatchObject({ usedTokens: 40, remainingTokens: 960 });
    await expect(usageReport(deps, 'usr_em_a', { from: '2020-01-01', to: '2026-01-01' }, NOW)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(periodOf({ from: '2026-11-01', to: '2026-11-01' }, NOW)).toEqual({ from: '2026-11-01', to: '2026-11-01' });
  });
});
