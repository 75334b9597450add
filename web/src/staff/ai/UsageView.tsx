/**
 * /staff/ai/usage: the AI's use per user and model (GET /ai/admin/usage, ai.edit) over a period
 * (by default the last 30 UTC days; at most 366), of everyone or one user, the largest first: a bar
 * chart of the page's rows (prompt and completion tokens, stacked) and a table with the same
 * numbers, the period's totals, and pages. The period and the user are kept in the address.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSession } from '../../session';
import { useStaffResource } from '../api';
import { DataTable, ErrorState, LoadingState, Pagination, Panel, queryNow, type Column } from '../ui';
import { USAGE_PAGE_SIZE, type UsageByUser } from './api';
import { formatDay, formatNumber, utcDaysAgo } from './format';
import { Field, focusHeading, NS } from './shared';
import { UsageChart } from './UsageChart';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const HEADING = 'ai-usage-heading';
/** The longest period the API reads. */
const MAX_DAYS = 366;

type Row = UsageByUser['rows'][number];

export function UsageView() {
  const { t, i18n } = useTranslation(NS);
  const { session } = useSession();
  const [params, setParams] = useSearchParams();
  const from = DATE.test(params.get('from') ?? '') ? params.get('from')! : undefined;
  const to = DATE.test(params.get('to') ?? '') ? params.get('to')! : undefined;
  const user = params.get('user')?.trim() || undefined;
  const page = Math.max(1, Math.min(10_000, Math.floor(Number(params.get('page')) || 1)));
  const usage = useStaffResource<UsageByUser>('/ai/admin/usage', { from, to, user, page, limit: USAGE_PAGE_SIZE });
  const n = (v: number) => formatNumber(v, i18n.language);

  const turned = useRef(false);
  useEffect(() => {
    if (turned.current && !usage.loading) {
      turned.current = false;
      focusHeading(HEADING);
    }
  }, [usage.loading]);

  const show = (next: { from?: string | undefined; to?: string | undefined; user?: string | undefined; page?: number }) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== '' && !(k === 'page' && v === 1)) p.set(k, String(v));
    setParams(p);
  };
  const turn = (to2: number) => {
    turned.current = true;
    // The filters as the address has them now (one applied a moment before is kept).
    const now = queryNow();
    show({ from: now.get('from') ?? undefined, to: now.get('to') ?? undefined, user: now.get('user') ?? undefined, page: to2 });
  };

  const me = session?.user.id;
  const columns: Column<Row>[] = [
    {
      header: t('usage.user'),
      rowHeader: true,
      width: 30,
      cell: (r) => (
        <>
          <code className="ai-user">{r.userId}</code>
          {r.userId === me ? <span className="muted small"> {t('usage.you')}</span> : null}
        </>
      ),
    },
    { header: t('usage.model'), width: 16, cell: (r) => <code>{r.model}</code> },
    { header: t('usage.requests'), width: 10, className: 'num', cell: (r) => n(r.requests) },
    { header: t('usage.prompt'), width: 14, className: 'num', cell: (r) => n(r.promptTokens) },
    { header: t('usage.completion'), width: 16, className: 'num', cell: (r) => n(r.completionTokens) },
    { header: t('usage.total'), width: 14, className: 'num', cell: (r) => <strong>{n(r.totalTokens)}</strong> },
  ];

  const data = usage.data;
  return (
    <Panel id={HEADING} title={t('usage.title')} actions={data ? <span className="muted">{t('usage.rowsCount', { count: data.pagination.total })}</span> : null}>
      <p className="muted ai-help">{t('usage.lead')}</p>
      <UsageFilters from={from} to={to} user={user} onApply={(f) => show({ ...f, page: 1 })} />
      <div aria-busy={usage.loading}>
        {usage.failure ? (
          <ErrorState failure={usage.failure} onRetry={() => void usage.reload()} />
        ) : !data ? (
          <LoadingState />
        ) : (
          <>
            <p className="ai-period" data-testid="ai-usage-period">
              {data.user ? t('usage.periodUser', { from: formatDay(data.from, i18n.language), to: formatDay(data.to, i18n.language), user: data.user }) : t('usage.period', { from: formatDay(data.from, i18n.language), to: formatDay(data.to, i18n.language) })}
            </p>
            <dl className="ai-totals" data-testid="ai-usage-totals">
              <div>
                <dt>{t('usage.requests')}</dt>
                <dd>{n(data.totals.requests)}</dd>
              </div>
              <div>
                <dt>{t('usage.prompt')}</dt>
                <dd>{n(data.totals.promptTokens)}</dd>
              </div>
              <div>
                <dt>{t('usage.completion')}</dt>
                <dd>{n(data.totals.completionTokens)}</dd>
              </div>
              <div>
                <dt>{t('usage.total')}</dt>
                <dd>{n(data.totals.totalTokens)}</dd>
              </div>
            </dl>
            {data.rows.length ? (
              <UsageChart
                rows={data.rows}
                label={t('usage.chartLabel', {
                  count: data.rows.length,
                  from: formatDay(data.from, i18n.language),
                  to: formatDay(data.to, i18n.language),
                })}
              />
            ) : null}
            <DataTable fixed caption={t('usage.caption')} columns={columns} rows={data.rows} rowKey={(r) => `${r.userId}/${r.model}`} empty={data.pagination.total ? t('usage.pageEmpty') : t('usage.none')} rowAttributes={(r) => ({ 'data-usage': `${r.userId}/${r.model}` })} />
            <Pagination label={t('usage.title')} page={data.pagination.page} pages={data.pagination.totalPages || 1} hasPrevious={page > 1} hasNext={page < data.pagination.totalPages} busy={usage.loading} onPrevious={() => turn(page - 1)} onNext={() => turn(page + 1)} />
          </>
        )}
      </div>
    </Panel>
  );
}

