/**
 * The quiz service's contracts: the views its routes answer with and the requests they take, each
 * registered with an id so that the OpenAPI document names it once (`components.schemas`). Routes
 * import them from here; the dashboard (api/web) does too, never from a route file. The AI area
 * the quiz service also serves has its own (api/ai/contracts.ts).
 */
import { z } from 'zod';
import { EDITIONS, MAX_DAYS_RECOVERY } from '../../models/quiz/calendar.rules';
import { EditionContent, EditionDate, EditionName } from '../../models/quiz/edition.rules';
import { Answers, ManualQuestion, QUIZ_RULES, type QuizDoc } from '../../models/quiz/quiz.rules';
import { wholeNumber } from '../../models/params.rules';
import { READING_SOURCES, type ReadingDoc } from '../../models/quiz/reading.repo';
import { OVERLAP_POLICIES, RUN_STATUSES } from '../../models/quiz/schedule.rules';
import { Count, IsoDate, IsoDateTime, Text } from '../shared/views';

// ---- Quizzes ------------------------------------------------------------------------------------

const AttemptOutcome = z.object({ passed: z.boolean(), correctAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions), streakRecovered: z.boolean() });

// Bounds: a generated title and description (quizTitle, quizDescription) or an admin's (≤ 200, ≤ 1,000).
export const QuizId = z.string().max(100);
export const QuizDate = z.string().max(16);
export const QuizSummary = z.object({
  id: QuizId,
  title: z.string().max(200),
  description: z.string().max(1_000),
  quizDate: QuizDate.describe('YYYY-MM-DD for the morning edition, YYYY-MM-DD-night for the night edition'),
  edition: EditionName,
  postId: z.string().max(32).describe('Id of the edition the quiz derives from'),
  minCorrectAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions),
  alreadyAttempted: z.boolean(),
  attemptResult: AttemptOutcome.nullable(),
  date: z.iso.date().max(10).describe('The edition day the quiz recovers'),
  availableUntil: z.iso.date().max(10).describe('The last day it can be taken (its date + 3 days)'),
  canSubmit: z.boolean().describe('Not attempted yet, within its 3 days, and its day not read yet'),
}).meta({ id: 'QuizSummary' });
/** A number of questions of a quiz (0–10). */
const QuestionCount = z.number().int().min(0).max(QUIZ_RULES.totalQuestions);
/** A rule's value, the one the service applies. */
const Rule = (value: number) => z.number().int().min(value).max(value);
export const Rules = z.object({ maxDaysRecovery: Rule(QUIZ_RULES.maxDaysRecovery), minCorrectAnswers: Rule(QUIZ_RULES.minCorrectAnswers), totalQuestions: Rule(QUIZ_RULES.totalQuestions), attemptsPerQuiz: Rule(QUIZ_RULES.attemptsPerQuiz) }).meta({ id: 'QuizRules' });
export const Pagination = z
  .object({ page: z.number().int().min(1).max(100_000), limit: z.number().int().min(1).max(100), total: z.number().int().min(0), totalPages: z.number().int().min(0) })
  .meta({ id: 'QuizPagination' });

export const AdminQuiz = z.object({
  id: QuizId,
  title: z.string().max(200),
  description: z.string().max(1_000),
  quizDate: QuizDate,
  date: z.iso.date().max(10),
  edition: EditionName,
  postId: z.string().max(32),
  minCorrectAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions),
  origin: z.enum(['generated', 'manual']),
  workflowId: z.string().max(200).nullable(),
  model: z.string().max(200).nullable(),
  createdAt: z.iso.datetime().max(30),
});
export const adminView = (q: Omit<QuizDoc, 'questions'>): z.input<typeof AdminQuiz> => ({
  id: q._id,
  title: q.title,
  description: q.description,
  quizDate: q.quizDate,
  date: q.date,
  edition: q.edition,
  postId: q.postId,
  minCorrectAnswers: q.minCorrectAnswers,
  origin: q.origin,
  workflowId: q.workflowId ?? null,
  model: q.model ?? null,
  createdAt: q.createdAt.toISOString(),
});

