/**
 * The reports, one panel each: the support desk now (dashboard), the last 30 days (summary), the
 * period against the one before (comparison), tickets over time (series), response and resolution
 * times, categories, the distribution by hour, weekday or newsletter, weekly cohorts, agents, and
 * every ticket (detailed). Each reads its report with the filters it takes, draws it (a chart
 * where a picture says more, tiles for single numbers, a table for rows), and writes its numbers
 * in a table.
 */
import { useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDate } from '../../i18n';
import { useStaff } from '../access';
import type { Query } from '../api';
import { formatDateTime } from '../i18n';
import { DataTable, EmptyState, Pagination, type Column } from '../ui';
import {
  csvHref,
  useReport,
  type AgentRow,
  type CategoryRow,
  type CohortRow,
  type Comparison,
  type DetailRow,
  type Distribution,
  type Grouping,
  type ReportAgents,
  type ReportCategories,
  type ReportCohorts,
  type ReportComparison,
  type ReportDashboard,
  type ReportDetailed,
  type ReportDistribution,
  type ReportResolution,
  type ReportSeries,
  type ReportSummary,
  type Status,
} from './api';
import { BarChart, COLOURS, heightClass, LineChart, STATUS_COLOURS } from './charts';
import { filterQuery, periodQuery, queryOf, STATUSES, type Filters } from './filters';
import { formatCount, formatDuration, formatPercent, formatPeriod, formatSeriesKey, formatSigned, formatWeek, formatWeekNarrow, hours, periodsOf, weekdayName } from './format';
import { CompactTable, Delta, NS, NumbersTable, ReportPanel, Tiles } from './parts';

/** The choices of the reports' own parameters, in the order shown. */
const GROUPINGS: readonly Grouping[] = ['hora', 'dia', 'semana', 'mes', 'ano'];
const DISTRIBUTIONS: readonly Distribution[] = ['hora', 'dia_semana', 'newsletter'];
const COMPARISONS: readonly Comparison[] = ['periodo_anterior', 'mesmo_periodo_ano_anterior'];

/** Words shared by the panels: a status's name, the filters in force. */
function useWords(filters: Filters) {
  const { t, i18n } = useTranslation(NS);
  const lng = i18n.language;
  const status = (s: string) => t(`status.${s}`, { defaultValue: s });
  const applied = [
    filters.newsletter ? t('scope.newsletter', { value: filters.newsletter }) : null,
    filters.agente ? t('scope.agent', { value: filters.agente }) : null,
    filters.main ? t('scope.category', { value: filters.main }) : null,
    filters.issue ? t('scope.issue', { value: filters.issue }) : null,
    filters.status ? t('scope.status', { value: status(filters.status) }) : null,
  ].filter((x): x is string => x !== null);
  const period = formatPeriod({ inicio: filters.inicio, fim: filters.fim }, lng);
  /** What a report that takes every filter covers. */
  const filtered = (
    <>
      {t('scope.period', { period })}
      {applied.length ? ` · ${applied.join(' · ')}` : ` · ${t('scope.noFilters')}`}
    </>
  );
  return { t, lng, status, applied, period, filtered };
}

/** A select above a report (its own parameter: the grouping, the comparison). */
function Choice<V extends string>({ label, value, values, name, onChange }: { label: string; value: V; values: readonly V[]; name: (v: V) => string; onChange: (v: V) => void }) {
  const id = useId();
  return (
    <div className="reports-choice">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as V)}>
        {values.map((v) => (
          <option key={v} value={v}>
            {name(v)}
          </option>
        ))}
      </select>
    </div>
  );
}

// ---- The support desk now ----------------------------------------------------------------------

