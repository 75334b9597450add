/**
 * The daily quiz generation schedule as the staff console shows it (issue 38, item 4): its
 * calendar spec written as cron, and what a run of it returned, read defensively (it comes from
 * Temporal, and an older run may have returned another shape). Pure.
 */
import type { ScheduleOverlapPolicy, WorkflowExecutionStatusName } from '@temporalio/client';
import { z } from 'zod';

/** Temporal's overlap policies of a schedule. */
export const OVERLAP_POLICIES = ['SKIP', 'BUFFER_ONE', 'BUFFER_ALL', 'CANCEL_OTHER', 'TERMINATE_OTHER', 'ALLOW_ALL'] as const satisfies readonly ScheduleOverlapPolicy[];
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** A run's status as the console shows it: Temporal's execution status, UNKNOWN when Temporal cannot say (or no longer has the run). */
export const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT', 'PAUSED', 'UNKNOWN'] as const satisfies readonly WorkflowExecutionStatusName[];
export type RunStatus = (typeof RUN_STATUSES)[number];
export const runStatus = (name: string | undefined): RunStatus => (RUN_STATUSES as readonly string[]).includes(name ?? '') ? (name as RunStatus) : 'UNKNOWN';

/** A calendar field's range as Temporal describes it (months and weekdays by name). */
export interface CalendarRange {
  start: number | string;
  end?: number | string | undefined;
  step?: number | undefined;
}

/** A calendar of a schedule's spec, as `ScheduleHandle.describe()` gives it. */
export interface CalendarDescription {
  second?: readonly CalendarRange[] | undefined;
  minute?: readonly CalendarRange[] | undefined;
  hour?: readonly CalendarRange[] | undefined;
  dayOfMonth?: readonly CalendarRange[] | undefined;
  month?: readonly CalendarRange[] | undefined;
  year?: readonly CalendarRange[] | undefined;
  dayOfWeek?: readonly CalendarRange[] | undefined;
  comment?: string | undefined;
}

const MONTHS = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'];
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

function numberOf(value: number | string, names?: readonly string[], firstNumber = 0): number {
  if (typeof value === 'number') return value;
  const i = names ? names.indexOf(value.toUpperCase()) : -1;
  return i >= 0 ? i + firstNumber : Number(value);
}

/** One cron field: `*` when the ranges cover [min, max] (or there are none), else `a`, `a-b`, `a-b/s`, comma-separated. */
function cronField(ranges: readonly CalendarRange[] | undefined, min: number, max: number, names?: readonly string[]): string {
  if (!ranges || ranges.length === 0) return '*';
  const parts = ranges.map((r) => {
    const start = numberOf(r.start, names, min);
    const end = r.end === undefined ? start : numberOf(r.end, names, min);
    const step = r.step && r.step > 1 ? r.step : 1;
    if (start === min && end === max && step === 1) return '*';
    if (end <= start) return String(start);
    return step > 1 ? `${start}-${end}/${step}` : `${start}-${end}`;
  });
  return parts.includes('*') ? '*' : parts.join(',');
}

/**
 * A calendar as a cron expression: `minute hour day-of-month month day-of-week` (the five
 * fields), with the seconds first when they are not 0 and the years last when it names any.
 */
export function calendarCron(c: CalendarDescription): string {
  const second = cronField(c.second, 0, 59);
  const fields = [cronField(c.minute, 0, 59), cronField(c.hour, 0, 23), cronField(c.dayOfMonth, 1, 31), cronField(c.month, 1, 12, MONTHS), cronField(c.dayOfWeek, 0, 6, WEEKDAYS)];
  if (second !== '0' && second !== '*') fields.unshift(second);
  if (c.year && c.year.length > 0) fields.push(c.year.map((r) => (r.end !== undefined && r.end !== r.start ? `${r.start}-${r.end}` : String(r.start))).join(','));
  return fields.join(' ');
}

/** `HH:MM` of the configured generation time. */
export const clockTime = (hour: number, minute: number): string => `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;

const Bounded = (max: number) => z.string().max(max);

/** One quiz of a daily run's result (workflows/quiz/generation.workflow.ts QuizGenerationResult). */
export const DailyRunQuiz = z.object({
  quizDate: Bounded(16),
  status: z.enum(['created', 'exists', 'replaced', 'skipped', 'running elsewhere']),
  quizId: Bounded(100).optional(),
  reason: z.string().optional(),
  failure: Bounded(100).optional(),
  workflowId: Bounded(200).optional(),
});

/** What a daily run returned (QuizDailyResult): its day and each quiz's outcome. */
export const DailyRunResult = z.object({ runDay: z.iso.date(), quizzes: z.array(DailyRunQuiz).max(10) });
export type DailyRunResult = z.infer<typeof DailyRunResult>;

/** A run's result as the console shows it, or null when it is not of the known shape. */
export function readDailyRunResult(value: unknown): { runDay: string; quizzes: { quizDate: string; status: DailyRunResult['quizzes'][number]['status']; quizId: string | null; reason: string | null }[] } | null {
  const parsed = DailyRunResult.safeParse(value);
  if (!parsed.success) return null;
  return {
    runDay: parsed.data.runDay,
    quizzes: parsed.data.quizzes.map((q) => ({ quizDate: q.quizDate, status: q.status, quizId: q.quizId ?? null, reason: q.reason === undefined ? null : q.reason.slice(0, 500) })),
  };
}