export const AvailableQuizzes = z.object({ quizzes: z.array(QuizSummary).max(MAX_DAYS_RECOVERY * EDITIONS.length), rules: Rules }).meta({ id: 'AvailableQuizzes' });
export const AttemptHistory = z.object({
  attempts: z.array(
    z.object({
      quizId: QuizId,
      quizDate: QuizDate,
      edition: EditionName,
      title: z.string().max(200),
      passed: z.boolean(),
      correctAnswers: QuestionCount,
      totalQuestions: QuestionCount,
      minCorrectAnswers: QuestionCount,
      streakRecovered: z.boolean(),
      answers: Answers,
      attemptedAt: z.iso.datetime().max(30),
    }),
  ).max(100),
  pagination: Pagination,
}).meta({ id: 'AttemptHistory' });
export const AttemptResultView = z.object({
  quizId: QuizId,
  quizDate: QuizDate,
  passed: z.boolean(),
  correctAnswers: QuestionCount,
  totalQuestions: QuestionCount,
  minCorrectAnswers: QuestionCount,
  streakRecovered: z.boolean(),
  results: z
    .array(z.object({ number: z.number().int().min(1).max(QUIZ_RULES.totalQuestions), chosen: z.number().int().min(0).max(3), correct: z.number().int().min(0).max(3), isCorrect: z.boolean() }))
    .max(QUIZ_RULES.totalQuestions),
}).meta({ id: 'AttemptResult' });
export const GenerationStarted = z.object({ workflowId: z.string().max(200), runId: z.string().max(64), date: z.iso.date().max(10), quizDates: z.array(QuizDate).max(EDITIONS.length) }).meta({ id: 'QuizGenerationStarted' });
export const QuizCreated = z.object({ quizId: QuizId, date: z.iso.date().max(10), quizDate: QuizDate, edition: EditionName }).meta({ id: 'QuizCreated' });
export const AdminQuizList = z.object({ quizzes: z.array(AdminQuiz).max(100), pagination: Pagination }).meta({ id: 'AdminQuizList' });
export const QuizDeleted = z.object({ id: QuizId }).meta({ id: 'QuizDeleted' });
export const QuizWithQuestions = QuizSummary.extend({
  totalQuestions: QuestionCount,
  questions: z
    .array(z.object({ number: z.number().int().min(1).max(QUIZ_RULES.totalQuestions), text: z.string().max(500), options: z.array(z.string().max(300)).max(4) }))
    .max(QUIZ_RULES.totalQuestions),
}).meta({ id: 'QuizWithQuestions' });

// The requests of the quiz routes.
export const QuizIdParams = z.object({ id: QuizId }).meta({ id: 'QuizIdParams' });
const paging = { page: wholeNumber((n) => n.min(1).max(100_000)).default(1), limit: wholeNumber((n) => n.min(1).max(100)).default(20) };
export const QuizHistoryQuery = z.object(paging).meta({ id: 'QuizHistoryQuery' });
export const AdminQuizListQuery = z
  .object({ from: z.iso.date().optional(), to: z.iso.date().optional(), edition: EditionName.optional(), ...paging })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to')
  .meta({ id: 'AdminQuizListQuery' });
export const SubmitAnswersBody = z.strictObject({ quizId: z.string().max(100), answers: Answers }).meta({ id: 'SubmitAnswersRequest' });
export const GenerateQuizzesBody = z
  .strictObject({ date: EditionDate.optional().describe('The edition day (YYYY-MM-DD, not a Sunday); default: the last one before today') })
  .meta({ id: 'GenerateQuizzesRequest' });
export const CreateQuizBody = z
  .strictObject({
    date: EditionDate.optional().describe('YYYY-MM-DD, not a Sunday; default: today'),
    edition: EditionName.default('morning'),
    title: z.string().max(200).trim().min(1).optional(),
    description: z.string().max(1_000).trim().min(1).optional(),
    questions: z.array(ManualQuestion).length(QUIZ_RULES.totalQuestions).optional(),
  })
  .meta({ id: 'CreateQuizRequest' });

// ---- Editions (administrators) ------------------------------------------------------------------

export const EditionParams = z.object({ date: EditionDate, edition: EditionName }).meta({ id: 'EditionParams' });
export const EditionBody = EditionContent.meta({ id: 'EditionRequest' });
export const EditionListQuery = z
  .object({
    from: z.iso.date().max(10).optional(),
    to: z.iso.date().max(10).optional(),
  })
  .meta({ id: 'EditionListQuery' });

/** The bounds of EditionContent (models/quiz/edition.rules.ts), which every stored edition passed. */
export const EditionView = z
  .object({
    id: Text(32).describe('YYYY-MM-DD-morning or YYYY-MM-DD-night; also the postId of the quizzes made from it'),
    date: IsoDate,
    edition: EditionName,
    title: Text(300),
    text: Text(200_000),
    publishedAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'Edition' });

// ---- Readings and streaks -----------------------------------------------------------------------

export const ReadingBody = z.strictObject({ userId: z.string().max(200).trim().min(1), date: EditionDate, edition: EditionName }).meta({ id: 'RecordReadingRequest' });

export const ReadingView = z.object({ userId: Text(200), date: IsoDate, edition: EditionName, source: z.enum(READING_SOURCES), at: IsoDateTime }).meta({ id: 'Reading' });
export const presentReading = (r: ReadingDoc): z.input<typeof ReadingView> => ({ userId: r.userId, date: r.date, edition: r.edition, source: r.source, at: r.at.toISOString() });

export const StreakView = z.object({
  current: Count.describe('Consecutive edition days read (Monday to Saturday; Sundays never break a streak)'),
  longest: Count,
  lastReadDate: IsoDate.nullable(),
  today: IsoDate.describe('Today in the newsletter time zone'),
  missedRecoverable: z
    .array(z.object({ date: IsoDate, quizDates: z.array(Text(16)).max(EDITIONS.length) }))
    .max(MAX_DAYS_RECOVERY)
    .describe('Edition days of the last 3 days not read, newest first, with the quizzes that recover each'),
}).meta({ id: 'Streak' });

