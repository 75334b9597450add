/**
 * The usage's bar chart (Chart.js through react-chartjs-2, as the dashboard's usage page): one bar
 * per user and model of the page, prompt and completion tokens stacked, the largest first. A canvas
 * named for screen readers (`role="img"` and an `aria-label` saying that the numbers are in the
 * table below), in a box whose height a class sets (the CSP refuses inline styles). Colours are
 * Okabe–Ito's (blue, orange), safe for colour-blind readers, with a legend.
 */
import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, Tooltip, type ChartData, type ChartOptions } from 'chart.js';
import { useTranslation } from 'react-i18next';
import { Bar } from 'react-chartjs-2';
import type { UsageByUser } from './api';
import { NS } from './shared';

ChartJS.register(CategoryScale, LinearScale, BarElement, Tooltip, Legend);

const BLUE = '#0072B2';
const ORANGE = '#E69F00';

/** A user id short enough for an axis label (the table has it whole): shorter on a phone. */
const shortUser = (id: string, max: number) => (id.length > max ? `${id.slice(0, max - 1)}…` : id);
const narrow = () => typeof window !== 'undefined' && window.matchMedia('(max-width: 720px)').matches;

/** The chart's height by how many bars it has (ai.css `.ai-chart.rows-*`). */
function heightClass(rows: number): string {
  if (rows <= 4) return 'rows-4';
  if (rows <= 8) return 'rows-8';
  if (rows <= 14) return 'rows-14';
  return 'rows-20';
}

export function UsageChart({ rows, label }: { rows: UsageByUser['rows']; label: string }) {
  const { t, i18n } = useTranslation(NS);
  const data: ChartData<'bar', number[], string[]> = {
    labels: rows.map((r) => [shortUser(r.userId, narrow() ? 11 : 16), r.model]),
    datasets: [
      { label: t('usage.prompt'), data: rows.map((r) => r.promptTokens), backgroundColor: BLUE },
      { label: t('usage.completion'), data: rows.map((r) => r.completionTokens), backgroundColor: ORANGE },
    ],
  };
  const options: ChartOptions<'bar'> = {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    locale: i18n.language === 'pt' ? 'pt-BR' : 'en-GB',
    indexAxis: 'y',
    plugins: { legend: { display: true, position: 'bottom' } },
    scales: {
      x: { stacked: true, beginAtZero: true, ticks: { precision: 0, maxRotation: 0, autoSkip: true }, title: { display: true, text: t('usage.tokens') } },
      y: { stacked: true, ticks: { autoSkip: false } },
    },
  };
  return (
    <div className={`chart ai-chart ${heightClass(rows.length)}`} data-testid="ai-usage-chart">
      <Bar role="img" aria-label={label} options={options} data={data} />
    </div>
  );
}
