/**
 * /staff/quiz/schedule: the daily generation schedule (GET /quiz/admin/schedule): paused or running
 * and the note saying why, its spec (cron and time zone, and this deployment's configured time),
 * the next runs, the last runs with what each made, the runs going on, links into the Temporal UI;
 * pause (with a note), resume, and run now (a refusal while a run goes on, 409, is explained). A
 * schedule that does not exist (404) is a state of its own, with the API's reason.
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime, STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Panel, useConfirm, useNotify, type Column } from '../ui';
import { quizApi, quizPath, type QuizSchedule, type ScheduleRun, type ScheduleTriggered } from './api';
import { formatDay, formatNumber, formatWindow } from './format';
import { NS, useActionFailure } from './shared';

/** The longest note the API keeps. */
const NOTE_MAX = 400;

export function ScheduleView() {
  const { t } = useTranslation(NS);
  const schedule = useStaffResource<QuizSchedule>('/quiz/admin/schedule');
  const [override, setOverride] = useState<QuizSchedule | null>(null);
  const s = override ?? schedule.data;
  const reload = async () => {
    setOverride(null);
    await schedule.reload();
  };

  if (schedule.failure?.kind === 'notFound') return <NoSchedule failure={schedule.failure} onRetry={() => void reload()} />;
  return (
    <>
      <Panel title={t('schedule.title')} actions={s ? <button type="button" className="secondary small" onClick={() => void reload()} disabled={schedule.loading}>{t('schedule.refresh')}</button> : null}>
        {schedule.failure ? (
          <ErrorState failure={schedule.failure} onRetry={() => void reload()} />
        ) : !s ? (
          <LoadingState />
        ) : (
          <ScheduleState schedule={s} onChanged={(next) => (next ? setOverride(next) : void reload())} />
        )}
      </Panel>
      {s ? <Runs schedule={s} /> : null}
    </>
  );
}

function NoSchedule({ failure, onRetry }: { failure: Failure; onRetry: () => void }) {
  const { t } = useTranslation(NS);
  return (
    <Panel title={t('schedule.title')}>
      <div className="quiz-no-schedule" data-testid="quiz-no-schedule">
        <p className="quiz-state-line">
          <span className="quiz-badge none">{t('schedule.none')}</span>
        </p>
        <p>{t('schedule.noneLead')}</p>
        <p className="muted small">
          {t('schedule.noneReason')} <q lang="en">{failure.message}</q>
        </p>
        <p>{t('schedule.noneGenerate')}</p>
        <div className="row">
          <Link to="/staff/quiz">{t('schedule.toQuizzes')}</Link>
          <button type="button" className="secondary" onClick={onRetry}>
            {t('schedule.refresh')}
          </button>
        </div>
      </div>
    </Panel>
  );
}

