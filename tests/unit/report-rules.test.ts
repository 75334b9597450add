/** Periods and percentage changes of the support reports (issue 14). */
import { comparedPeriod, percentChange, periodRange, startOfDay, weekStartOf, yearEarlier } from '../../models/support/report.rules';
import { cacheKey } from '../../models/support/report-cache.repo';
import { toCsv } from '../../models/support/csv.rules';

describe('report periods', () => {
  it('starts a day at local midnight, across offsets and daylight-saving changes', () => {
    expect(startOfDay('2031-03-10', 'America/Sao_Paulo').toISOString()).toBe('2031-03-10T03:00:00.000Z');
    expect(startOfDay('2031-03-10', 'UTC').toISOString()).toBe('2031-03-10T00:00:00.000Z');
    // New York: EST (−5) before 9 March 2031, EDT (−4) from it.
    expect(startOfDay('2031-03-08', 'America/New_York').toISOString()).toBe('2031-03-08T05:00:00.000Z');
    expect(startOfDay('2031-03-10', 'America/New_York').toISOString()).toBe('2031-03-10T04:00:00.000Z');
    expect(periodRange({ inicio: '2031-03-10', fim: '2031-03-16' }, 'America/Sao_Paulo')).toEqual({ from: new Date('2031-03-10T03:00:00Z'), to: new Date('2031-03-17T03:00:00Z') });
  });

  it('compares with the period before, of equal length, or the same days a year earlier', () => {
    expect(comparedPeriod({ inicio: '2031-03-10', fim: '2031-03-16' }, 'periodo_anterior')).toEqual({ inicio: '2031-03-03', fim: '2031-03-09' });
    expect(comparedPeriod({ inicio: '2031-03-01', fim: '2031-03-01' }, 'periodo_anterior')).toEqual({ inicio: '2031-02-28', fim: '2031-02-28' });
    expect(comparedPeriod({ inicio: '2032-02-01', fim: '2032-02-29' }, 'mesmo_periodo_ano_anterior')).toEqual({ inicio: '2031-02-01', fim: '2031-02-28' });
    expect(yearEarlier('2031-12-31')).toBe('2030-12-31');
  });

  it('weeks start on Monday', () => {
    expect(weekStartOf('2031-03-13')).toBe('2031-03-10'); // Thursday
    expect(weekStartOf('2031-03-10')).toBe('2031-03-10'); // Monday
    expect(weekStartOf('2031-03-16')).toBe('2031-03-10'); // Sunday
    expect(weekStartOf('2031-03-01')).toBe('2031-02-24'); // Saturday, across a month
  });

  it('percentage changes, from zero too', () => {
    expect(percentChange(2, 4)).toBe(100);
    expect(percentChange(4, 1)).toBe(-75);
    expect(percentChange(3, 4)).toBe(33.33);
    expect(percentChange(0, 0)).toBe(0);
    expect(percentChange(0, 7)).toBe(100);
  });

  it('keys the cache by report and parameters, whatever their order', () => {
    expect(cacheKey('comparativo', { a: 1, b: 2 })).toBe(cacheKey('comparativo', { b: 2, a: 1, c: undefined }));
    expect(cacheKey('comparativo', { a: 1 })).not.toBe(cacheKey('comparativo', { a: 2 }));
    expect(cacheKey('comparativo', {})).not.toBe(cacheKey('filtros', {}));
  });
});

it('writes RFC 4180 CSV, defusing cells a spreadsheet would run as formulas', () => {
  const csv = toCsv(
    [
      { header: 'name', value: (r: { name: string; n: number | null }) => r.name },
      { header: 'n', value: (r: { name: string; n: number | null }) => r.n },
    ],
    [
      { name: 'plain', n: 1 },
      { name: 'a, "quoted"\nline', n: -2.5 },
      { name: '=HYPERLINK("x")', n: null },
    ],
  );
  expect(csv).toBe('name,n\r\nplain,1\r\n"a, ""quoted""\nline",-2.5\r\n"\'=HYPERLINK(""x"")",\r\n');
});
