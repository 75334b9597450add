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

export const PaginationView = z.object({ limit: z.number(), offset: z.number(), total: z.number(), hasMore: z.boolean() });

/**
 * hasMore is true exactly when results exist beyond this page: the page's own finding where it has
 * one (a long list's total may be a shared count some seconds old: models/infra/list-totals.ts).
 */
export const paginate = (page: PageQuery, total: number, hasMore = page.offset + page.limit < total): Pagination => ({ limit: page.limit, offset: page.offset, total, hasMore });