export function DashboardPanel({ filters }: { filters: Filters }) {
  const { t, lng, applied } = useWords(filters);
  const report = useReport<ReportDashboard>('/dashboard');
  const desk = useStaff().can('support.agent');
  return (
    <ReportPanel id="reports-now" title={t('now.title')} report={report} scope={<>{t('now.scope')}{applied.length ? ` ${t('scope.notApplied')}` : ''}</>}>
      {(d) => (
        <Tiles
          items={[
            { key: 'open', label: t('now.open'), value: formatCount(d.abertos, lng) },
            { key: 'in-progress', label: t('now.inProgress'), value: formatCount(d.emAndamento, lng) },
            { key: 'unanswered', label: t('now.unanswered'), value: formatCount(d.semResposta, lng), note: t('now.unansweredNote') },
            { key: 'created-today', label: t('now.createdToday'), value: formatCount(d.criados.hoje, lng), note: formatDate(d.hoje, lng) },
            { key: 'created-week', label: t('now.createdWeek'), value: formatCount(d.criados.semana, lng), note: t('now.since', { date: formatDate(d.semanaDesde, lng) }) },
            { key: 'resolved-today', label: t('now.resolvedToday'), value: formatCount(d.resolvidos.hoje, lng) },
            { key: 'resolved-week', label: t('now.resolvedWeek'), value: formatCount(d.resolvidos.semana, lng) },
            {
              key: 'oldest',
              label: t('now.oldest'),
              value: d.maisAntigoAberto ? formatDuration(d.maisAntigoAberto.idadeSegundos, t) : '—',
              note: d.maisAntigoAberto ? (
                <>
                  {desk ? <Link to={`/staff/support/${d.maisAntigoAberto.id}`}>#{d.maisAntigoAberto.id}</Link> : `#${d.maisAntigoAberto.id}`}
                  {', '}
                  {t('now.oldestNote', { date: formatDateTime(d.maisAntigoAberto.createdAt, lng) })}
                </>
              ) : (
                t('now.noneOpen')
              ),
            },
          ]}
        />
      )}
    </ReportPanel>
  );
}

// ---- The last 30 days --------------------------------------------------------------------------

export function SummaryPanel({ filters }: { filters: Filters }) {
  const { t, lng, status, applied } = useWords(filters);
  const report = useReport<ReportSummary>('/resumo', filterQuery(filters));
  return (
    <ReportPanel
      id="reports-summary"
      title={t('summary.title')}
      report={report}
      scope={
        <>
          {t('summary.scope')}
          {applied.length ? ` · ${applied.join(' · ')}` : ''}
        </>
      }
    >
      {(d) => (
        <>
          <p className="muted reports-period">{formatPeriod(d.periodo, lng)}</p>
          <Tiles
            items={[
              { key: 'total', label: t('summary.total'), value: formatCount(d.totalTickets, lng) },
              { key: 'rate', label: t('summary.rate'), value: formatPercent(d.resolutionMetrics.taxaResolucaoGeral, lng) },
              { key: 'first-response', label: t('summary.firstResponse'), value: formatDuration(d.primeiraResposta.median, t), note: t('durations.medianOf', { count: d.primeiraResposta.count }) },
              { key: 'resolution', label: t('summary.resolution'), value: formatDuration(d.resolucao.median, t), note: t('durations.medianOf', { count: d.resolucao.count }) },
              { key: 'reopen', label: t('summary.reopen'), value: formatPercent(d.reabertura.taxa, lng), note: t('summary.reopenNote', { reopened: d.reabertura.reabertos, resolved: d.reabertura.resolvidos }) },
            ]}
          />
          <h3>{t('summary.byStatus')}</h3>
          <Tiles items={STATUSES.map((s) => ({ key: `status-${s}`, label: status(s), value: formatCount(d.ticketsByStatus[s], lng) }))} />
        </>
      )}
    </ReportPanel>
  );
}

// ---- This period against the one before --------------------------------------------------------

export function ComparisonPanel({ filters }: { filters: Filters }) {
  const { t, lng, status, applied, period } = useWords(filters);
  const [mode, setMode] = useState<Comparison>('periodo_anterior');
  const report = useReport<ReportComparison>('/comparativo', { ...periodQuery(filters), comparar_com: mode });
  type Row = { key: string; label: string; now: string; before: string; change: ReactNode };
  return (
    <ReportPanel
      id="reports-comparison"
      title={t('comparison.title')}
      report={report}
      scope={
        <>
          {t('scope.period', { period })}
          {applied.length ? ` · ${t('comparison.noFilters')}` : ''}
        </>
      }
      controls={<Choice label={t('comparison.with')} value={mode} values={COMPARISONS} name={(v) => t(`comparison.modes.${v}`)} onChange={setMode} />}
    >
      {(d) => {
        const now = formatPeriod(d.atual.periodo, lng);
        const before = formatPeriod(d.anterior.periodo, lng);
        const rows: Row[] = [
          {
            key: 'total',
            label: t('comparison.total'),
            now: formatCount(d.atual.totalTickets, lng),
            before: formatCount(d.anterior.totalTickets, lng),
            change: (
              <>
                <Delta value={d.atual.totalTickets - d.anterior.totalTickets} lng={lng} /> <span className="muted">({formatSigned(d.variacao.totalTickets, lng, '%')})</span>
              </>
            ),
          },
          ...STATUSES.map((s) => ({
            key: s,
            label: status(s),
            now: formatCount(d.atual.ticketsByStatus[s], lng),
            before: formatCount(d.anterior.ticketsByStatus[s], lng),
            change: <Delta value={d.atual.ticketsByStatus[s] - d.anterior.ticketsByStatus[s]} lng={lng} />,
          })),
          {
            key: 'rate',
            label: t('comparison.rate'),
            now: formatPercent(d.atual.resolutionMetrics.taxaResolucaoGeral, lng),
            before: formatPercent(d.anterior.resolutionMetrics.taxaResolucaoGeral, lng),
            change: <Delta value={d.variacao.taxaResolucao} lng={lng} suffix="%" />,
          },
        ];
        const columns: Column<Row>[] = [
          { header: t('comparison.measure'), rowHeader: true, cell: (r) => r.label },
          { header: t('comparison.currentCol'), className: 'num', cell: (r) => r.now },
          { header: t('comparison.previousCol'), className: 'num', cell: (r) => r.before },
          { header: t('comparison.change'), className: 'num', cell: (r) => r.change },
        ];
        return (
          <>
            <Tiles
              items={[
                { key: 'cmp-total', label: t('comparison.total'), value: formatCount(d.atual.totalTickets, lng), note: <Delta value={d.variacao.totalTickets} lng={lng} suffix="%" /> },
                { key: 'cmp-rate', label: t('comparison.rate'), value: formatPercent(d.atual.resolutionMetrics.taxaResolucaoGeral, lng), note: <Delta value={d.variacao.taxaResolucao} lng={lng} suffix="%" /> },
              ]}
            />
            <BarChart
              label={t('comparison.chart', { current: now, previous: before })}
              testId="chart-comparison"
              data={{
                labels: [t('comparison.total'), ...STATUSES.map(status)],
                datasets: [
                  { label: t('comparison.currentShort', { period: now }), data: [d.atual.totalTickets, ...STATUSES.map((s) => d.atual.ticketsByStatus[s])], backgroundColor: COLOURS[0] },
                  { label: t('comparison.previousShort', { period: before }), data: [d.anterior.totalTickets, ...STATUSES.map((s) => d.anterior.ticketsByStatus[s])], backgroundColor: COLOURS[1] },
                ],
              }}
            />
            <p className="reports-periods">
              <span>{t('comparison.current', { period: now })}</span> <span>{t('comparison.previous', { period: before })}</span>
            </p>
            <CompactTable caption={t('comparison.caption', { current: now, previous: before })} columns={columns} rows={rows} rowKey={(r) => r.key} rowAttributes={(r) => ({ 'data-row': r.key })} />
            <p className="muted small">{t('comparison.note')}</p>
          </>
        );
      }}
    </ReportPanel>
  );
}

// ---- Tickets over time -------------------------------------------------------------------------

export function SeriesPanel({ filters }: { filters: Filters }) {
  const { t, lng, filtered } = useWords(filters);
  const [grouping, setGrouping] = useState<Grouping>('dia');
  const query: Query = { ...queryOf(filters), agrupamento: grouping };
  const report = useReport<ReportSeries>('/serie', query);
  type Row = ReportSeries['serie'][number];
  return (
    <ReportPanel
      id="reports-series"
      title={t('series.title')}
      report={report}
      scope={filtered}
      csv={csvHref('/serie', query)}
      controls={<Choice label={t('series.grouping')} value={grouping} values={GROUPINGS} name={(g) => t(`series.groupings.${g}`)} onChange={setGrouping} />}
    >
      {(d) => {
        if (d.serie.length === 0) return <EmptyState>{t('empty')}</EmptyState>;
        const byKey = new Map(d.serie.map((r) => [r.periodo, r]));
        const keys = periodsOf(d.periodo, d.agrupamento) ?? d.serie.map((r) => r.periodo);
        // A period the API has that the calendar here does not (another time zone's edge) is kept.
        for (const r of d.serie) if (!keys.includes(r.periodo)) keys.push(r.periodo);
        keys.sort();
        const label = (k: string) => formatSeriesKey(k, d.agrupamento, lng, t);
        const columns: Column<Row>[] = [
          { header: t(`series.period.${d.agrupamento}`), rowHeader: true, cell: (r) => label(r.periodo) },
          { header: t('series.created'), className: 'num', cell: (r) => formatCount(r.criados, lng) },
          { header: t('series.resolved'), className: 'num', cell: (r) => formatCount(r.resolvidos, lng) },
        ];
        return (
          <>
            <LineChart
              label={t('series.chart', { grouping: t(`series.groupings.${d.agrupamento}`).toLowerCase(), period: formatPeriod(d.periodo, lng) })}
              testId="chart-series"
              data={{
                labels: keys.map(label),
                datasets: [
                  { label: t('series.created'), data: keys.map((k) => byKey.get(k)?.criados ?? 0), borderColor: COLOURS[0], backgroundColor: COLOURS[0] },
                  { label: t('series.resolved'), data: keys.map((k) => byKey.get(k)?.resolvidos ?? 0), borderColor: COLOURS[2], backgroundColor: COLOURS[2], borderDash: [6, 4] },
                ],
              }}
            />
            <NumbersTable title={t('series.title')} caption={t('series.caption')} columns={columns} rows={d.serie} rowKey={(r) => r.periodo} />
          </>
        );
      }}
    </ReportPanel>
  );
}

// ---- Response and resolution times --------------------------------------------------------------

export function ResolutionPanel({ filters }: { filters: Filters }) {
  const { t, lng, filtered } = useWords(filters);
  const report = useReport<ReportResolution>('/metricas-resolucao', queryOf(filters));
  return (
    <ReportPanel id="reports-resolution" title={t('resolution.title')} report={report} scope={filtered}>
      {(d) => {
        const rows = [
          { key: 'first-response', label: t('resolution.firstResponse'), s: d.primeiraResposta },
          { key: 'resolution', label: t('resolution.resolution'), s: d.resolucao },
        ];
        type Row = (typeof rows)[number];
        const columns: Column<Row>[] = [
          { header: t('resolution.measure'), rowHeader: true, cell: (r) => r.label },
          { header: t('durations.median'), className: 'num', cell: (r) => formatDuration(r.s.median, t) },
          { header: t('durations.p90'), className: 'num', cell: (r) => formatDuration(r.s.p90, t) },
          { header: t('durations.mean'), className: 'num', cell: (r) => formatDuration(r.s.mean, t) },
          { header: t('durations.count'), className: 'num', cell: (r) => formatCount(r.s.count, lng) },
        ];
        const measured = d.primeiraResposta.count + d.resolucao.count > 0;
        return (
          <>
            <Tiles
              items={[
                { key: 'res-first', label: t('resolution.firstResponseMedian'), value: formatDuration(d.primeiraResposta.median, t), note: t('durations.medianOf', { count: d.primeiraResposta.count }) },
                { key: 'res-resolution', label: t('resolution.resolutionMedian'), value: formatDuration(d.resolucao.median, t), note: t('durations.medianOf', { count: d.resolucao.count }) },
                { key: 'res-reopen', label: t('resolution.reopen'), value: formatPercent(d.reabertura.taxa, lng), note: t('summary.reopenNote', { reopened: d.reabertura.reabertos, resolved: d.reabertura.resolvidos }) },
              ]}
            />
            {measured ? (
              <BarChart
                label={t('resolution.chart', { period: formatPeriod(d.periodo, lng) })}
                testId="chart-resolution"
                unit={t('units.hours')}
                data={{
                  labels: rows.map((r) => r.label),
                  datasets: [
                    { label: t('durations.median'), data: rows.map((r) => hours(r.s.median)), backgroundColor: COLOURS[0] },
                    { label: t('durations.p90'), data: rows.map((r) => hours(r.s.p90)), backgroundColor: COLOURS[1] },
                    { label: t('durations.mean'), data: rows.map((r) => hours(r.s.mean)), backgroundColor: COLOURS[2] },
                  ],
                }}
              />
            ) : (
              <EmptyState>{t('resolution.nothing')}</EmptyState>
            )}
            <NumbersTable title={t('resolution.title')} caption={t('resolution.caption')} columns={columns} rows={rows} rowKey={(r) => r.key} />
          </>
        );
      }}
    </ReportPanel>
  );
}

// ---- Categories --------------------------------------------------------------------------------

/** The most categories drawn (the table lists them all). */
const CATEGORIES_DRAWN = 15;

export function CategoriesPanel({ filters }: { filters: Filters }) {
  const { t, lng, status, filtered } = useWords(filters);
  const query = queryOf(filters);
  const report = useReport<ReportCategories>('/categorias', query);
  const statusOf: Record<Status, keyof CategoryRow> = { open: 'abertos', in_progress: 'emAndamento', resolved: 'resolvidos', closed: 'fechados' };
  return (
    <ReportPanel id="reports-categories" title={t('categories.title')} report={report} scope={filtered} csv={csvHref('/categorias', query)}>
      {(d) => {
        if (d.categorias.length === 0) return <EmptyState>{t('empty')}</EmptyState>;
        const drawn = d.categorias.slice(0, CATEGORIES_DRAWN);
        const columns: Column<CategoryRow>[] = [
          { header: t('categories.category'), rowHeader: true, cell: (r) => r.main },
          { header: t('categories.issue'), className: 'wide', cell: (r) => r.issue },
          { header: t('categories.total'), cell: (r) => formatCount(r.total, lng) },
          ...STATUSES.map((s) => ({ header: status(s), cell: (r: CategoryRow) => formatCount(r[statusOf[s]] as number, lng) })),
          { header: t('categories.rate'), cell: (r) => formatPercent(r.taxaResolucao, lng) },
        ];
        return (
          <>
            <BarChart
              horizontal
              stacked
              className={heightClass(drawn.length)}
              label={t('categories.chart', { count: drawn.length, period: formatPeriod(d.periodo, lng) })}
              testId="chart-categories"
              data={{
                labels: drawn.map((r) => [r.main, r.issue]),
                datasets: STATUSES.map((s) => ({ label: status(s), data: drawn.map((r) => r[statusOf[s]] as number), backgroundColor: STATUS_COLOURS[s] })),
              }}
            />
            {d.categorias.length > CATEGORIES_DRAWN ? <p className="muted small">{t('categories.more', { count: d.categorias.length - CATEGORIES_DRAWN })}</p> : null}
            <NumbersTable cards={3} title={t('categories.title')} caption={t('categories.caption')} columns={columns} rows={d.categorias} rowKey={(r) => `${r.main}\u0000${r.issue}`} />
          </>
        );
      }}
    </ReportPanel>
  );
}

// ---- Distribution ------------------------------------------------------------------------------

export function DistributionPanel({ filters }: { filters: Filters }) {
  const { t, lng, filtered } = useWords(filters);
  const [by, setBy] = useState<Distribution>('hora');
  const query: Query = { ...queryOf(filters), por: by };
  const report = useReport<ReportDistribution>('/distribuicao', query);
  const groupId = useId();
  type Row = ReportDistribution['distribuicao'][number];
  const keyName = (por: Distribution, k: Row['chave']) =>
    por === 'hora' ? `${String(k).padStart(2, '0')}:00` : por === 'dia_semana' ? weekdayName(Number(k), lng) : k === null ? t('distribution.noNewsletter') : String(k);
  return (
    <ReportPanel
      id="reports-distribution"
      title={t('distribution.title')}
      report={report}
      scope={filtered}
      csv={csvHref('/distribuicao', query)}
      csvLabel={`${t('distribution.title')} (${t(`distribution.by.${by}`)})`}
      controls={
        <fieldset className="reports-segments" aria-describedby={groupId}>
          <legend>{t('distribution.byLabel')}</legend>
          {DISTRIBUTIONS.map((d) => (
            <label key={d} className={by === d ? 'checked' : undefined}>
              <input type="radio" name={`${groupId}-by`} value={d} checked={by === d} onChange={() => setBy(d)} />
              {t(`distribution.by.${d}`)}
            </label>
          ))}
          <span id={groupId} className="visually-hidden">
            {t('distribution.byHelp')}
          </span>
        </fieldset>
      }
    >
      {(d) => {
        const total = d.distribuicao.reduce((n, r) => n + r.total, 0);
        if (total === 0) return <EmptyState>{t('empty')}</EmptyState>;
        const horizontal = d.por === 'newsletter';
        const columns: Column<Row>[] = [
          { header: t(`distribution.key.${d.por}`), rowHeader: true, cell: (r) => keyName(d.por, r.chave) },
          { header: t('distribution.tickets'), className: 'num', cell: (r) => formatCount(r.total, lng) },
          { header: t('distribution.share'), className: 'num', cell: (r) => formatPercent(Math.round((r.total / total) * 1000) / 10, lng) },
        ];
        return (
          <>
            <BarChart
              horizontal={horizontal}
              legend={false}
              className={horizontal ? heightClass(d.distribuicao.length) : undefined}
              label={t('distribution.chart', { by: t(`distribution.by.${d.por}`).toLowerCase(), period: formatPeriod(d.periodo, lng) })}
              testId="chart-distribution"
              data={{ labels: d.distribuicao.map((r) => keyName(d.por, r.chave)), datasets: [{ label: t('distribution.tickets'), data: d.distribuicao.map((r) => r.total), backgroundColor: COLOURS[0] }] }}
            />
            <NumbersTable title={t('distribution.title')} caption={t('distribution.caption', { by: t(`distribution.by.${d.por}`).toLowerCase() })} columns={columns} rows={d.distribuicao} rowKey={(r) => String(r.chave)} />
          </>
        );
      }}
    </ReportPanel>
  );
}

// ---- Weekly cohorts ----------------------------------------------------------------------------

/** A share's shade in the heat-map (reports.css `.heat-0` … `.heat-5`): every 20 %. */
const heat = (part: number, whole: number) => (whole === 0 ? 0 : Math.min(5, Math.ceil((part / whole) * 5)));
/** What each shade stands for (the legend). */
const HEAT_STEPS = ['0%', '≤ 20%', '≤ 40%', '≤ 60%', '≤ 80%', '≤ 100%'];

export function CohortsPanel({ filters }: { filters: Filters }) {
  const { t, lng, filtered } = useWords(filters);
  const query = queryOf(filters);
  const report = useReport<ReportCohorts>('/coortes', query);
  const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);
  const cell = (k: 'em1Dia' | 'em3Dias' | 'em7Dias') => (r: CohortRow) => (
    <span className={`reports-heat heat-${heat(r[k], r.criados)}`}>
      {formatCount(r[k], lng)} <span className="reports-heat-share">({formatPercent(share(r[k], r.criados), lng)})</span>
    </span>
  );
  const columns: Column<CohortRow>[] = [
    {
      header: t('cohorts.week'),
      rowHeader: true,
      cell: (r) => (
        <>
          <span className="reports-wide">{formatWeek(r.semana, lng, t)}</span>
          <span className="reports-narrow">{formatWeekNarrow(r.semana, lng, t)}</span>
        </>
      ),
    },
    { header: t('cohorts.created'), className: 'num', cell: (r) => formatCount(r.criados, lng) },
    { header: t('cohorts.in1'), cell: cell('em1Dia') },
    { header: t('cohorts.in3'), cell: cell('em3Dias') },
    { header: t('cohorts.in7'), cell: cell('em7Dias') },
  ];
  return (
    <ReportPanel id="reports-cohorts" title={t('cohorts.title')} report={report} scope={filtered} csv={csvHref('/coortes', query)}>
      {(d) =>
        d.coortes.length === 0 ? (
          <EmptyState>{t('empty')}</EmptyState>
        ) : (
          <>
            <p className="muted small">{t('cohorts.lead')}</p>
            <div className="reports-heatmap">
              <CompactTable caption={t('cohorts.caption')} columns={columns} rows={d.coortes} rowKey={(r) => r.semana} rowAttributes={(r) => ({ 'data-week': r.semana })} />
            </div>
            <ul className="reports-heat-legend muted small" aria-label={t('cohorts.legend')}>
              {HEAT_STEPS.map((label, h) => (
                <li key={label}>
                  <span className={`reports-heat-swatch heat-${h}`} />
                  {label}
                </li>
              ))}
            </ul>
          </>
        )
      }
    </ReportPanel>
  );
}

