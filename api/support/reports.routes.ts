/**
 * Support reports (issue 14; spec §2.6, §4.11, §4.12; docs/decisions.md "Reports"):
 * staff only, computed by the database, cached two hours per distinct set of parameters in
 * MongoDB (shared by every process), `fresh=true` to compute again. What each report holds is
 * decided in operations/support/reports.ts; here the parameters, the documents and CSV.
 */
import type { z } from 'zod';
import { SUPPORT_AGENT, SUPPORT_MANAGER } from '../../models/support/ticket.rules';
import { bearer } from '../shared/auth';
import type { Context } from 'koa';
import { RAW, routeFactory } from '../shared/route';
import { toCsv, type CsvColumn } from '../../models/support/csv.rules';
import type { CacheInfo } from '../../models/support/report-cache.repo';
import * as reports from '../../operations/support/reports';
import type { SupportDeps } from './deps';
import {
  type DetailRow,
  ReportAgents,
  ReportAgentsQuery,
  ReportCategories,
  ReportCategoriesQuery,
  ReportCohorts,
  ReportCohortsQuery,
  ReportComparison,
  ReportComparisonQuery,
  ReportDashboard,
  ReportDetailed,
  ReportDetailedQuery,
  ReportDistribution,
  ReportDistributionQuery,
  ReportFilters,
  ReportFreshQuery,
  ReportResolutionMetrics,
  ReportResolutionQuery,
  ReportSeries,
  ReportSeriesQuery,
  ReportSummary,
  ReportSummaryQuery,
} from './contracts';
import {
  novemberQuery,
  reportAgentsExample,
  reportCategoriesExample,
  reportCohortsExample,
  reportComparisonExample,
  reportDashboardExample,
  reportDetailedExample,
  reportDistributionExample,
  reportFiltersExample,
  reportResolutionExample,
  reportSeriesExample,
  reportSummaryExample,
  twoWeeksQuery,
} from './examples';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
const tags = ['reports'];

const DETAIL_KEYS = ['id', 'main', 'issue', 'status', 'newsletter', 'canal', 'criadoEm', 'primeiraRespostaSegundos', 'resolucaoSegundos', 'reaberturas'] as const;
const DETAIL_COLUMNS: CsvColumn<z.infer<typeof DetailRow>>[] = DETAIL_KEYS.map((k) => ({ header: k, value: (r) => r[k] }));
/** The most rows a CSV download of the detailed report holds. */
const CSV_MAX_ROWS = 10_000;

/** The report as JSON, or with format=csv its rows as a CSV download. */
function jsonOrCsv<R, J>(ctx: Context, format: 'json' | 'csv', fileName: string, rows: readonly R[], columns: readonly CsvColumn<R>[], cache: CacheInfo, json: J): J | typeof RAW {
  if (format !== 'csv') return json;
  sendCsv(ctx, fileName, toCsv(columns, rows), cache);
  return RAW;
}

