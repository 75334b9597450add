/**
 * Newsletter editions, the text quizzes are made from (issue 12). One per day and edition
 * (morning, night), Monday to Saturday; its id `YYYY-MM-DD-morning` / `YYYY-MM-DD-night` is the
 * `postId` of the quizzes made from it. Pure.
 */
import { z } from 'zod';
import { EDITIONS, hasEditions, type Edition } from './calendar.rules';
import { isDate } from '../shared/calendar.rules';

export interface EditionDoc {
  /** `YYYY-MM-DD-<edition>`: also the quizzes' postId. */
  _id: string;
  date: string;
  edition: Edition;
  title: string;
  text: string;
  publishedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export const editionId = (date: string, edition: Edition) => `${date}-${edition}`;

/** A day that can have editions: a real date, not a Sunday. */
export const EditionDate = z
  .string()
  .max(10)
  .refine(isDate, 'date must be a calendar date written YYYY-MM-DD')
  .refine((d) => !isDate(d) || hasEditions(d), 'there are no editions on Sundays');

export const EditionName = z.enum(EDITIONS);

/** What an edition is made of (the body of PUT and of the CLI's file). */
// Maximum lengths are checked before trimming, as the published schema states them (fuzzing found a
// 301-character title with a leading space accepted).
export const EditionContent = z.strictObject({
  title: z.string().max(300).trim().min(1),
  /** The edition's text (plain text or Markdown), at least a paragraph: quizzes are grounded in it. */
  text: z.string().max(200_000).trim().min(200, 'text must hold the edition (at least 200 characters): quizzes are made from it'),
  publishedAt: z.iso.datetime({ offset: true }).max(64).optional(),
});
export type EditionContent = z.output<typeof EditionContent>;