// ---- Agents ------------------------------------------------------------------------------------

export function AgentsPanel({ filters }: { filters: Filters }) {
  const { t, lng, filtered } = useWords(filters);
  const query = queryOf(filters);
  const report = useReport<ReportAgents>('/agentes', query);
  const stat = (s: AgentRow['primeiraResposta']) =>
    s.count === 0 ? '—' : t('agents.stat', { median: formatDuration(s.median, t), p90: formatDuration(s.p90, t), count: s.count });
  const columns: Column<AgentRow>[] = [
    { header: t('agents.agent'), rowHeader: true, cell: (r) => <span className="staff-address">{r.agente}</span> },
    { header: t('agents.replies'), cell: (r) => formatCount(r.respostas, lng) },
    { header: t('agents.resolved'), cell: (r) => formatCount(r.ticketsResolvidos, lng) },
    { header: t('agents.assigned'), cell: (r) => t('agents.assignedValue', { count: r.atribuidos, active: r.atribuidosAtivos }) },
    { header: t('agents.firstResponse'), className: 'wide', cell: (r) => stat(r.primeiraResposta) },
    { header: t('agents.resolution'), className: 'wide', cell: (r) => stat(r.resolucao) },
  ];
  return (
    <ReportPanel id="reports-agents" title={t('agents.title')} report={report} scope={filtered} csv={csvHref('/agentes', query)}>
      {(d) =>
        d.agentes.length === 0 ? (
          <EmptyState>{t('agents.none')}</EmptyState>
        ) : (
          <>
            <BarChart
              horizontal
              className={heightClass(d.agentes.length)}
              label={t('agents.chart', { count: d.agentes.length, period: formatPeriod(d.periodo, lng) })}
              testId="chart-agents"
              data={{
                labels: d.agentes.map((r) => r.agente),
                datasets: [
                  { label: t('agents.replies'), data: d.agentes.map((r) => r.respostas), backgroundColor: COLOURS[0] },
                  { label: t('agents.resolved'), data: d.agentes.map((r) => r.ticketsResolvidos), backgroundColor: COLOURS[2] },
                ],
              }}
            />
            <NumbersTable cards={2} title={t('agents.title')} caption={t('agents.caption')} columns={columns} rows={d.agentes} rowKey={(r) => r.agente} />
          </>
        )
      }
    </ReportPanel>
  );
}

