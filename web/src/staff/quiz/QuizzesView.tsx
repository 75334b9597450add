/**
 * /staff/quiz: the quizzes (newest first, filtered by a period and an edition, kept in the
 * address), each opening its page with the answers; and making quizzes for a date: one quiz of an
 * edition, generated from the stored edition and waited for (POST /quiz/admin/create), or both
 * editions of a day in the background, as the daily schedule does (POST /quiz/admin/generate).
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { EDITIONS, hasEditions, type Edition } from '../../../../models/quiz/calendar.rules';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime, STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Pagination, Panel, queryNow, useNotify, type Column } from '../ui';
import { QUIZ_PAGE_SIZE, quizApi, quizPath, type AdminQuiz, type AdminQuizList, type GenerationStarted, type QuizCreated } from './api';
import { formatDay, localToday } from './format';
import { focusHeading, NS, Origin, QuizDay, useActionFailure } from './shared';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LIST_HEADING = 'quiz-list-heading';

export function QuizzesView() {
  const { t, i18n } = useTranslation(NS);
  const [params, setParams] = useSearchParams();
  const from = DATE.test(params.get('from') ?? '') ? params.get('from')! : undefined;
  const to = DATE.test(params.get('to') ?? '') ? params.get('to')! : undefined;
  const edition = (EDITIONS as readonly string[]).includes(params.get('edition') ?? '') ? (params.get('edition') as Edition) : undefined;
  const page = Math.max(1, Math.min(100_000, Math.floor(Number(params.get('page')) || 1)));
  const list = useStaffResource<AdminQuizList>('/quiz/admin/list', { from, to, edition, page, limit: QUIZ_PAGE_SIZE });
  // After a turn of the page the focus goes to the list's heading (the button pressed may now be disabled).
  const turned = useRef(false);
  useEffect(() => {
    if (turned.current && !list.loading) {
      turned.current = false;
      focusHeading(LIST_HEADING);
    }
  }, [list.loading]);

  // The filters as the address has them now (one applied a moment before is kept).
  const filtersNow = () => {
    const now = queryNow();
    return { from: now.get('from') ?? undefined, to: now.get('to') ?? undefined, edition: now.get('edition') ?? undefined };
  };
  const show = (next: { from?: string | undefined; to?: string | undefined; edition?: string | undefined; page?: number }) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== '' && !(k === 'page' && v === 1)) p.set(k, String(v));
    setParams(p);
  };

  const columns: Column<AdminQuiz>[] = [
    {
      header: t('list.day'),
      rowHeader: true,
      width: 24,
      cell: (q) => (
        <Link to={quizPath(q.id)}>
          <QuizDay date={q.date} edition={q.edition} />
        </Link>
      ),
    },
    { header: t('list.quizTitle'), width: 35, cell: (q) => q.title },
    { header: t('list.origin'), width: 20, cell: (q) => <Origin quiz={q} /> },
    { header: t('list.created'), width: 20, cell: (q) => formatDateTime(q.createdAt, i18n.language) },
  ];

  const data = list.data;
  return (
    <>
      <Panel id={LIST_HEADING} title={t('list.title')} actions={data ? <span className="muted">{t('list.count', { count: data.pagination.total })}</span> : null}>
        <ListFilters from={from} to={to} edition={edition} onApply={(f) => show({ ...f, page: 1 })} />
        <div aria-busy={list.loading}>
          {list.failure ? (
            <ErrorState failure={list.failure} onRetry={() => void list.reload()} />
          ) : !data ? (
            <LoadingState />
          ) : (
            <DataTable fixed caption={t('list.caption')} columns={columns} rows={data.quizzes} rowKey={(q) => q.id} empty={from || to || edition ? t('list.noneFiltered') : t('list.none')} rowAttributes={(q) => ({ 'data-quiz': q.id })} />
          )}
        </div>
        {data ? (
          <Pagination
            label={t('list.title')}
            page={data.pagination.page}
            pages={data.pagination.totalPages}
            hasPrevious={page > 1}
            hasNext={page < data.pagination.totalPages}
            busy={list.loading}
            onPrevious={() => {
              turned.current = true;
              show({ ...filtersNow(), page: page - 1 });
            }}
            onNext={() => {
              turned.current = true;
              show({ ...filtersNow(), page: page + 1 });
            }}
          />
        ) : null}
      </Panel>
      <MakeQuizzes onMade={() => void list.reload()} />
    </>
  );
}

/** The list's filters: a period (inclusive) and an edition. */
function ListFilters({ from, to, edition, onApply }: { from?: string | undefined; to?: string | undefined; edition?: Edition | undefined; onApply: (f: { from?: string; to?: string; edition?: string }) => void }) {
  const { t } = useTranslation(NS);
  const id = useId();
  const [f, setF] = useState({ from: from ?? '', to: to ?? '', edition: edition ?? '' });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setF({ from: from ?? '', to: to ?? '', edition: edition ?? '' }), [from, to, edition]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (f.from && f.to && f.from > f.to) {
      setError(t('filters.order'));
      return;
    }
    setError(null);
    onApply(f);
  };
  return (
    <form className="quiz-filters" onSubmit={submit} aria-label={t('filters.label')}>
      <div className="quiz-field">
        <label htmlFor={`${id}-from`}>{t('filters.from')}</label>
        <input id={`${id}-from`} type="date" value={f.from} onChange={(e) => setF({ ...f, from: e.target.value })} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      </div>
      <div className="quiz-field">
        <label htmlFor={`${id}-to`}>{t('filters.to')}</label>
        <input id={`${id}-to`} type="date" value={f.to} onChange={(e) => setF({ ...f, to: e.target.value })} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      </div>
      <div className="quiz-field">
        <label htmlFor={`${id}-edition`}>{t('filters.edition')}</label>
        <select id={`${id}-edition`} value={f.edition} onChange={(e) => setF({ ...f, edition: e.target.value })}>
          <option value="">{t('filters.anyEdition')}</option>
          {EDITIONS.map((e) => (
            <option key={e} value={e}>
              {t(`editions.${e}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="quiz-filter-actions row">
        <button type="submit" className="secondary">
          {t('filters.apply')}
        </button>
        {from || to || edition ? (
          <button type="button" className="link" onClick={() => onApply({})}>
            {t('filters.clear')}
          </button>
        ) : null}
      </div>
      {error ? (
        <p id={`${id}-error`} role="alert" className="error quiz-filter-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}

type Outcome = { kind: 'created'; created: QuizCreated } | { kind: 'started'; started: GenerationStarted } | { kind: 'failed'; failure: Failure; action: 'create' | 'generateDay' };

/**
 * Making quizzes for a date: one edition's, generated now from its stored edition and waited for;
 * or both editions of the day in the background (what the daily schedule runs).
 */
function MakeQuizzes({ onMade }: { onMade: () => void }) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const actionFailure = useActionFailure();
  const id = useId();
  const [date, setDate] = useState(localToday());
  const [edition, setEdition] = useState<Edition>('morning');
  const [busy, setBusy] = useState<'create' | 'generateDay' | null>(null);
  const [dateError, setDateError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const dateInput = useRef<HTMLInputElement>(null);

  const check = (): boolean => {
    const problem = !DATE.test(date) ? t('make.dateRequired') : !hasEditions(date) ? t('make.sunday') : null;
    setDateError(problem);
    if (problem) dateInput.current?.focus();
    return !problem;
  };

  const run = async (action: 'create' | 'generateDay') => {
    setOutcome(null);
    if (!check()) return;
    setBusy(action);
    try {
      if (action === 'create') {
        const created = await quizApi.create({ date, edition });
        setOutcome({ kind: 'created', created });
        notify(t('make.created', { day: `${formatDay(created.date, i18n.language)} · ${t(`editions.${created.edition}`)}` }));
      } else {
        const started = await quizApi.generateDay(date);
        setOutcome({ kind: 'started', started });
        notify(t('make.started', { date: formatDay(date, i18n.language) }), 'info');
      }
      onMade();
    } catch (err) {
      setOutcome({ kind: 'failed', failure: failureOf(err), action });
    } finally {
      setBusy(null);
    }
  };

  return (
    <Panel title={t('make.title')}>
      <p className="muted quiz-help">{t('make.lead')}</p>
      <form
        className="quiz-make"
        onSubmit={(e) => {
          e.preventDefault();
          void run('create');
        }}
        aria-describedby={`${id}-help`}
      >
        <div className="quiz-make-fields">
          <div className="quiz-field">
            <label htmlFor={`${id}-date`}>{t('make.date')}</label>
            <input
              ref={dateInput}
              id={`${id}-date`}
              type="date"
              required
              value={date}
              onChange={(e) => {
                setDate(e.target.value);
                setDateError(null);
              }}
              aria-invalid={dateError ? true : undefined}
              aria-describedby={dateError ? `${id}-date-error` : undefined}
            />
            {dateError ? (
              <p id={`${id}-date-error`} className="error quiz-field-error">
                {dateError}
              </p>
            ) : null}
          </div>
          <div className="quiz-field">
            <label htmlFor={`${id}-edition`}>{t('make.edition')}</label>
            <select id={`${id}-edition`} value={edition} onChange={(e) => setEdition(e.target.value === 'night' ? 'night' : 'morning')}>
              {EDITIONS.map((e) => (
                <option key={e} value={e}>
                  {t(`editions.${e}`)}
                </option>
              ))}
            </select>
          </div>
        </div>
        <ul id={`${id}-help`} className="quiz-make-help muted">
          <li>{t('make.createHelp')}</li>
          <li>{t('make.generateHelp')}</li>
        </ul>
        <div className="row">
          <button type="submit" disabled={busy !== null}>
            {busy === 'create' ? t('make.creating') : t('make.create')}
          </button>
          <button type="button" className="secondary" disabled={busy !== null} onClick={() => void run('generateDay')}>
            {busy === 'generateDay' ? t('make.starting') : t('make.generateDay')}
          </button>
        </div>
      </form>
      <div role="status" className="quiz-progress-region">
        {busy === 'create' ? <p className="quiz-progress">{t('make.waiting', { date: formatDay(date, i18n.language), edition: t(`editions.${edition}`) })}</p> : null}
      </div>
      {outcome?.kind === 'created' ? (
        <div className="quiz-result ok-box" data-testid="quiz-made">
          <p>
            {t('make.createdLong')}{' '}
            <Link to={quizPath(outcome.created.quizId)}>
              <QuizDay date={outcome.created.date} edition={outcome.created.edition} />
            </Link>
          </p>
        </div>
      ) : outcome?.kind === 'started' ? (
        <div className="quiz-result ok-box" data-testid="quiz-made">
          <p>{t('make.startedLong', { dates: outcome.started.quizDates.join(', ') })}</p>
          <p className="small muted">
            {t('make.run')} <code className="quiz-code">{outcome.started.workflowId}</code>
          </p>
          <button type="button" className="secondary small" onClick={onMade}>
            {t('make.refreshList')}
          </button>
        </div>
      ) : outcome?.kind === 'failed' ? (
        <div role="alert" className="staff-refusal">
          <p className="error">{actionFailure(outcome.action, outcome.failure)}</p>
          <button type="button" className="link" onClick={() => setOutcome(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
    </Panel>
  );
}
