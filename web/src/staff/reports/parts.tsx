/**
 * The pieces every report's panel is made of: the panel (heading, what it covers, its cache state,
 * Refresh and the CSV download), the cache state, the numbers as a table under a chart, tiles of
 * single numbers, and a change with its direction.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { sectionNs } from '../i18n';
import { DataTable, ErrorState, LoadingState, useNotify, type Column } from '../ui';
import type { CacheInfo, Report } from './api';
import { formatClock, formatSigned } from './format';

export const NS = sectionNs('reports');

/** The time now, again every `ms` (the cache's age stays right while the page is open). */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

/** "just now", "12 minutes ago", "2 hours ago" in the reader's language. */
function useAgo(): (ms: number) => string {
  const { t, i18n } = useTranslation(NS);
  return (ms: number) => {
    const seconds = Math.max(0, Math.round(ms / 1000));
    if (seconds < 60) return t('cache.justNow');
    const rtf = new Intl.RelativeTimeFormat(i18n.language === 'pt' ? 'pt-BR' : 'en-GB', { numeric: 'auto' });
    const minutes = Math.round(seconds / 60);
    return minutes < 60 ? rtf.format(-minutes, 'minute') : rtf.format(-Math.round(minutes / 60), 'hour');
  };
}

/**
 * Whether the numbers shown were computed for this request (fresh) or read from the two-hour cache,
 * when they were computed, and until when the cache keeps them. Told in words, not by colour alone.
 */
export function CacheState({ cache, receivedAt, refreshing }: { cache: CacheInfo; receivedAt: number; refreshing: boolean }) {
  const { t, i18n } = useTranslation(NS);
  const now = useNow(30_000);
  const ago = useAgo();
  const computedAt = receivedAt - (cache.hit ? (cache.age ?? 0) * 1000 : 0);
  const lng = i18n.language;
  return (
    <p className="reports-cache" data-testid="cache-state" data-cache={cache.hit ? 'cached' : 'fresh'}>
      <span className={`reports-cache-badge ${cache.hit ? 'cached' : 'fresh'}`}>{cache.hit ? t('cache.cached') : t('cache.fresh')}</span>{' '}
      <span className="muted">
        {t('cache.computed', { ago: ago(Math.max(0, now - computedAt)), at: formatClock(computedAt, lng) })}
        {cache.hit && cache.expiresIn !== undefined ? ` · ${t('cache.keptUntil', { at: formatClock(receivedAt + cache.expiresIn * 1000, lng) })}` : ''}
        {refreshing ? ` · ${t('cache.refreshing')}` : ''}
      </span>
    </p>
  );
}

/**
 * A report's panel: its heading (an anchor of the page's contents), what it covers, its own
 * controls, the cache state, Refresh (computed again: `fresh=true`) and, for the tabular reports,
 * the CSV download (the same report with `format=csv`: a plain link, the cookie goes with it).
 */
export function ReportPanel<T extends { cache: CacheInfo }>({
  id,
  title,
  report,
  scope,
  controls,
  csv,
  csvLabel,
  children,
}: {
  id: string;
  title: string;
  report: Report<T>;
  scope?: ReactNode;
  controls?: ReactNode;
  /** The CSV download's address; none for a report the API gives as JSON only. */
  csv?: string;
  csvLabel?: string;
  children: (data: T) => ReactNode;
}) {
  const { t } = useTranslation(NS);
  const notify = useNotify();
  const headingId = `${id}-title`;
  const refresh = async () => {
    if (await report.refresh()) notify(t('cache.refreshed', { report: title }));
  };
  return (
    <section className="card staff-panel reports-panel" id={id} aria-labelledby={headingId} aria-busy={report.loading} data-report={id}>
      <div className="staff-panel-head">
        <h2 id={headingId} tabIndex={-1}>
          {title}
        </h2>
        <div className="reports-actions">
          <button type="button" className="secondary small" onClick={() => void refresh()} disabled={report.loading}>
            {report.refreshing ? t('cache.refreshingButton') : t('cache.refresh')}
            <span className="visually-hidden"> {title}</span>
          </button>
          {csv ? (
            <a className="reports-csv" href={csv} download>
              {t('csv.download')}
              <span className="visually-hidden"> {csvLabel ?? title}</span>
            </a>
          ) : null}
        </div>
      </div>
      {scope ? <p className="reports-scope">{scope}</p> : null}
      {report.data ? <CacheState cache={report.data.cache} receivedAt={report.receivedAt} refreshing={report.refreshing} /> : null}
      {controls}
      {report.failure ? (
        <ErrorState failure={report.failure} onRetry={() => void report.reload()} />
      ) : report.data === undefined ? (
        <LoadingState />
      ) : (
        <div className={report.loading ? 'reports-body updating' : 'reports-body'}>{children(report.data)}</div>
      )}
    </section>
  );
}