// ---- Every ticket ------------------------------------------------------------------------------

const DETAIL_LIMIT = 20;

export function DetailedPanel({ filters }: { filters: Filters }) {
  const { t, lng, status, filtered } = useWords(filters);
  const [page, setPage] = useState(1);
  // A ticket's number opens it in the support desk, for a member who may open the desk.
  const desk = useStaff().can('support.agent');
  const query = queryOf(filters);
  const report = useReport<ReportDetailed>('/detalhado', { ...query, page, limit: DETAIL_LIMIT });
  const panel = useRef<HTMLDivElement>(null);
  const turn = (to: number) => {
    setPage(to);
    // The button pressed may be disabled on the last page: the focus goes to the panel's heading.
    panel.current?.closest('section')?.querySelector<HTMLElement>('h2')?.focus();
  };
  const columns: Column<DetailRow>[] = [
    { header: t('detailed.ticket'), rowHeader: true, cell: (r) => (desk ? <Link to={`/staff/support/${r.id}`}>#{r.id}</Link> : `#${r.id}`) },
    {
      header: t('detailed.category'),
      className: 'wide',
      cell: (r) => (
        <>
          {r.main}
          <br />
          <span className="muted small">{r.issue}</span>
        </>
      ),
    },
    { header: t('detailed.created'), cell: (r) => formatDateTime(r.criadoEm, lng) },
    { header: t('detailed.status'), cell: (r) => <span className={`reports-status ${r.status}`}>{status(r.status)}</span> },
    { header: t('detailed.newsletter'), cell: (r) => r.newsletter ?? '—' },
    { header: t('detailed.firstResponse'), cell: (r) => formatDuration(r.primeiraRespostaSegundos, t) },
    { header: t('detailed.resolution'), cell: (r) => formatDuration(r.resolucaoSegundos, t) },
    { header: t('detailed.reopens'), cell: (r) => formatCount(r.reaberturas, lng) },
  ];
  return (
    <ReportPanel id="reports-detailed" title={t('detailed.title')} report={report} scope={filtered} csv={csvHref('/detalhado', query)} csvLabel={t('detailed.csv')}>
      {(d) => (
        <div ref={panel}>
          <p className="muted small" data-testid="detailed-total">
            {t('detailed.total', { count: d.pagination.total })}
          </p>
          <div className="reports-cards cols-2">
            <DataTable caption={t('detailed.caption')} columns={columns} rows={d.linhas} rowKey={(r) => String(r.id)} empty={t('empty')} rowAttributes={(r) => ({ 'data-ticket': String(r.id) })} />
          </div>
          <Pagination
            label={t('detailed.title')}
            page={d.pagination.page}
            pages={Math.max(1, d.pagination.totalPages)}
            hasPrevious={d.pagination.page > 1}
            hasNext={d.pagination.page < d.pagination.totalPages}
            onPrevious={() => turn(page - 1)}
            onNext={() => turn(page + 1)}
            busy={report.loading}
          />
        </div>
      )}
    </ReportPanel>
  );
}
