/**
 * The reports' filters, kept in the page's address (`/staff/reports?periodo=7` …) so that a view
 * can be shared, bookmarked and reached again with Back: the period (a preset, counted from
 * today, or two dates), newsletter, agent, category, issue and status. `queryOf` turns them into
 * the reports' query string (data_inicio, data_fim, newsletter, agente, main, issue, status).
 */
import { addDays, isDate, localDate } from '../../../../models/shared/calendar.rules';
import type { Query } from '../api';
import type { Status } from './api';

/** Period presets: the last N days, today included. */
export const PRESETS = ['7', '30', '90'] as const;
export type Preset = (typeof PRESETS)[number];
export const DEFAULT_PRESET: Preset = '30';

export const STATUSES: readonly Status[] = ['open', 'in_progress', 'resolved', 'closed'];
/** Where tickets are opened: the API, or a mail to the desk (issue 39). */
export const CHANNELS = ['api', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface Filters {
  /** A preset, or `custom` with `inicio` and `fim`. */
  preset: Preset | 'custom';
  inicio: string;
  fim: string;
  newsletter: string;
  agente: string;
  main: string;
  issue: string;
  status: Status | '';
  canal: Channel | '';
}

/** Today in the reader's time zone (a preset's last day). */
export const today = (now = new Date()): string => localDate(now, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');

/** The days of a preset: the last N days up to today, both included. */
export function presetPeriod(preset: Preset, now = new Date()): { inicio: string; fim: string } {
  const fim = today(now);
  return { inicio: addDays(fim, -(Number(preset) - 1)), fim };
}

const isPreset = (v: string | null): v is Preset => v !== null && (PRESETS as readonly string[]).includes(v);
const isStatus = (v: string | null): v is Status => v !== null && (STATUSES as readonly string[]).includes(v);
const isChannel = (v: string | null): v is Channel => v !== null && (CHANNELS as readonly string[]).includes(v);

/** The filters an address holds (anything unreadable falls back to the last 30 days, no filter). */
export function filtersFrom(params: URLSearchParams, now = new Date()): Filters {
  const inicio = params.get('data_inicio');
  const fim = params.get('data_fim');
  const base = {
    newsletter: params.get('newsletter') ?? '',
    agente: params.get('agente') ?? '',
    main: params.get('main') ?? '',
    issue: params.get('issue') ?? '',
    status: isStatus(params.get('status')) ? (params.get('status') as Status) : ('' as const),
    canal: isChannel(params.get('canal')) ? (params.get('canal') as Channel) : ('' as const),
  };
  if (inicio && fim && isDate(inicio) && isDate(fim) && inicio <= fim) return { preset: 'custom', inicio, fim, ...base };
  const preset = params.get('periodo');
  const p: Preset = isPreset(preset) ? preset : DEFAULT_PRESET;
  return { preset: p, ...presetPeriod(p, now), ...base };
}

/** The address's query string for some filters (a preset is kept as such, not as its dates). */
export function paramsOf(f: Filters): URLSearchParams {
  const params = new URLSearchParams();
  if (f.preset === 'custom') {
    params.set('data_inicio', f.inicio);
    params.set('data_fim', f.fim);
  } else if (f.preset !== DEFAULT_PRESET) {
    params.set('periodo', f.preset);
  }
  for (const key of ['newsletter', 'agente', 'main', 'issue', 'status', 'canal'] as const) if (f[key]) params.set(key, f[key]);
  return params;
}

/** The period alone, as the reports take it. */
export const periodQuery = (f: Filters): Query => ({ data_inicio: f.inicio, data_fim: f.fim });

/** Every filter but the period (the summary's: its period is always the last 30 days). */
export const filterQuery = (f: Filters): Query => ({
  newsletter: f.newsletter || undefined,
  agente: f.agente || undefined,
  main: f.main || undefined,
  issue: f.issue || undefined,
  status: f.status || undefined,
  canal: f.canal || undefined,
});

/** The period and every filter. */
export const queryOf = (f: Filters): Query => ({ ...periodQuery(f), ...filterQuery(f) });
