/**
 * Support reports, the use cases (issue 14; spec §2.6, §4.11, §4.12; docs/decisions.md
 * "Reports"): each computed by the database over a period (calendar days in the reports' time
 * zone; by default the last 30 days) and the filters asked for, cached two hours per distinct set
 * of parameters (shared by every process), computed again on `fresh`. Routes parse and present
 * (JSON, or CSV); these decide the period, the cache key and what each report holds.
 */
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import { localDate } from '../../models/shared/calendar.rules';
import type { ReportCache } from '../../models/support/report-cache.repo';
import type { ReportFilter, ReportRepo } from '../../models/support/report.repo';
import { comparedPeriod, defaultPeriod, GROUPINGS, percent, percentChange, periodRange, startOfDay, weekStartOf, type Comparison, type Period } from '../../models/support/report.rules';
import { PATCHABLE_STATUSES, type PatchableStatus, type TicketChannel } from '../../models/support/ticket.rules';

export interface ReportDeps {
  reports: ReportRepo;
  reportCache: ReportCache;
  now: () => Date;
  config: Pick<Config, 'support'>;
}

/** The period and filters a report query may carry, and whether to compute it again. */
export interface ReportQuery {
  data_inicio?: string | undefined;
  data_fim?: string | undefined;
  status?: PatchableStatus | undefined;
  main?: string | undefined;
  issue?: string | undefined;
  agente?: string | undefined;
  newsletter?: string | undefined;
  tag?: number | undefined;
  canal?: TicketChannel | undefined;
  fresh: boolean;
}

const zone = (deps: ReportDeps) => deps.config.support.reports.timeZone;

/** The period asked for (default: from 30 days ago to today); a start after the end is 400. */
export function reportPeriod(deps: ReportDeps, query: Pick<ReportQuery, 'data_inicio' | 'data_fim'>): Period {
  const fallback = defaultPeriod(deps.now(), zone(deps));
  const period: Period = { inicio: query.data_inicio ?? fallback.inicio, fim: query.data_fim ?? fallback.fim };
  if (period.inicio > period.fim) {
    throw new AppError('VALIDATION_FAILED', `data_inicio (${period.inicio}) is after data_fim (${period.fim})`, { details: [{ path: 'query.data_inicio', message: 'must not be after data_fim' }] });
  }
  return period;
}

/** The filters of a report query (the period and presentation parameters taken out). */
function filtersOf(q: ReportQuery): Omit<ReportFilter, 'from' | 'to'> {
  return { status: q.status, main: q.main, issue: q.issue, agente: q.agente, newsletter: q.newsletter, tag: q.tag, canal: q.canal };
}

/**
 * A report over the period and filters of `query`: cached under its name, the period, the filters
 * and `extra` (its own parameters); `compute` gets the filter with the period's instants.
 */
async function filteredReport<T extends object>(deps: ReportDeps, name: string, query: ReportQuery, extra: Record<string, unknown>, compute: (filter: ReportFilter) => Promise<T>) {
  const periodo = reportPeriod(deps, query);
  const filters = filtersOf(query);
  const { data, cache } = await deps.reportCache.get(name, { ...periodo, ...filters, ...extra }, async () => {
    const { from, to } = periodRange(periodo, zone(deps));
    return { periodo, ...(await compute({ from, to, ...filters })) };
  }, query.fresh);
  return { data, cache, periodo };
}

async function periodStats(deps: ReportDeps, period: Period) {
  const { from, to } = periodRange(period, zone(deps));
  const counts = await deps.reports.periodCounts(from, to);
  const done = counts.ticketsByStatus.resolved + counts.ticketsByStatus.closed;
  return { ...counts, resolutionMetrics: { taxaResolucaoGeral: percent(done, counts.totalTickets) }, periodo: period };
}

/**
 * How long the filters' choices are kept at most: a newsletter or agent new today is choosable
 * within minutes (or at once with Refresh), while the reports themselves keep the cache's life.
 */
export const FILTER_OPTIONS_TTL_MS = 5 * 60_000;

/** What the reports can be filtered and grouped by, from the tickets stored. */
export async function filterOptions(deps: ReportDeps, fresh: boolean) {
  const { data, cache } = await deps.reportCache.get('filtros', {}, () => deps.reports.filterOptions(), fresh, Math.min(deps.config.support.reports.cacheTtlMs, FILTER_OPTIONS_TTL_MS));
  return { ...data, status: [...PATCHABLE_STATUSES], agrupamentos: [...GROUPINGS], cache };
}