// ---- Quiz administration: one quiz with its answers, regeneration (issue 38, item 4) ----------

export const AdminQuizDetail = AdminQuiz.extend({
  questions: z
    .array(
      z.object({
        number: z.number().int().min(1).max(QUIZ_RULES.totalQuestions),
        text: Text(500),
        options: z.array(Text(300)).max(4),
        correct: z.number().int().min(0).max(3).describe('index of the correct option'),
        evidence: Text(2_000).nullable().describe('the sentence of the edition that answers it (generated quizzes); null when written by hand'),
      }),
    )
    .max(QUIZ_RULES.totalQuestions),
}).meta({ id: 'AdminQuizDetail' });
export const adminDetailView = (q: QuizDoc): z.input<typeof AdminQuizDetail> => ({
  ...adminView(q),
  questions: q.questions.map((x, i) => ({ number: i + 1, text: x.text, options: x.options, correct: x.correct, evidence: x.evidence ?? null })),
});

export const QuizRegenerated = z
  .object({
    quizId: QuizId.describe('the new quiz'),
    replacedQuizId: QuizId.describe('the quiz it replaced (gone)'),
    date: IsoDate,
    quizDate: QuizDate,
    edition: EditionName,
    workflowId: Text(200).describe('the generation run (quiz-generation-<quizDate>)'),
  })
  .meta({ id: 'QuizRegenerated' });

// ---- The daily generation schedule (issue 38, item 4) -------------------------------------------

const RunView = z.object({
  scheduledAt: IsoDateTime,
  startedAt: IsoDateTime,
  workflowId: Text(200),
  runId: Text(64),
  status: z.enum(RUN_STATUSES).describe("Temporal's execution status; UNKNOWN when Temporal cannot say now or no longer keeps the run"),
  closedAt: IsoDateTime.nullable(),
  result: z
    .object({
      runDay: IsoDate,
      quizzes: z
        .array(z.object({ quizDate: Text(16), status: z.enum(['created', 'exists', 'replaced', 'skipped', 'running elsewhere']), quizId: Text(100).nullable(), reason: Text(500).nullable() }))
        .max(10),
    })
    .nullable()
    .describe('what a completed run made: its day and each quiz (null while running, or when it did not complete)'),
  failure: Text(1_000).nullable().describe('why the run failed, was terminated or timed out'),
  temporalUiUrl: Text(2_000),
});

export const QuizScheduleView = z
  .object({
    scheduleId: Text(200),
    paused: z.boolean(),
    note: Text(1_000).nullable().describe('why it was paused or resumed, and by whom'),
    spec: z.object({ cron: z.array(Text(100)).max(10).describe('minute hour day-of-month month day-of-week'), timeZone: Text(100) }),
    configured: z
      .object({ time: Text(5), timeZone: Text(100), createdByWorkers: z.boolean().describe('QUIZ_SCHEDULE_ENABLED: workers create the schedule at start-up and keep it in step') })
      .describe("this deployment's configuration (QUIZ_GENERATION_TIME, QUIZ_GENERATION_TIME_ZONE), which workers apply when they start"),
    overlap: z.enum(OVERLAP_POLICIES).describe('what happens when a run is due while the last one still runs'),
    catchupWindowMs: Count,
    nextRuns: z.array(IsoDateTime).max(10),
    recentRuns: z.array(RunView).max(10).describe('newest first (Temporal keeps the last ten), triggered runs included'),
    running: z.array(z.object({ workflowId: Text(200), runId: Text(64) })).max(10),
    actionsTaken: Count,
    skippedOverlap: Count,
    missedCatchupWindow: Count,
    createdAt: IsoDateTime.nullable(),
    updatedAt: IsoDateTime.nullable(),
    temporalUiUrl: Text(2_000),
  })
  .meta({ id: 'QuizSchedule' });

const Note = z
  .string()
  .max(400)
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
  .trim()
  .min(1);
export const QuizSchedulePauseBody = z.strictObject({ note: Note.optional().describe('why (kept in Temporal with who sent it)') }).meta({ id: 'QuizSchedulePauseRequest' });
export const QuizScheduleUnpauseBody = z.strictObject({ note: Note.optional() }).meta({ id: 'QuizScheduleUnpauseRequest' });

export const QuizScheduleTriggered = z
  .object({
    scheduleId: Text(200),
    overlap: z.enum(OVERLAP_POLICIES).describe('the policy the run was started under: the schedule\'s own'),
    workflowId: Text(200).nullable().describe('the run started; null when Temporal had not shown it within 3 s (it starts shortly)'),
    runId: Text(64).nullable(),
    temporalUiUrl: Text(2_000).nullable(),
  })
  .meta({ id: 'QuizScheduleTriggered' });
