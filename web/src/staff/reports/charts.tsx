/**
 * The reports' charts (Chart.js through react-chartjs-2, as the dashboard's usage page): a canvas
 * named for screen readers (`role="img"` and an `aria-label` saying what it shows and that the
 * numbers are in the table below), in a box whose height a class sets (the CSP refuses inline
 * styles). Colours are Okabe–Ito's, safe for colour-blind readers; every chart has a legend or a
 * single series, and its numbers are also written in a table.
 */
import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, LineElement, PointElement, Tooltip, type ChartData, type ChartOptions, type Scale } from 'chart.js';
import { useTranslation } from 'react-i18next';
import { Bar, Line } from 'react-chartjs-2';

ChartJS.register(CategoryScale, LinearScale, BarElement, LineElement, PointElement, Tooltip, Legend);

/** Okabe–Ito: blue, orange, green, purple, sky blue, vermilion, yellow, black. */
export const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'] as const;
/** One colour per status, the same on every chart. */
export const STATUS_COLOURS = { open: '#0072B2', in_progress: '#E69F00', resolved: '#009E73', closed: '#CC79A7' } as const;

/** A chart's height by how many rows a horizontal bar chart has (reports.css `.reports-chart.rows-*`). */
export function heightClass(rows: number): string {
  if (rows <= 2) return 'rows-2';
  if (rows <= 4) return 'rows-4';
  if (rows <= 8) return 'rows-8';
  if (rows <= 14) return 'rows-14';
  return 'rows-20';
}

/** A label cut to `max` characters (a multi-line label line by line). */
function shorten(label: string | string[], max: number): string | string[] {
  const cut = (s: string) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
  return Array.isArray(label) ? label.map(cut) : cut(label);
}

const chartLocale = (lng: string) => (lng === 'pt' ? 'pt-BR' : 'en-GB');

function base(lng: string, legend: boolean): ChartOptions<'bar' | 'line'> {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    locale: chartLocale(lng),
    plugins: { legend: { display: legend, position: 'bottom' } },
  };
}

export function BarChart({
  label,
  data,
  horizontal = false,
  stacked = false,
  legend = true,
  unit,
  className,
  testId,
}: {
  label: string;
  data: ChartData<'bar', (number | null)[], string | string[]>;
  horizontal?: boolean;
  stacked?: boolean;
  legend?: boolean;
  /** The value axis's title (hours…). */
  unit?: string;
  className?: string;
  testId?: string;
}) {
  const { i18n } = useTranslation();
  const value = { stacked, beginAtZero: true, ticks: { precision: unit ? undefined : 0 }, ...(unit ? { title: { display: true, text: unit } } : {}) };
  // A horizontal chart's labels (categories, agents) are shortened to what its width allows; the
  // tooltip and the table have them whole.
  const category = {
    stacked,
    ticks: {
      autoSkip: !horizontal,
      ...(horizontal
        ? {
            callback(this: Scale, value: string | number) {
              const label = this.getLabelForValue(Number(value));
              return shorten(label, this.chart.width < 520 ? 16 : 36);
            },
          }
        : {}),
    },
  };
  const options: ChartOptions<'bar'> = {
    ...(base(i18n.language, legend) as ChartOptions<'bar'>),
    indexAxis: horizontal ? 'y' : 'x',
    // One or two rows are drawn as bars, not as blocks.
    datasets: { bar: { maxBarThickness: 28 } },
    scales: horizontal ? { x: value, y: category } : { x: category, y: value },
  };
  return (
    <div className={`chart reports-chart ${className ?? ''}`} data-testid={testId}>
      <Bar role="img" aria-label={label} options={options} data={data} />
    </div>
  );
}

export function LineChart({ label, data, testId }: { label: string; data: ChartData<'line', number[], string>; testId?: string }) {
  const { i18n } = useTranslation();
  const many = (data.labels?.length ?? 0) > 60;
  const options: ChartOptions<'line'> = {
    ...(base(i18n.language, true) as ChartOptions<'line'>),
    interaction: { mode: 'index', intersect: false },
    elements: { point: { radius: many ? 0 : 3 }, line: { tension: 0 } },
    scales: { x: { ticks: { autoSkip: true, maxRotation: 0 } }, y: { beginAtZero: true, ticks: { precision: 0 } } },
  };
  return (
    <div className="chart reports-chart" data-testid={testId}>
      <Line role="img" aria-label={label} options={options} data={data} />
    </div>
  );
}