/** A period against the one before it or the same one a year earlier. */
export async function comparison(deps: ReportDeps, query: Pick<ReportQuery, 'data_inicio' | 'data_fim' | 'fresh'> & { comparar_com: Comparison }) {
  const current = reportPeriod(deps, query);
  const { data, cache } = await deps.reportCache.get('comparativo', { ...current, comparar_com: query.comparar_com }, async () => {
    const [atual, anterior] = await Promise.all([periodStats(deps, current), periodStats(deps, comparedPeriod(current, query.comparar_com))]);
    return {
      atual,
      anterior,
      variacao: {
        totalTickets: percentChange(anterior.totalTickets, atual.totalTickets),
        taxaResolucao: percentChange(anterior.resolutionMetrics.taxaResolucaoGeral, atual.resolutionMetrics.taxaResolucaoGeral),
      },
    };
  }, query.fresh);
  return { ...data, cache };
}

export const resolutionReport = (deps: ReportDeps, q: ReportQuery) => filteredReport(deps, 'metricas-resolucao', q, {}, (f) => deps.reports.resolutionMetrics(f));

/** Open now, unanswered, created and resolved today and this week, the oldest open (cached per day). */
export async function dashboard(deps: ReportDeps, fresh: boolean) {
  const now = deps.now();
  const hoje = localDate(now, zone(deps));
  const semanaDesde = weekStartOf(hoje);
  const { data, cache } = await deps.reportCache.get('dashboard', { hoje }, async () => ({
    ...(await deps.reports.dashboard(now, startOfDay(hoje, zone(deps)), startOfDay(semanaDesde, zone(deps)))),
    hoje,
    semanaDesde,
  }), fresh);
  return { ...data, cache };
}

export const categoryReport = (deps: ReportDeps, q: ReportQuery) => filteredReport(deps, 'categorias', q, {}, async (f) => ({ categorias: await deps.reports.byCategory(f) }));

export const distributionReport = (deps: ReportDeps, q: ReportQuery, por: 'hora' | 'dia_semana' | 'newsletter') =>
  filteredReport(deps, 'distribuicao', q, { por }, async (f) => ({ por, distribuicao: await deps.reports.distribution(f, por, zone(deps)) }));

export const seriesReport = (deps: ReportDeps, q: ReportQuery, agrupamento: (typeof GROUPINGS)[number]) =>
  filteredReport(deps, 'serie', q, { agrupamento }, async (f) => ({ agrupamento, serie: await deps.reports.series(f, agrupamento, zone(deps)) }));

export const cohortReport = (deps: ReportDeps, q: ReportQuery) => filteredReport(deps, 'coortes', q, {}, async (f) => ({ coortes: await deps.reports.cohorts(f, zone(deps)) }));

/** The last 30 days at a glance: counts by status, the resolution rate and the resolution metrics. */
export async function summary(deps: ReportDeps, q: Omit<ReportQuery, 'data_inicio' | 'data_fim'>) {
  const filters = filtersOf(q);
  const periodo = defaultPeriod(deps.now(), zone(deps));
  const { data, cache } = await deps.reportCache.get('resumo', { ...periodo, ...filters }, async () => {
    const { from, to } = periodRange(periodo, zone(deps));
    const [counts, metrics] = await Promise.all([deps.reports.periodCounts(from, to, filters), deps.reports.resolutionMetrics({ from, to, ...filters })]);
    const done = counts.ticketsByStatus.resolved + counts.ticketsByStatus.closed;
    return { ...counts, resolutionMetrics: { taxaResolucaoGeral: percent(done, counts.totalTickets) }, periodo, ...metrics };
  }, q.fresh);
  return { ...data, cache };
}

/** One row per ticket, a window of them (a page, or the first CSV_MAX_ROWS for a download). */
export const detailedReport = (deps: ReportDeps, q: ReportQuery, window: { offset: number; limit: number }) =>
  filteredReport(deps, 'detalhado', q, window, (f) => deps.reports.detailed(f, window));

export const agentReport = (deps: ReportDeps, q: ReportQuery) => filteredReport(deps, 'agentes', q, {}, async (f) => ({ agentes: await deps.reports.agents(f) }));
