/** Offset pagination of the News API (spec §2.8, §8): limit 1–100 (default 20), offset ≥ 0. */
import { z } from 'zod';
import { wholeNumber } from '../params.rules';

export const PageQuery = z.object({
  limit: wholeNumber((n) => n.min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100')).default(20),
  offset: wholeNumber((n) => n.min(0, 'offset must be 0 or more')).default(0),
});
export type PageQuery = z.output<typeof PageQuery>;

export interface Pagination {
  limit: number;
  offset: number;
  total: number;
  hasMore: boolean;
}

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const PaginationView = z
  .object({ limit: z.number().int().min(1).max(100), offset: count, total: count, hasMore: z.boolean() })
  .meta({ id: 'NewsPagination', description: 'Offset pagination of a list: the page asked for, the total matching, whether more follow' });

/**
 * hasMore is true exactly when results exist beyond this page: the page's own finding where it has
 * one (a long list's total may be a shared count some seconds old: models/infra/list-totals.ts).
 */
export const paginate = (page: PageQuery, total: number, hasMore = page.offset + page.limit < total): Pagination => ({ limit: page.limit, offset: page.offset, total, hasMore });
