/** Splitting a long operation's items into chunks, one activity call each (support bulk operations, news re-enrichment). Pure. */

/** [start, end) ranges of `size` over `total` positions, the last one short. */
export const chunkRanges = (total: number, size: number): [number, number][] =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) => [i * size, Math.min(total, (i + 1) * size)]);
