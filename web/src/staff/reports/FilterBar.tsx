/**
 * The reports' filters: the period (last 7, 30 or 90 days, or two dates), newsletter, agent,
 * category and issue, and status, with the choices the tickets stored offer (`relatorios/filtros`).
 * A draft until applied: Apply puts them in the page's address, which every report reads.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Report, ReportFilters, Status } from './api';
import { formatPeriod } from './format';
import { CHANNELS, DEFAULT_PRESET, paramsOf, PRESETS, presetPeriod, STATUSES, type Channel, type Filters, type Preset } from './filters';
import { NS } from './parts';

/** The filters applied, in words: "Last 30 days (28 Oct – 26 Nov 2026) · Newsletter: The News". */
function describe(f: Filters, t: TFunction, lng: string): string {
  const period = formatPeriod({ inicio: f.inicio, fim: f.fim }, lng);
  return [
    f.preset === 'custom' ? period : `${t('filters.lastDays', { count: Number(f.preset) })} (${period})`,
    f.newsletter ? t('scope.newsletter', { value: f.newsletter }) : null,
    f.agente ? t('scope.agent', { value: f.agente }) : null,
    f.main ? t('scope.category', { value: f.main }) : null,
    f.issue ? t('scope.issue', { value: f.issue }) : null,
    f.status ? t('scope.status', { value: t(`status.${f.status}`) }) : null,
    f.canal ? t('scope.channel', { value: t(`channel.${f.canal}`) }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

export function FilterBar({ applied, options, onApply }: { applied: Filters; options: Report<ReportFilters>; onApply: (f: Filters) => void }) {
  const { t, i18n } = useTranslation(NS);
  const [draft, setDraft] = useState<Filters>(applied);
  const [invalid, setInvalid] = useState(false);
  // The address changed (Apply, Back, a link): the form shows what is applied, in the same render
  // as the rest of the page (state adjusted while rendering, not in an effect after it).
  const appliedKey = paramsOf(applied).toString();
  const [base, setBase] = useState(appliedKey);
  if (base !== appliedKey) {
    setBase(appliedKey);
    setDraft(applied);
    setInvalid(false);
  }
  const from = useRef<HTMLInputElement>(null);
  const ids = useId();
  const id = (name: string) => `${ids}-${name}`;

  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const choosePreset = (value: string) => {
    if (value === 'custom') return setDraft((d) => ({ ...d, preset: 'custom' }));
    const preset = value as Preset;
    setDraft((d) => ({ ...d, preset, ...presetPeriod(preset) }));
    setInvalid(false);
  };
  const setDate = (key: 'inicio' | 'fim', value: string) => {
    setDraft((d) => ({ ...d, preset: 'custom', [key]: value }));
    setInvalid(false);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft.inicio || !draft.fim || draft.inicio > draft.fim) {
      setInvalid(true);
      from.current?.focus();
      return;
    }
    onApply(draft);
  };
  const clear = () => {
    const reset: Filters = { preset: DEFAULT_PRESET, ...presetPeriod(DEFAULT_PRESET), newsletter: '', agente: '', main: '', issue: '', status: '', canal: '' };
    setDraft(reset);
    setInvalid(false);
    onApply(reset);
  };

  const o = options.data;
  // A value in the address that the tickets no longer offer stays choosable (and so shown).
  const withValue = (list: readonly string[], value: string) => (value && !list.includes(value) ? [value, ...list] : list);
  const mains = withValue(o?.categorias.map((c) => c.main) ?? [], draft.main);
  const issuesOf = draft.main ? (o?.categorias.find((c) => c.main === draft.main)?.issues ?? []) : [...new Set(o?.categorias.flatMap((c) => c.issues) ?? [])].sort((a, b) => a.localeCompare(b));
  const issues = withValue(issuesOf, draft.issue);
  const newsletters = withValue(o?.newsletters ?? [], draft.newsletter);
  const agents = withValue(o?.agentes ?? [], draft.agente);

  return (
    <form className="card reports-filters" onSubmit={submit} aria-labelledby={id('title')} noValidate>
      <h2 id={id('title')} className="reports-filters-title">
        {t('filters.title')}
      </h2>
      <div className="reports-filter-grid">
        <div className="reports-field">
          <label htmlFor={id('preset')}>{t('filters.period')}</label>
          <select id={id('preset')} value={draft.preset} onChange={(e) => choosePreset(e.target.value)}>
            {PRESETS.map((p) => (
              <option key={p} value={p}>
                {t('filters.lastDays', { count: Number(p) })}
              </option>
            ))}
            <option value="custom">{t('filters.custom')}</option>
          </select>
        </div>
        <div className="reports-field">
          <label htmlFor={id('from')}>{t('filters.from')}</label>
          <input
            ref={from}
            id={id('from')}
            type="date"
            value={draft.inicio}
            max={draft.fim || undefined}
            required
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? id('error') : undefined}
            onChange={(e) => setDate('inicio', e.target.value)}
          />
        </div>
        <div className="reports-field">
          <label htmlFor={id('to')}>{t('filters.to')}</label>
          <input id={id('to')} type="date" value={draft.fim} min={draft.inicio || undefined} required aria-invalid={invalid || undefined} onChange={(e) => setDate('fim', e.target.value)} />
        </div>
        <div className="reports-field">
          <label htmlFor={id('newsletter')}>{t('filters.newsletter')}</label>
          <select id={id('newsletter')} value={draft.newsletter} onChange={(e) => set('newsletter', e.target.value)}>
            <option value="">{t('filters.allNewsletters')}</option>
            {newsletters.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div className="reports-field">
          <label htmlFor={id('agent')}>{t('filters.agent')}</label>
          <select id={id('agent')} value={draft.agente} onChange={(e) => set('agente', e.target.value)} aria-describedby={id('agent-help')}>
            <option value="">{t('filters.allAgents')}</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <span id={id('agent-help')} className="reports-help muted">
            {t('filters.agentHelp')}
          </span>
        </div>
        <div className="reports-field">
          <label htmlFor={id('main')}>{t('filters.category')}</label>
          <select id={id('main')} value={draft.main} onChange={(e) => setDraft((d) => ({ ...d, main: e.target.value, issue: '' }))}>
            <option value="">{t('filters.allCategories')}</option>
            {mains.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div className="reports-field">
          <label htmlFor={id('issue')}>{t('filters.issue')}</label>
          <select id={id('issue')} value={draft.issue} onChange={(e) => set('issue', e.target.value)}>
            <option value="">{t('filters.allIssues')}</option>
            {issues.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </select>
        </div>
        <div className="reports-field">
          <label htmlFor={id('status')}>{t('filters.status')}</label>
          <select id={id('status')} value={draft.status} onChange={(e) => set('status', e.target.value as Status | '')}>
            <option value="">{t('filters.anyStatus')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="reports-field">
          <label htmlFor={id('channel')}>{t('filters.channel')}</label>
          <select id={id('channel')} value={draft.canal} onChange={(e) => set('canal', e.target.value as Channel | '')}>
            <option value="">{t('filters.anyChannel')}</option>
            {CHANNELS.map((c) => (
              <option key={c} value={c}>
                {t(`channel.${c}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {invalid ? (
        <p id={id('error')} className="error reports-filter-error" role="alert">
          {t('filters.badPeriod')}
        </p>
      ) : null}
      {options.failure ? <p className="muted">{t('filters.optionsFailed')}</p> : null}
      {/* What the reports show now (the form is a draft until applied); announced when it changes. */}
      <p className="reports-applied" role="status" data-testid="filters-applied">
        {t('filters.showing', { filters: describe(applied, t, i18n.language) })}
      </p>
      <div className="row reports-filter-actions">
        <button type="submit">{t('filters.apply')}</button>
        <button type="button" className="secondary" onClick={clear}>
          {t('filters.clear')}
        </button>
      </div>
    </form>
  );
}