export const reportRoutes = [
  route({
    method: 'get',
    path: '/support/relatorios/filtros',
    summary: 'Report filter options (spec §4.11)',
    description: 'Categories (main) with their issues, agents, newsletters, channels (`canal`: api or email), statuses and groupings the reports accept, from the tickets stored. Cached 2 hours.',
    tags,
    auth: staff,
    query: ReportFreshQuery,
    response: ReportFilters,
    example: { response: reportFiltersExample },
    handler: async ({ query, deps }) => await reports.filterOptions(deps, query.fresh),
  }),

  route({
    method: 'get',
    path: '/support/relatorios/comparativo',
    summary: 'A period compared with the one before, or the same period a year earlier (spec §4.12)',
    description:
      'Tickets created in each period (calendar days in America/Sao_Paulo, or SUPPORT_REPORT_TIME_ZONE), by their status now, and the resolution rate; `variacao` holds the percentage changes (from zero: 0 when both are zero, 100 when there was nothing before). Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportComparisonQuery,
    response: ReportComparison,
    example: {
      query: { ...novemberQuery, comparar_com: 'periodo_anterior' },
      response: reportComparisonExample,
    },
    handler: async ({ query, deps }) => await reports.comparison(deps, query),
  }),

  route({
    method: 'get',
    path: '/support/relatorios/metricas-resolucao',
    summary: 'Resolution metrics: first-response time, resolution time, reopen rate',
    description:
      'Of the tickets created in the period that match the filters: time from creation to the first admin reply and to the resolution (seconds: median, nearest-rank p90, mean, count; exact), and the share of tickets ever resolved that were reopened. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportResolutionQuery,
    response: ReportResolutionMetrics,
    example: {
      query: { ...novemberQuery, issue: 'Não estou recebendo a edição' },
      response: reportResolutionExample,
    },
    handler: async ({ query, deps }) => {
      const { data, cache } = await reports.resolutionReport(deps, query);
      return { ...data, cache };
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/dashboard',
    summary: 'The support dashboard: open now, unanswered, created and resolved today and this week, the oldest open',
    description:
      'Open and in-progress tickets now, those no admin has answered yet (`semResposta`: tickets have no assignee, so unanswered is what waits for an agent), the oldest of them with its age in seconds; tickets created and resolved (and still resolved or closed) since the start of today and of the week (Monday), in America/Sao_Paulo. Cached 2 hours (per day); fresh=true for the live numbers.',
    tags,
    auth: staff,
    query: ReportFreshQuery,
    response: ReportDashboard,
    example: { query: { fresh: 'true' }, response: reportDashboardExample },
    handler: async ({ query, deps }) => await reports.dashboard(deps, query.fresh),
  }),

  route({
    method: 'get',
    path: '/support/relatorios/categorias',
    summary: 'Tickets per main category and issue',
    description: 'For the tickets created in the period that match the filters: per main category and issue, the count by status now and the share resolved or closed (percent); most tickets first. `format=csv` downloads it as CSV. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportCategoriesQuery,
    response: ReportCategories,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: one row per category and issue, a header row first (Content-Disposition names the file)' },
    example: { query: novemberQuery, response: reportCategoriesExample },
    handler: async ({ query, deps, ctx }) => {
      const { data, cache, periodo } = await reports.categoryReport(deps, query);
      return jsonOrCsv(ctx, query.format, `relatorio-categorias-${periodo.inicio}-${periodo.fim}.csv`, data.categorias, CATEGORY_COLUMNS, cache, { ...data, cache });
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/distribuicao',
    summary: 'Tickets by hour of the day, weekday or newsletter',
    description: 'For the tickets created in the period that match the filters: `por=hora` (0–23, every hour), `dia_semana` (1 Monday … 7 Sunday, every day) in America/Sao_Paulo, or `newsletter` (null: none; most tickets first). `format=csv` downloads it. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportDistributionQuery,
    response: ReportDistribution,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: chave,total rows after a header row' },
    example: { query: { ...novemberQuery, por: 'dia_semana' }, response: reportDistributionExample },
    handler: async ({ query, deps, ctx }) => {
      const { por } = query;
      const { data, cache, periodo } = await reports.distributionReport(deps, query, por);
      const columns: CsvColumn<(typeof data.distribuicao)[number]>[] = [{ header: por, value: (r) => r.chave }, { header: 'total', value: (r) => r.total }];
      return jsonOrCsv(ctx, query.format, `relatorio-distribuicao-${por}-${periodo.inicio}-${periodo.fim}.csv`, data.distribuicao, columns, cache, { ...data, cache });
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/serie',
    summary: 'Tickets created per hour, day, week, month or year',
    description: 'For the tickets created in the period that match the filters, grouped by `agrupamento` (hora `YYYY-MM-DD HH:00`, dia `YYYY-MM-DD`, semana ISO `YYYY-Www` from Monday, mes `YYYY-MM`, ano `YYYY`; America/Sao_Paulo): how many were created and how many of them are resolved or closed now. Periods without tickets are left out. `format=csv` downloads it. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportSeriesQuery,
    response: ReportSeries,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: periodo,criados,resolvidos rows after a header row' },
    example: { query: { ...twoWeeksQuery, agrupamento: 'semana' }, response: reportSeriesExample },
    handler: async ({ query, deps, ctx }) => {
      const { agrupamento } = query;
      const { data, cache, periodo } = await reports.seriesReport(deps, query, agrupamento);
      const columns: CsvColumn<(typeof data.serie)[number]>[] = (['periodo', 'criados', 'resolvidos'] as const).map((k) => ({ header: k, value: (r) => r[k] }));
      return jsonOrCsv(ctx, query.format, `relatorio-serie-${agrupamento}-${periodo.inicio}-${periodo.fim}.csv`, data.serie, columns, cache, { ...data, cache });
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/coortes',
    summary: 'Weekly cohorts: tickets created per week and how many were resolved within 1, 3 and 7 days',
    description: 'For the tickets created in the period that match the filters, per ISO week of creation (from Monday, America/Sao_Paulo): created, and resolved within 1, 3 and 7 days of creation (cumulative; by the latest resolution). `format=csv` downloads it. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportCohortsQuery,
    response: ReportCohorts,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: semana,criados,em1Dia,em3Dias,em7Dias rows after a header row' },
    example: { query: twoWeeksQuery, response: reportCohortsExample },
    handler: async ({ query, deps, ctx }) => {
      const { data, cache, periodo } = await reports.cohortReport(deps, query);
      const columns: CsvColumn<(typeof data.coortes)[number]>[] = (['semana', 'criados', 'em1Dia', 'em3Dias', 'em7Dias'] as const).map((k) => ({ header: k, value: (r) => r[k] }));
      return jsonOrCsv(ctx, query.format, `relatorio-coortes-${periodo.inicio}-${periodo.fim}.csv`, data.coortes, columns, cache, { ...data, cache });
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/resumo',
    summary: 'Summary of the last 30 days',
    description: 'The tickets created from 30 days ago to today (America/Sao_Paulo) that match the filters: total, by status now, resolution rate, first-response and resolution times (median, p90, mean, count; seconds) and reopen rate. Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportSummaryQuery,
    response: ReportSummary,
    example: { response: reportSummaryExample },
    handler: async ({ query, deps }) => await reports.summary(deps, query),
  }),

  route({
    method: 'get',
    path: '/support/relatorios/detalhado',
    summary: 'One row per ticket with its metrics',
    description: 'The tickets created in the period that match the filters, newest first: category, issue, status, newsletter, creation, seconds to the first admin reply and to the resolution (null: not yet), reopens. Paginated (`page`, `limit` up to 100); `format=csv` downloads every matching row (up to 10,000: a cached report is one document). Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: ReportDetailedQuery,
    response: ReportDetailed,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: every matching ticket (up to 10,000), a header row first' },
    example: {
      query: { data_inicio: '2026-11-24', data_fim: '2026-11-24', status: 'resolved', page: 1, limit: 20 },
      response: reportDetailedExample,
    },
    handler: async ({ query, deps, ctx }) => {
      const { page, limit } = query;
      const csv = query.format === 'csv';
      const window = csv ? { offset: 0, limit: CSV_MAX_ROWS } : { offset: (page - 1) * limit, limit };
      const { data, cache, periodo } = await reports.detailedReport(deps, query, window);
      return jsonOrCsv(ctx, query.format, `relatorio-detalhado-${periodo.inicio}-${periodo.fim}.csv`, data.linhas, DETAIL_COLUMNS, cache, {
        periodo: data.periodo,
        linhas: data.linhas,
        pagination: { page, limit, total: data.total, totalPages: Math.ceil(data.total / limit) },
        cache,
      });
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/agentes',
    summary: "Per agent: replies, tickets resolved, first-response and resolution times (managers)",
    description:
      "Over the tickets created in the period that match the filters: each agent's admin replies, tickets resolved, the first-response time of the tickets whose first admin reply the agent wrote and the time from creation to each resolution the agent made (seconds: median, nearest-rank p90, mean, count). About individual people's work: permission support.manager. `format=csv` downloads it. Cached 2 hours per parameters.",
    tags,
    auth: bearer(SUPPORT_MANAGER),
    query: ReportAgentsQuery,
    response: ReportAgents,
    alsoProduces: { mediaType: 'text/csv', description: 'with format=csv: one row per agent, the statistics flattened (primeiraResposta_median…), a header row first' },
    example: { query: novemberQuery, response: reportAgentsExample },
    handler: async ({ query, deps, ctx }) => {
      const { data, cache, periodo } = await reports.agentReport(deps, query);
      type Row = (typeof data.agentes)[number];
      const stat = (group: 'primeiraResposta' | 'resolucao') => (['median', 'p90', 'mean', 'count'] as const).map((k) => ({ header: `${group}_${k}`, value: (r: Row) => r[group][k] }));
      const columns: CsvColumn<Row>[] = [{ header: 'agente', value: (r) => r.agente }, { header: 'respostas', value: (r) => r.respostas }, { header: 'ticketsResolvidos', value: (r) => r.ticketsResolvidos }, { header: 'atribuidos', value: (r) => r.atribuidos }, { header: 'atribuidosAtivos', value: (r) => r.atribuidosAtivos }, ...stat('primeiraResposta'), ...stat('resolucao')];
      return jsonOrCsv(ctx, query.format, `relatorio-agentes-${periodo.inicio}-${periodo.fim}.csv`, data.agentes, columns, cache, { ...data, cache });
    },
  }),
];

type CategoryRow = Awaited<ReturnType<SupportDeps['reports']['byCategory']>>[number];
const CATEGORY_COLUMNS: CsvColumn<CategoryRow>[] = [
  { header: 'main', value: (r) => r.main },
  { header: 'issue', value: (r) => r.issue },
  { header: 'total', value: (r) => r.total },
  { header: 'abertos', value: (r) => r.abertos },
  { header: 'emAndamento', value: (r) => r.emAndamento },
  { header: 'resolvidos', value: (r) => r.resolvidos },
  { header: 'fechados', value: (r) => r.fechados },
  { header: 'taxaResolucao', value: (r) => r.taxaResolucao },
];

/** A report as a CSV download; the cache state travels in a header (the body is the table only). */
function sendCsv(ctx: Context, fileName: string, csv: string, cache: CacheInfo): void {
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${fileName}"`);
  ctx.set('X-Report-Cache', cache.hit ? `hit; age=${cache.age}; expires-in=${cache.expiresIn}` : 'miss');
  ctx.body = csv;
}
