/**
 * Support reports (issue 14, in progress; spec §2.6, §4.11, §4.12; docs/decisions.md "Reports"):
 * staff only, computed by the database, cached two hours per distinct set of parameters in
 * MongoDB (shared by every process), `fresh=true` to compute again.
 */
import { z } from 'zod';
import { AppError } from '../../models/errors';
import { isDate } from '../../models/quiz/calendar.rules';
import { COMPARISONS, comparedPeriod, defaultPeriod, GROUPINGS, percent, percentChange, periodRange, type Period } from '../../models/support/report.rules';
import { PATCHABLE_STATUSES, SUPPORT_AGENT } from '../../models/support/ticket.rules';
import { bearer } from '../shared/auth';
import { routeFactory } from '../shared/route';
import type { SupportDeps } from './deps';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
const tags = ['reports'];

const Cache = z.object({
  hit: z.boolean(),
  age: z.number().int().optional().describe('seconds since the report was computed (on a hit)'),
  expiresIn: z.number().int().optional().describe('seconds until it is computed again (on a hit)'),
});
const fresh = z.enum(['true', 'false']).default('false').transform((v) => v === 'true').describe('true: compute the report again, ignoring the cache');
const day = z.string().refine(isDate, 'must be a calendar date written YYYY-MM-DD');

const PeriodStats = z.object({
  totalTickets: z.number().int(),
  ticketsByStatus: z.object(Object.fromEntries(PATCHABLE_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof PATCHABLE_STATUSES)[number], z.ZodNumber>),
  resolutionMetrics: z.object({ taxaResolucaoGeral: z.number().describe('resolved and closed tickets, in percent of the period\'s tickets') }),
  periodo: z.object({ inicio: z.string(), fim: z.string() }),
});

async function periodStats(deps: SupportDeps, period: Period): Promise<z.input<typeof PeriodStats>> {
  const { from, to } = periodRange(period, deps.config.support.reports.timeZone);
  const counts = await deps.reports.periodCounts(from, to);
  const done = counts.ticketsByStatus.resolved + counts.ticketsByStatus.closed;
  return { ...counts, resolutionMetrics: { taxaResolucaoGeral: percent(done, counts.totalTickets) }, periodo: period };
}

export const reportRoutes = [
  route({
    method: 'get',
    path: '/support/relatorios/filtros',
    summary: 'Report filter options (spec §4.11)',
    description: 'Categories (main) with their issues, agents, newsletters, statuses and groupings the reports accept, from the tickets stored. Cached 2 hours.',
    tags,
    auth: staff,
    query: z.strictObject({ fresh }),
    response: z.object({
      categorias: z.array(z.object({ main: z.string(), issues: z.array(z.string()) })),
      agentes: z.array(z.string()),
      newsletters: z.array(z.string()),
      status: z.array(z.enum(PATCHABLE_STATUSES)),
      agrupamentos: z.array(z.enum(GROUPINGS)),
      cache: Cache,
    }),
    handler: async ({ query, deps }) => {
      const { data, cache } = await deps.reportCache.get('filtros', {}, () => deps.reports.filterOptions(), query.fresh);
      return { ...data, status: [...PATCHABLE_STATUSES], agrupamentos: [...GROUPINGS], cache };
    },
  }),

  route({
    method: 'get',
    path: '/support/relatorios/comparativo',
    summary: 'A period compared with the one before, or the same period a year earlier (spec §4.12)',
    description:
      'Tickets created in each period (calendar days in America/Sao_Paulo, or SUPPORT_REPORT_TIME_ZONE), by their status now, and the resolution rate; `variacao` holds the percentage changes (from zero: 0 when both are zero, 100 when there was nothing before). Cached 2 hours per parameters.',
    tags,
    auth: staff,
    query: z.strictObject({
      data_inicio: day.optional().describe('first day of the current period (default: 30 days ago)'),
      data_fim: day.optional().describe('last day of the current period (default: today)'),
      comparar_com: z.enum(COMPARISONS).default('periodo_anterior'),
      fresh,
    }),
    response: z.object({ atual: PeriodStats, anterior: PeriodStats, variacao: z.object({ totalTickets: z.number(), taxaResolucao: z.number() }), cache: Cache }),
    handler: async ({ query, deps }) => {
      const fallback = defaultPeriod(deps.now(), deps.config.support.reports.timeZone);
      const current: Period = { inicio: query.data_inicio ?? fallback.inicio, fim: query.data_fim ?? fallback.fim };
      if (current.inicio > current.fim) {
        throw new AppError('VALIDATION_FAILED', `data_inicio (${current.inicio}) is after data_fim (${current.fim})`, { details: [{ path: 'query.data_inicio', message: 'must not be after data_fim' }] });
      }
      const params = { ...current, comparar_com: query.comparar_com };
      const { data, cache } = await deps.reportCache.get('comparativo', params, async () => {
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
    },
  }),
];
