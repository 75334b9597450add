/**
 * A reader's days read (or recovered), kept as one 31-bit mask per calendar month: bit d−1 of
 * month `YYYY-MM` is day d. A year is twelve small integers, so a streak reads one document; a day
 * is added with `$bit: {or}`, which is idempotent and commutes, so concurrent and repeated marks of
 * any days meet in the same document without a read (docs/decisions.md, "Streaks from a day mask").
 * Pure.
 */

/** The month field and bit of a `YYYY-MM-DD` day. */
export function bitOf(date: string): { month: string; bit: number } {
  return { month: date.slice(0, 7), bit: 1 << (Number(date.slice(8, 10)) - 1) };
}

/** The OR masks that mark `dates`, by month. */
export function masksOf(dates: Iterable<string>): Record<string, number> {
  const masks: Record<string, number> = {};
  for (const d of dates) {
    const { month, bit } = bitOf(d);
    masks[month] = (masks[month] ?? 0) | bit;
  }
  return masks;
}

/** The days the masks mark, oldest first. */
export function daysOf(masks: Readonly<Record<string, number>>): string[] {
  const days: string[] = [];
  for (const month of Object.keys(masks).sort()) {
    const mask = masks[month]!;
    for (let d = 1; d <= 31; d++) if (mask & (1 << (d - 1))) days.push(`${month}-${String(d).padStart(2, '0')}`);
  }
  return days;
}
