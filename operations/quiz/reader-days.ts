/**
 * The days a reader read an edition or recovered by passing its quiz: what streaks count and what
 * decides whether a quiz can still be taken (docs/decisions.md "Streaks from a day mask"). Readings
 * and attempts are the history; the reader's day mask is what streaks read, marked after each.
 */
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import type { AttemptDoc, AttemptRepo } from '../../models/quiz/attempt.repo';
import { EDITIONS, quizDateOf, type Edition } from '../../models/quiz/calendar.rules';
import { localDate } from '../../models/shared/calendar.rules';
import { streakOf } from '../../models/quiz/streak.rules';
import type { EditionRepo } from '../../models/quiz/edition.repo';
import type { QuizRepo } from '../../models/quiz/quiz.repo';
import type { ReadDaysRepo } from '../../models/quiz/read-days.repo';
import type { ReadingDoc, ReadingRepo } from '../../models/quiz/reading.repo';

/** The quiz service's repositories and the clock "today" is read from (tests set a day of their own). */
export interface QuizStore {
  editions: EditionRepo;
  readings: ReadingRepo;
  quizzes: QuizRepo;
  attempts: AttemptRepo;
  readDays: ReadDaysRepo;
  now: () => Date;
}

export interface ReaderDaysDeps {
  quiz: QuizStore;
  config: Pick<Config, 'quiz'>;
}

/** Today in the newsletter's time zone. */
export const today = (deps: ReaderDaysDeps): string => localDate(deps.quiz.now(), deps.config.quiz.timeZone);

/**
 * Records that a reader read an edition (not after today) and marks its day; again when it was
 * recorded before, so a retry heals a lost mark.
 */
export async function recordReading(deps: ReaderDaysDeps, userId: string, date: string, edition: Edition): Promise<{ doc: ReadingDoc; created: boolean }> {
  const on = today(deps);
  if (date > on) throw new AppError('VALIDATION_FAILED', `A reading cannot be dated after today (${on})`, { details: [{ path: 'date', message: 'after today' }] });
  const recorded = await deps.quiz.readings.record(userId, date, edition, 'read');
  await deps.quiz.readDays.mark(userId, [date]);
  return recorded;
}

/** Marks a day a passed quiz recovered (after its attempt is stored; again on a retry). */
export async function markRecovered(deps: ReaderDaysDeps, userId: string, date: string): Promise<void> {
  await deps.quiz.readDays.mark(userId, [date]);
}

/** The days a reader read an edition or recovered by passing its quiz (what streaks count). */
export async function readDays(deps: ReaderDaysDeps, userId: string): Promise<Set<string>> {
  const kept = await deps.quiz.readDays.of(userId);
  if (kept?.complete) return new Set(kept.days);
  // Days recorded before the reader's document existed: gathered once from the history. Marks
  // made meanwhile are ORs into the same document, so none is lost.
  const [read, recovered] = await Promise.all([deps.quiz.readings.daysRead(userId), deps.quiz.attempts.recoveredDays(userId)]);
  const all = new Set([...read, ...recovered, ...(kept?.days ?? [])]);
  await deps.quiz.readDays.mark(userId, all, { complete: true });
  return all;
}

/** What a reader did on the days from `from` to `to`: the days read or recovered, and the attempts made. */
export async function activityBetween(deps: ReaderDaysDeps, userId: string, from: string, to: string): Promise<{ read: Set<string>; attempts: AttemptDoc[] }> {
  const [read, made] = await Promise.all([deps.quiz.readings.daysRead(userId, { from, to }), deps.quiz.attempts.between(userId, from, to)]);
  return { read: new Set([...read, ...made.filter((a) => a.streakRecovered).map((a) => a.date)]), attempts: made };
}

/** A reader's streak today, with the missed days still recoverable and the quizzes that recover each. */
export async function streakToday(deps: ReaderDaysDeps, userId: string) {
  const on = today(deps);
  const s = streakOf(await readDays(deps, userId), on);
  return { ...s, today: on, missedRecoverable: s.missedRecoverable.map((date) => ({ date, quizDates: EDITIONS.map((e) => quizDateOf(date, e)) })) };
}