/**
 * A table of numbers that stays a table on a phone (the console's DataTable turns rows into cards,
 * which suits long rows of text, not a grid of numbers read across): it scrolls sideways inside its
 * box when wider than the screen, the box reachable by keyboard and named by the caption.
 */
export function CompactTable<R>({
  caption,
  columns,
  rows,
  rowKey,
  rowAttributes,
}: {
  caption: string;
  columns: Column<R>[];
  rows: readonly R[];
  rowKey: (r: R) => string;
  rowAttributes?: (r: R) => Record<`data-${string}`, string>;
}) {
  return (
    <div className="reports-table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table className="reports-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.className}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)} {...(rowAttributes?.(r) ?? {})}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th key={c.header} scope="row" className={c.className}>
                    {c.cell(r)}
                  </th>
                ) : (
                  <td key={c.header} className={c.className}>
                    {c.cell(r)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A chart's numbers as a table, folded under it ("Show the numbers as a table"): a compact table
 * for a few numeric columns, the console's table (cards on a phone) for wide rows of text.
 */
export function NumbersTable<R>({
  title,
  caption,
  columns,
  rows,
  rowKey,
  cards,
}: {
  title: string;
  caption: string;
  columns: Column<R>[];
  rows: readonly R[];
  rowKey: (r: R) => string;
  /** Cards on a phone, their fields in this many columns (a column's `wide` class spans them all). */
  cards?: 2 | 3;
}) {
  const { t } = useTranslation(NS);
  return (
    <details className="reports-numbers">
      <summary>
        {t('table.show')}
        <span className="visually-hidden"> ({title})</span>
      </summary>
      {cards ? (
        <div className={`reports-cards cols-${cards}`}>
          <DataTable caption={caption} columns={columns} rows={rows} rowKey={rowKey} />
        </div>
      ) : (
        <CompactTable caption={caption} columns={columns} rows={rows} rowKey={rowKey} />
      )}
    </details>
  );
}

/** Single numbers side by side (two a row on a phone). */
export function Tiles({ items }: { items: { key: string; label: string; value: ReactNode; note?: ReactNode }[] }) {
  return (
    <dl className="reports-tiles">
      {items.map((i) => (
        <div key={i.key} className="reports-tile" data-testid={`tile-${i.key}`}>
          <dt>{i.label}</dt>
          <dd className="reports-tile-value">{i.value}</dd>
          {i.note ? <dd className="reports-tile-note">{i.note}</dd> : null}
        </div>
      ))}
    </dl>
  );
}

/** A change with its direction (an arrow and a sign: not told by colour alone). */
export function Delta({ value, lng, suffix = '' }: { value: number; lng: string; suffix?: string }) {
  const { t } = useTranslation(NS);
  const direction = value > 0 ? 'up' : value < 0 ? 'down' : 'flat';
  return (
    <span className={`reports-delta ${direction}`}>
      <span aria-hidden="true">{value > 0 ? '▲ ' : value < 0 ? '▼ ' : '= '}</span>
      <span className="visually-hidden">{t(`delta.${direction}`)} </span>
      {formatSigned(value, lng, suffix)}
    </span>
  );
}
