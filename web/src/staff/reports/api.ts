/**
 * The support reports as the console serves them (`/api/staff` + the support API's
 * `/support/relatorios/…`, api/support/reports.routes.ts; views in api/support/contracts.ts), and
 * a hook that reads one: with the filters as the query, again on `fresh=true` (a refresh), and the
 * cache state each answer carries (`cache: {hit, age?, expiresIn?}` in seconds).
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { COMPARISONS, GROUPINGS } from '../../../../models/support/report.rules';
import { api } from '../../api';
import { useSession } from '../../session';
import { failureOf, staffPath, type Failure, type Query } from '../api';

export type Grouping = (typeof GROUPINGS)[number];
export type Comparison = (typeof COMPARISONS)[number];
export type Status = 'open' | 'in_progress' | 'resolved' | 'closed';
export type Distribution = 'hora' | 'dia_semana' | 'newsletter';

/** The report's place under /api/staff. */
export const REPORTS = '/support/relatorios';

/** Whether the answer was computed for this request (`hit: false`) or read from the two-hour cache. */
export interface CacheInfo {
  hit: boolean;
  /** Seconds since it was computed (on a hit). */
  age?: number;
  /** Seconds until it is computed again (on a hit). */
  expiresIn?: number;
}

export interface Periodo {
  inicio: string;
  fim: string;
}

/** Seconds; null when there is nothing to measure. */
export interface Durations {
  median: number | null;
  p90: number | null;
  mean: number | null;
  count: number;
}

export interface ReportFilters {
  categorias: { main: string; issues: string[] }[];
  agentes: string[];
  newsletters: string[];
  canais: ('api' | 'email')[];
  status: Status[];
  agrupamentos: Grouping[];
  cache: CacheInfo;
}

export interface PeriodStats {
  totalTickets: number;
  ticketsByStatus: Record<Status, number>;
  resolutionMetrics: { taxaResolucaoGeral: number };
  periodo: Periodo;
}

export interface ReportComparison {
  atual: PeriodStats;
  anterior: PeriodStats;
  /** Percentage changes (0 when both are zero, 100 from zero). */
  variacao: { totalTickets: number; taxaResolucao: number };
  cache: CacheInfo;
}

export interface ReportResolution {
  periodo: Periodo;
  primeiraResposta: Durations;
  resolucao: Durations;
  reabertura: { taxa: number; reabertos: number; resolvidos: number };
  cache: CacheInfo;
}

export interface ReportDashboard {
  abertos: number;
  emAndamento: number;
  semResposta: number;
  criados: { hoje: number; semana: number };
  resolvidos: { hoje: number; semana: number };
  maisAntigoAberto: { id: number; status: string; createdAt: string; idadeSegundos: number } | null;
  hoje: string;
  semanaDesde: string;
  cache: CacheInfo;
}

export interface CategoryRow {
  main: string;
  issue: string;
  total: number;
  abertos: number;
  emAndamento: number;
  resolvidos: number;
  fechados: number;
  taxaResolucao: number;
}

export interface ReportCategories {
  periodo: Periodo;
  categorias: CategoryRow[];
  cache: CacheInfo;
}

export interface ReportDistribution {
  periodo: Periodo;
  por: Distribution;
  /** The hour (0–23), the ISO weekday (1 Monday … 7 Sunday), or the newsletter (null: none). */
  distribuicao: { chave: string | number | null; total: number }[];
  cache: CacheInfo;
}

export interface ReportSeries {
  periodo: Periodo;
  agrupamento: Grouping;
  serie: { periodo: string; criados: number; resolvidos: number }[];
  cache: CacheInfo;
}

export interface CohortRow {
  semana: string;
  criados: number;
  em1Dia: number;
  em3Dias: number;
  em7Dias: number;
}

export interface ReportCohorts {
  periodo: Periodo;
  coortes: CohortRow[];
  cache: CacheInfo;
}

export interface ReportSummary extends PeriodStats {
  primeiraResposta: Durations;
  resolucao: Durations;
  reabertura: { taxa: number; reabertos: number; resolvidos: number };
  cache: CacheInfo;
}

export interface DetailRow {
  id: number;
  main: string;
  issue: string;
  status: string;
  newsletter: string | null;
  criadoEm: string;
  primeiraRespostaSegundos: number | null;
  resolucaoSegundos: number | null;
  reaberturas: number;
}

export interface ReportDetailed {
  periodo: Periodo;
  linhas: DetailRow[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
  cache: CacheInfo;
}

export interface AgentRow {
  agente: string;
  respostas: number;
  ticketsResolvidos: number;
  atribuidos: number;
  atribuidosAtivos: number;
  primeiraResposta: Durations;
  resolucao: Durations;
}

export interface ReportAgents {
  periodo: Periodo;
  agentes: AgentRow[];
  cache: CacheInfo;
}

/** The address of a report's CSV download (the same report with `format=csv`): a same-origin GET with the session's cookie. */
export const csvHref = (path: string, query: Query): string => staffPath(`${REPORTS}${path}`, { ...query, format: 'csv' });

// ---- Reading a report --------------------------------------------------------------------------

/** "Refresh every report" on the page: a counter each report watches (0: never asked). */
export const RefreshAllContext = createContext(0);

export interface Report<T> {
  data: T | undefined;
  failure: Failure | null;
  loading: boolean;
  /** Whether the current load asked for a fresh computation. */
  refreshing: boolean;
  /** When the answer shown arrived (ms since the epoch): the cache's age is counted from it. */
  receivedAt: number;
  reload(): Promise<void>;
  /** Computes the report again (`fresh=true`); true when it succeeded. */
  refresh(): Promise<boolean>;
}

/**
 * A report with the query given (read again when it changes). The latest request's answer wins (a
 * slow older one never overwrites a newer one); the answer shown stays while the next loads. A 401
 * asks the app for the session again, which sends the reader to sign in.
 */
export function useReport<T>(path: string, query: Query = {}): Report<T> {
  const { refresh: refreshSession } = useSession();
  const refreshAll = useContext(RefreshAllContext);
  const [state, setState] = useState<{ data: T | undefined; failure: Failure | null; loading: boolean; refreshing: boolean; receivedAt: number }>({
    data: undefined,
    failure: null,
    loading: true,
    refreshing: false,
    receivedAt: 0,
  });
  const url = staffPath(`${REPORTS}${path}`, query);
  const latest = useRef(0);
  const load = useCallback(
    async (fresh: boolean): Promise<boolean> => {
      const mine = ++latest.current;
      setState((s) => ({ ...s, loading: true, refreshing: fresh }));
      try {
        const data = await api<T>(fresh ? `${url}${url.includes('?') ? '&' : '?'}fresh=true` : url);
        if (mine !== latest.current) return false;
        setState({ data, failure: null, loading: false, refreshing: false, receivedAt: Date.now() });
        return true;
      } catch (err) {
        if (mine !== latest.current) return false;
        const failure = failureOf(err);
        setState((s) => ({ ...s, failure, loading: false, refreshing: false }));
        if (failure.kind === 'signedOut') await refreshSession();
        return false;
      }
    },
    [url, refreshSession],
  );
  useEffect(() => {
    void load(false);
  }, [load]);
  // "Refresh every report": each report computes again once per press (not on the first render).
  const seen = useRef(refreshAll);
  useEffect(() => {
    if (refreshAll === seen.current) return;
    seen.current = refreshAll;
    void load(true);
  }, [refreshAll, load]);
  const reload = useCallback(async () => {
    await load(false);
  }, [load]);
  const refresh = useCallback(() => load(true), [load]);
  return { ...state, reload, refresh };
}
