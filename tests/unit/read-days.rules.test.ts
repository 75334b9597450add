import { bitOf, daysOf, masksOf } from '../../models/quiz/read-days.rules';

it('puts day d of a month on bit d−1 of that month', () => {
  expect(bitOf('2026-11-01')).toEqual({ month: '2026-11', bit: 1 });
  expect(bitOf('2026-11-24')).toEqual({ month: '2026-11', bit: 2 ** 23 });
  expect(bitOf('2026-12-31')).toEqual({ month: '2026-12', bit: 2 ** 30 });
});

it('merges days by month, repeats ignored, and reads them back oldest first', () => {
  const dates = ['2026-12-31', '2026-11-24', '2026-11-01', '2026-11-24', '2025-02-28'];
  const masks = masksOf(dates);
  expect(masks).toEqual({ '2026-12': 2 ** 30, '2026-11': 1 + 2 ** 23, '2025-02': 2 ** 27 });
  expect(daysOf(masks)).toEqual(['2025-02-28', '2026-11-01', '2026-11-24', '2026-12-31']);
});

it('reads every day of a full month and nothing from an empty one', () => {
  expect(daysOf({ '2026-01': 2 ** 31 - 1 })).toHaveLength(31);
  expect(daysOf({ '2026-02': 0 })).toEqual([]);
});
