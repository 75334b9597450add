/**
 * The quiz administration's calls (quiz.admin), the quiz service's own routes served by the
 * dashboard under the staff session: /api/staff/quiz/admin/… (api/quiz/quizzes.routes.ts,
 * editions.routes.ts, schedule.routes.ts; views in api/quiz/contracts.ts).
 */
import type { Edition } from '../../../../models/quiz/calendar.rules';
import type { OverlapPolicy, RunStatus } from '../../../../models/quiz/schedule.rules';
import { segment, staffApi } from '../api';

export type { Edition, OverlapPolicy, RunStatus };

/** AdminQuiz: a quiz without its questions. */
export interface AdminQuiz {
  id: string;
  title: string;
  description: string;
  /** YYYY-MM-DD (morning) or YYYY-MM-DD-night. */
  quizDate: string;
  date: string;
  edition: Edition;
  postId: string;
  minCorrectAnswers: number;
  origin: 'generated' | 'manual';
  workflowId: string | null;
  model: string | null;
  createdAt: string;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** AdminQuizList */
export interface AdminQuizList {
  quizzes: AdminQuiz[];
  pagination: Pagination;
}

/** AdminQuizDetail: every question with its options, the correct one and the edition's sentence that answers it. */
export interface AdminQuizDetail extends AdminQuiz {
  questions: { number: number; text: string; options: string[]; correct: number; evidence: string | null }[];
}

/** Edition */
export interface EditionView {
  id: string;
  date: string;
  edition: Edition;
  title: string;
  text: string;
  publishedAt: string;
  updatedAt: string;
}

/** QuizCreated */
export interface QuizCreated {
  quizId: string;
  date: string;
  quizDate: string;
  edition: Edition;
}

/** QuizGenerationStarted */
export interface GenerationStarted {
  workflowId: string;
  runId: string;
  date: string;
  quizDates: string[];
}

/** QuizRegenerated */
export interface QuizRegenerated {
  quizId: string;
  replacedQuizId: string;
  date: string;
  quizDate: string;
  edition: Edition;
  workflowId: string;
}

export type RunQuizStatus = 'created' | 'exists' | 'replaced' | 'skipped' | 'running elsewhere';

export interface ScheduleRun {
  scheduledAt: string;
  startedAt: string;
  workflowId: string;
  runId: string;
  status: RunStatus;
  closedAt: string | null;
  result: { runDay: string; quizzes: { quizDate: string; status: RunQuizStatus; quizId: string | null; reason: string | null }[] } | null;
  failure: string | null;
  temporalUiUrl: string;
}

/** QuizSchedule */
export interface QuizSchedule {
  scheduleId: string;
  paused: boolean;
  note: string | null;
  spec: { cron: string[]; timeZone: string };
  configured: { time: string; timeZone: string; createdByWorkers: boolean };
  overlap: OverlapPolicy;
  catchupWindowMs: number;
  nextRuns: string[];
  recentRuns: ScheduleRun[];
  running: { workflowId: string; runId: string }[];
  actionsTaken: number;
  skippedOverlap: number;
  missedCatchupWindow: number;
  createdAt: string | null;
  updatedAt: string | null;
  temporalUiUrl: string;
}

/** QuizScheduleTriggered */
export interface ScheduleTriggered {
  scheduleId: string;
  overlap: OverlapPolicy;
  workflowId: string | null;
  runId: string | null;
  temporalUiUrl: string | null;
}

/** Quizzes a page (the API allows 1 to 100). */
export const QUIZ_PAGE_SIZE = 20;

const quiz = (id: string) => `/quiz/admin/${segment(id)}`;

export const quizApi = {
  remove: (id: string) => staffApi.delete<{ id: string }>(quiz(id)),
  regenerate: (id: string) => staffApi.post<QuizRegenerated>(`${quiz(id)}/regenerate`),
  /** One quiz of a day and edition, generated from the stored edition and waited for (no questions sent). */
  create: (body: { date: string; edition: Edition }) => staffApi.post<QuizCreated>('/quiz/admin/create', body),
  /** The generation of both editions of a day, started in the background (202). */
  generateDay: (date: string) => staffApi.post<GenerationStarted>('/quiz/admin/generate', { date }),
  pause: (note: string | undefined) => staffApi.post<QuizSchedule>('/quiz/admin/schedule/pause', note ? { note } : {}),
  unpause: (note: string | undefined) => staffApi.post<QuizSchedule>('/quiz/admin/schedule/unpause', note ? { note } : {}),
  trigger: () => staffApi.post<ScheduleTriggered>('/quiz/admin/schedule/trigger'),
};

export const quizPath = (id: string) => `/staff/quiz/${encodeURIComponent(id)}`;
