/**
 * /staff/reports (support.manager): the support reports as charts and tables, under one filter
 * bar (period, newsletter, agent, category and issue, status; kept in the address), each with its
 * cache state and a Refresh (computed again), the tabular ones with a CSV download. The page's
 * chunk (with Chart.js) is loaded only when the section is opened.
 */
import './reports.css';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../ui';
import { RefreshAllContext, useReport, type ReportFilters } from './api';
import { FilterBar } from './FilterBar';
import { filtersFrom, paramsOf, type Filters } from './filters';
import { AgentsPanel, CategoriesPanel, CohortsPanel, ComparisonPanel, DashboardPanel, DetailedPanel, DistributionPanel, ResolutionPanel, SeriesPanel, SummaryPanel } from './panels';
import { NS } from './parts';

/** The page's contents, in order: each a panel's anchor. */
const CONTENTS = [
  ['reports-now', 'now.title'],
  ['reports-summary', 'summary.title'],
  ['reports-comparison', 'comparison.title'],
  ['reports-series', 'series.title'],
  ['reports-resolution', 'resolution.title'],
  ['reports-categories', 'categories.title'],
  ['reports-distribution', 'distribution.title'],
  ['reports-cohorts', 'cohorts.title'],
  ['reports-agents', 'agents.title'],
  ['reports-detailed', 'detailed.title'],
] as const;

export default function ReportsPage() {
  const [refreshAll, setRefreshAll] = useState(0);
  return (
    <RefreshAllContext.Provider value={refreshAll}>
      <Reports onRefreshAll={() => setRefreshAll((n) => n + 1)} />
    </RefreshAllContext.Provider>
  );
}

function Reports({ onRefreshAll }: { onRefreshAll: () => void }) {
  const { t } = useTranslation(NS);
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const filters = useMemo(() => filtersFrom(new URLSearchParams(search)), [search]);
  const options = useReport<ReportFilters>('/filtros');

  // The same filters again change nothing (the form's status line says what is shown).
  const apply = (f: Filters) => {
    const next = paramsOf(f);
    if (next.toString() !== search) setParams(next);
  };

  return (
    <>
      <PageHeader
        title={t('title')}
        lead={t('lead')}
        actions={
          <button type="button" className="secondary" onClick={onRefreshAll}>
            {t('cache.refreshAll')}
          </button>
        }
      />
      <FilterBar applied={filters} options={options} onApply={apply} />
      <nav className="reports-contents" aria-label={t('contents')}>
        <ul>
          {CONTENTS.map(([id, key]) => (
            <li key={id}>
              <a href={`#${id}`}>{t(key)}</a>
            </li>
          ))}
        </ul>
      </nav>
      <DashboardPanel filters={filters} />
      <SummaryPanel filters={filters} />
      <ComparisonPanel filters={filters} />
      <SeriesPanel filters={filters} />
      <ResolutionPanel filters={filters} />
      <CategoriesPanel filters={filters} />
      <DistributionPanel filters={filters} />
      <CohortsPanel filters={filters} />
      <AgentsPanel filters={filters} />
      {/* A new set of filters starts the list on its first page. */}
      <DetailedPanel key={search} filters={filters} />
    </>
  );
}
