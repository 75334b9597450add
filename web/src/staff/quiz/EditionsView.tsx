/**
 * /staff/quiz/editions: the editions stored for a period (newest first; by default the last 14
 * days), the texts quizzes are made from, each with its quiz (a link) or a button that makes it
 * from the edition now (POST /quiz/admin/create, waited for).
 */
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime, STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Panel, useNotify, type Column } from '../ui';
import { quizApi, quizPath, type AdminQuizList, type EditionView } from './api';
import { formatDay } from './format';
import { NS, useActionFailure } from './shared';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function EditionsView() {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const actionFailure = useActionFailure();
  const [params, setParams] = useSearchParams();
  const from = DATE.test(params.get('from') ?? '') ? params.get('from')! : undefined;
  const to = DATE.test(params.get('to') ?? '') ? params.get('to')! : undefined;
  const editions = useStaffResource<EditionView[]>('/quiz/admin/editions', { from, to });
  // The quizzes of the same days, to tell which edition has one (at most 100: 50 days of two editions).
  const days = useMemo(() => {
    const list = editions.data ?? [];
    if (list.length === 0) return null;
    const dates = list.map((e) => e.date).sort();
    return { from: dates[0]!, to: dates[dates.length - 1]! };
  }, [editions.data]);
  const quizzes = useStaffResource<AdminQuizList>('/quiz/admin/list', days ? { from: days.from, to: days.to, limit: 100 } : { from: '1970-01-01', to: '1970-01-01', limit: 1 });
  const quizOf = useMemo(() => new Map((quizzes.data?.quizzes ?? []).map((q) => [q.postId, q])), [quizzes.data]);
  const [making, setMaking] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<{ edition: string; failure: Failure } | null>(null);

  const make = async (e: EditionView) => {
    setRefusal(null);
    setMaking(e.id);
    try {
      await quizApi.create({ date: e.date, edition: e.edition });
      notify(t('make.created', { day: `${formatDay(e.date, i18n.language)} · ${t(`editions.${e.edition}`)}` }));
      await quizzes.reload();
    } catch (err) {
      setRefusal({ edition: e.id, failure: failureOf(err) });
    } finally {
      setMaking(null);
    }
  };

  const columns: Column<EditionView>[] = [
    {
      header: t('editionsList.day'),
      rowHeader: true,
      width: 20,
      cell: (e) => (
        <>
          {formatDay(e.date, i18n.language)}
          <br />
          <span className="muted small">{t(`editions.${e.edition}`)}</span>
        </>
      ),
    },
    {
      header: t('editionsList.edition'),
      width: 40,
      cell: (e) => (
        <>
          <span className="quiz-edition-title">{e.title}</span>
          <details className="quiz-edition-text">
            <summary>
              {t('editionsList.readText')}
              <span className="visually-hidden"> {e.title}</span>
            </summary>
            {/* Scrolls when long: focusable, so that a keyboard can scroll it too. */}
            <div className="quiz-edition-body" tabIndex={0} role="region" aria-label={t('editionsList.textOf', { title: e.title })}>
              {e.text}
            </div>
          </details>
        </>
      ),
    },
    { header: t('editionsList.published'), width: 18, cell: (e) => formatDateTime(e.publishedAt, i18n.language) },
    {
      header: t('editionsList.quiz'),
      width: 22,
      className: 'actions',
      cell: (e) => {
        const q = quizOf.get(e.id);
        if (q) return <Link to={quizPath(q.id)}>{t('editionsList.openQuiz')}<span className="visually-hidden"> {e.id}</span></Link>;
        if (!quizzes.data) return <span className="muted">…</span>;
        return (
          <>
            <span className="muted small">{t('editionsList.noQuiz')}</span>
            <br />
            <button type="button" className="secondary small" disabled={making !== null} onClick={() => void make(e)}>
              {making === e.id ? t('make.creating') : t('editionsList.makeQuiz')}
              <span className="visually-hidden"> {e.id}</span>
            </button>
          </>
        );
      },
    },
  ];

  return (
    <Panel title={t('editionsList.title')} actions={editions.data ? <span className="muted">{t('editionsList.count', { count: editions.data.length })}</span> : null}>
      <PeriodFilter from={from} to={to} onApply={(f) => setParams(new URLSearchParams(Object.entries(f).filter(([, v]) => v) as [string, string][]))} />
      <div role="status" className="quiz-progress-region">
        {making ? <p className="quiz-progress">{t('make.waitingEdition', { edition: making })}</p> : null}
      </div>
      {refusal ? (
        <div role="alert" className="staff-refusal">
          <p className="error">{actionFailure('create', refusal.failure)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {editions.failure ? (
        <ErrorState failure={editions.failure} onRetry={() => void editions.reload()} />
      ) : !editions.data ? (
        <LoadingState />
      ) : (
        <DataTable fixed caption={t('editionsList.caption')} columns={columns} rows={editions.data} rowKey={(e) => e.id} empty={t('editionsList.none')} rowAttributes={(e) => ({ 'data-edition': e.id })} />
      )}
    </Panel>
  );
}

function PeriodFilter({ from, to, onApply }: { from?: string | undefined; to?: string | undefined; onApply: (f: { from: string; to: string }) => void }) {
  const { t } = useTranslation(NS);
  const id = useId();
  const [f, setF] = useState({ from: from ?? '', to: to ?? '' });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setF({ from: from ?? '', to: to ?? '' }), [from, to]);
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
    <form className="quiz-filters" onSubmit={submit} aria-label={t('filters.period')}>
      <div className="quiz-field">
        <label htmlFor={`${id}-from`}>{t('filters.from')}</label>
        <input id={`${id}-from`} type="date" value={f.from} onChange={(e) => setF({ ...f, from: e.target.value })} aria-invalid={error ? true : undefined} aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`} />
      </div>
      <div className="quiz-field">
        <label htmlFor={`${id}-to`}>{t('filters.to')}</label>
        <input id={`${id}-to`} type="date" value={f.to} onChange={(e) => setF({ ...f, to: e.target.value })} aria-invalid={error ? true : undefined} aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`} />
      </div>
      <div className="quiz-filter-actions row">
        <button type="submit" className="secondary">
          {t('filters.apply')}
        </button>
      </div>
      <p id={`${id}-help`} className="muted small quiz-filter-help">
        {t('editionsList.defaultPeriod')}
      </p>
      {error ? (
        <p id={`${id}-error`} role="alert" className="error quiz-filter-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