function UsageFilters({ from, to, user, onApply }: { from?: string | undefined; to?: string | undefined; user?: string | undefined; onApply: (f: { from?: string; to?: string; user?: string }) => void }) {
  const { t } = useTranslation(NS);
  const id = useId();
  const [f, setF] = useState({ from: from ?? '', to: to ?? '', user: user ?? '' });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setF({ from: from ?? '', to: to ?? '', user: user ?? '' }), [from, to, user]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const end = f.to || utcDaysAgo(0);
    const start = f.from || utcDaysAgo(29, new Date(`${end}T00:00:00Z`));
    const problem = start > end ? t('usage.order') : Date.parse(end) - Date.parse(start) > MAX_DAYS * 86_400_000 ? t('usage.tooLong', { max: MAX_DAYS }) : f.user.length > 200 ? t('errors.tooLong', { max: 200 }) : null;
    setError(problem);
    if (problem) return;
    onApply({ from: f.from, to: f.to, user: f.user.trim() });
  };
  const describedBy = `${id}-help${error ? ` ${id}-error` : ''}`;
  return (
    <form className="ai-filters" onSubmit={submit} aria-label={t('usage.filters')} noValidate>
      <Field id={`${id}-from`} label={t('usage.from')}>
        {() => <input id={`${id}-from`} type="date" value={f.from} onChange={(e) => setF({ ...f, from: e.target.value })} aria-describedby={describedBy} aria-invalid={error ? true : undefined} />}
      </Field>
      <Field id={`${id}-to`} label={t('usage.to')}>
        {() => <input id={`${id}-to`} type="date" value={f.to} onChange={(e) => setF({ ...f, to: e.target.value })} aria-describedby={describedBy} aria-invalid={error ? true : undefined} />}
      </Field>
      <Field id={`${id}-user`} label={t('usage.userFilter')} className="ai-user-field">
        {() => <input id={`${id}-user`} type="search" autoComplete="off" spellCheck={false} maxLength={200} value={f.user} onChange={(e) => setF({ ...f, user: e.target.value })} aria-describedby={describedBy} placeholder="usr_em_…" />}
      </Field>
      <div className="row ai-filter-actions">
        <button type="submit" className="secondary">
          {t('usage.show')}
        </button>
        {from || to || user ? (
          <button type="button" className="link" onClick={() => onApply({})}>
            {t('usage.clear')}
          </button>
        ) : null}
      </div>
      <p id={`${id}-help`} className="muted small ai-filter-help">
        {t('usage.filtersHelp', { max: MAX_DAYS })}
      </p>
      {error ? (
        <p id={`${id}-error`} role="alert" className="error ai-filter-help">
          {error}
        </p>
      ) : null}
    </form>
  );
}