/** The schedule's state and its actions. `onChanged(next)`: the state the API answered (or null: read it again). */
function ScheduleState({ schedule: s, onChanged }: { schedule: QuizSchedule; onChanged: (next: QuizSchedule | null) => void }) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const confirm = useConfirm();
  const actionFailure = useActionFailure();
  const id = useId();
  const [note, setNote] = useState('');
  const [noteError, setNoteError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'pause' | 'unpause' | 'trigger' | null>(null);
  const [refusal, setRefusal] = useState<{ action: string; failure: Failure } | null>(null);
  const [triggered, setTriggered] = useState<ScheduleTriggered | null>(null);
  const catchup = formatWindow(s.catchupWindowMs, i18n.language);

  const checkNote = (): string | undefined | false => {
    const trimmed = note.trim();
    // The API refuses control characters (a line break included) and more than 400 characters.
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    const problem = trimmed.length > NOTE_MAX ? t('schedule.noteTooLong', { max: NOTE_MAX }) : /[\u0000-\u001f\u007f]/.test(trimmed) ? t('schedule.noteControl') : null;
    setNoteError(problem);
    return problem ? false : trimmed || undefined;
  };

  const change = async (action: 'pause' | 'unpause', e?: FormEvent) => {
    e?.preventDefault();
    setRefusal(null);
    const checked = checkNote();
    if (checked === false) {
      document.getElementById(`${id}-note`)?.focus();
      return;
    }
    setBusy(action);
    try {
      const next = action === 'pause' ? await quizApi.pause(checked) : await quizApi.unpause(checked);
      notify(action === 'pause' ? t('schedule.paused') : t('schedule.resumed'));
      setNote('');
      onChanged(next);
    } catch (err) {
      setRefusal({ action, failure: failureOf(err) });
    } finally {
      setBusy(null);
    }
  };

  const trigger = async () => {
    setRefusal(null);
    setTriggered(null);
    const ok = await confirm({
      title: t('schedule.triggerTitle'),
      body: (
        <>
          <p>{t('schedule.triggerBody')}</p>
          {s.paused ? <p className="warn">{t('schedule.triggerWhilePaused')}</p> : null}
        </>
      ),
      confirmLabel: t('schedule.trigger'),
    });
    if (!ok) return;
    setBusy('trigger');
    try {
      const run = await quizApi.trigger();
      setTriggered(run);
      notify(t('schedule.triggered'), 'info');
      onChanged(null);
    } catch (err) {
      setRefusal({ action: 'trigger', failure: failureOf(err) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="quiz-schedule" data-testid="quiz-schedule" data-paused={s.paused ? 'true' : 'false'}>
      <p className="quiz-state-line">
        <span className={`quiz-badge ${s.paused ? 'paused' : 'active'}`}>{s.paused ? t('schedule.statePaused') : t('schedule.stateActive')}</span>
        {s.running.length ? <span className="quiz-badge running">{t('schedule.runningNow', { count: s.running.length })}</span> : null}
      </p>
      {s.note ? (
        <p className="quiz-note">
          <span className="quiz-note-label">{t('schedule.note')}</span> <span>{s.note}</span>
        </p>
      ) : null}
      <dl className="quiz-facts">
        <dt>{t('schedule.when')}</dt>
        <dd>
          {s.spec.cron.map((c) => (
            <code key={c} className="quiz-code">
              {c}
            </code>
          ))}{' '}
          ({s.spec.timeZone})
        </dd>
        <dt>{t('schedule.configured')}</dt>
        <dd>
          {t('schedule.configuredValue', { time: s.configured.time, timeZone: s.configured.timeZone })}
          <br />
          <span className="muted small">{s.configured.createdByWorkers ? t('schedule.byWorkers') : t('schedule.notByWorkers')}</span>
        </dd>
        <dt>{t('schedule.overlap')}</dt>
        <dd>
          <code className="quiz-code">{s.overlap}</code> <span className="muted small">{t(`schedule.overlaps.${s.overlap}`, { defaultValue: '' })}</span>
        </dd>
        <dt>{t('schedule.catchup')}</dt>
        <dd>{t(`schedule.catchup_${catchup.unit}`, { value: catchup.value })}</dd>
        <dt>{t('schedule.counters')}</dt>
        <dd>
          {t('schedule.countersValue', {
            taken: formatNumber(s.actionsTaken, i18n.language),
            skipped: formatNumber(s.skippedOverlap, i18n.language),
            missed: formatNumber(s.missedCatchupWindow, i18n.language),
          })}
        </dd>
        <dt>{t('schedule.next')}</dt>
        <dd>
          {s.nextRuns.length === 0 ? (
            <span className="muted">{s.paused ? t('schedule.noNextPaused') : t('schedule.noNext')}</span>
          ) : (
            <>
              {s.paused ? <p className="warn small quiz-next-paused">{t('schedule.nextWhilePaused')}</p> : null}
              <ul className={`quiz-next${s.paused ? ' paused' : ''}`}>
                {s.nextRuns.slice(0, 5).map((at) => (
                  <li key={at}>{formatDateTime(at, i18n.language)}</li>
                ))}
              </ul>
            </>
          )}
        </dd>
        <dt>{t('schedule.temporal')}</dt>
        <dd>
          <a href={s.temporalUiUrl} target="_blank" rel="noreferrer noopener">
            {t('schedule.openTemporal')}
            <span className="visually-hidden"> {t('opensInNewTab')}</span>
          </a>
          <br />
          <code className="quiz-code small">{s.scheduleId}</code>
        </dd>
      </dl>

      <form className="quiz-schedule-actions" onSubmit={(e) => void change(s.paused ? 'unpause' : 'pause', e)}>
        <div className="quiz-field quiz-note-field">
          <label htmlFor={`${id}-note`}>{s.paused ? t('schedule.resumeNote') : t('schedule.pauseNote')}</label>
          <input
            id={`${id}-note`}
            type="text"
            maxLength={NOTE_MAX + 50}
            value={note}
            onChange={(e) => {
              setNote(e.target.value);
              setNoteError(null);
            }}
            aria-invalid={noteError ? true : undefined}
            aria-describedby={`${id}-note-help${noteError ? ` ${id}-note-error` : ''}`}
          />
          <p id={`${id}-note-help`} className="muted small quiz-help">
            {t('schedule.noteHelp', { max: NOTE_MAX })}
          </p>
          {noteError ? (
            <p id={`${id}-note-error`} className="error quiz-field-error">
              {noteError}
            </p>
          ) : null}
        </div>
        <div className="row">
          <button type="submit" disabled={busy !== null} className={s.paused ? undefined : 'secondary'}>
            {s.paused ? (busy === 'unpause' ? t('schedule.resuming') : t('schedule.resume')) : busy === 'pause' ? t('schedule.pausing') : t('schedule.pause')}
          </button>
          <button type="button" className="secondary" disabled={busy !== null} onClick={() => void trigger()}>
            {busy === 'trigger' ? t('schedule.triggering') : t('schedule.trigger')}
          </button>
        </div>
      </form>
      {refusal ? (
        <div role="alert" className="staff-refusal" data-testid="quiz-schedule-refusal">
          <p className="error">{actionFailure(refusal.action, refusal.failure)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {triggered ? (
        <div className="quiz-result ok-box">
          <p>{triggered.workflowId ? t('schedule.triggeredRun') : t('schedule.triggeredSoon')}</p>
          {triggered.workflowId ? (
            <p className="small">
              <code className="quiz-code">{triggered.workflowId}</code>{' '}
              {triggered.temporalUiUrl ? (
                <a href={triggered.temporalUiUrl} target="_blank" rel="noreferrer noopener">
                  {t('schedule.openRun')}
                  <span className="visually-hidden"> {t('opensInNewTab')}</span>
                </a>
              ) : null}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The last runs (newest first; Temporal keeps ten) and what each made. */
function Runs({ schedule: s }: { schedule: QuizSchedule }) {
  const { t, i18n } = useTranslation(NS);
  const columns: Column<ScheduleRun>[] = [
    { header: t('runs.scheduledAt'), rowHeader: true, width: 20, cell: (r) => formatDateTime(r.scheduledAt, i18n.language) },
    {
      header: t('runs.status'),
      width: 16,
      cell: (r) => (
        <>
          <span className={`quiz-run ${r.status.toLowerCase()}`}>{t(`runs.statuses.${r.status}`, { defaultValue: r.status })}</span>
          {r.closedAt ? (
            <>
              <br />
              <span className="muted small">{t('runs.closed', { at: formatDateTime(r.closedAt, i18n.language) })}</span>
            </>
          ) : null}
        </>
      ),
    },
    {
      header: t('runs.result'),
      width: 40,
      cell: (r) =>
        r.failure ? (
          <p className="error quiz-run-failure">{r.failure}</p>
        ) : r.result ? (
          <>
            <span className="muted small">{t('runs.runDay', { day: formatDay(r.result.runDay, i18n.language) })}</span>
            <ul className="quiz-run-quizzes">
              {r.result.quizzes.map((q) => (
                <li key={q.quizDate}>
                  <code className="quiz-code">{q.quizDate}</code> {q.quizId && q.status !== 'skipped' ? <Link to={quizPath(q.quizId)}>{t(`runs.quizStatus.${q.status.replace(' ', '_')}`)}</Link> : <span>{t(`runs.quizStatus.${q.status.replace(' ', '_')}`)}</span>}
                  {q.reason ? <span className="muted small"> — {q.reason}</span> : null}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <span className="muted">{r.status === 'RUNNING' ? t('runs.stillRunning') : t('runs.noResult')}</span>
        ),
    },
    {
      header: t('runs.temporal'),
      width: 24,
      className: 'actions',
      cell: (r) => (
        <a href={r.temporalUiUrl} target="_blank" rel="noreferrer noopener" className="quiz-run-link">
          {t('runs.open')}
          <span className="visually-hidden">
            {' '}
            {r.workflowId} ({t('opensInNewTab')})
          </span>
        </a>
      ),
    },
  ];
  return (
    <Panel title={t('runs.title')} actions={<span className="muted">{t('runs.count', { count: s.recentRuns.length })}</span>}>
      <DataTable fixed caption={t('runs.caption')} columns={columns} rows={s.recentRuns} rowKey={(r) => `${r.workflowId}/${r.runId}`} empty={t('runs.none')} />
    </Panel>
  );
}
