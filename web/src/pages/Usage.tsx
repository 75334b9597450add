import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, Tooltip } from 'chart.js';
import { Bar } from 'react-chartjs-2';
import { useTranslation } from 'react-i18next';
import type { Usage } from '../api';
import { formatDate, formatNumber } from '../i18n';
import { Failure, Loading, TableBox, useResource } from './common';

ChartJS.register(CategoryScale, LinearScale, BarElement, Tooltip, Legend);

/** Colour-blind-safe palette (Okabe–Ito), one colour per key. */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export function UsagePage() {
  const { t, i18n } = useTranslation();
  const usage = useResource<Usage>('/api/account/usage');
  if (usage.error) return <Failure message={usage.error} />;
  const u = usage.data;
  if (!u) return <Loading />;
  const lng = i18n.language;
  const keyIds = [...new Set([...u.keys.map((k) => k.id), ...u.days.flatMap((d) => Object.keys(d.perKey))])];
  const keyName = (id: string) => {
    const k = u.keys.find((x) => x.id === id);
    return k ? `${k.name} (${k.prefix}…)` : id.slice(0, 8);
  };
  const pct = u.month.limit ? Math.min(100, Math.round((u.month.used / u.month.limit) * 100)) : 0;
  return (
    <>
      <h1>{t('usage.title')}</h1>
      <section className="card" aria-labelledby="month">
        <h2 id="month">{t('usage.month', { month: u.month.month })}</h2>
        <p data-testid="month-used">
          {u.month.limit === null
            ? t('usage.unlimited', { used: formatNumber(u.month.used, lng) })
            : t('usage.used', { used: formatNumber(u.month.used, lng), limit: formatNumber(u.month.limit, lng) })}
        </p>
        {u.month.limit !== null ? <progress max={100} value={pct} aria-label={`${pct}%`} /> : null}
        <p className="muted">{t('usage.resets', { date: formatDate(u.month.resetsAt, lng) })}</p>
      </section>
      <section className="card" aria-labelledby="per-day">
        <h2 id="per-day">{t('usage.perDay')}</h2>
        <div className="chart">
          <Bar
            aria-label={t('usage.chartLabel')}
            role="img"
            options={{ responsive: true, maintainAspectRatio: false, animation: false, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { position: 'bottom' } } }}
            data={{
              labels: u.days.map((d) => d.date.slice(8)),
              datasets: keyIds.map((id, i) => ({ label: keyName(id), data: u.days.map((d) => d.perKey[id] ?? 0), backgroundColor: COLOURS[i % COLOURS.length] })),
            }}
          />
        </div>
        <details>
          <summary>{t('usage.table')}</summary>
          <TableBox label={t('usage.table')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('usage.day')}</th>
                  <th scope="col">{t('usage.total')}</th>
                </tr>
              </thead>
              <tbody>
                {u.days.map((d) => (
                  <tr key={d.date}>
                    <td>{formatDate(d.date, lng)}</td>
                    <td data-testid={`day-${d.date}`}>{formatNumber(d.total, lng)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableBox>
        </details>
      </section>
      <section className="card" aria-labelledby="headroom">
        <h2 id="headroom">{t('usage.headroom')}</h2>
        <p>{t('usage.perMinute', { limit: formatNumber(u.minute.limit, lng) })}</p>
        <p data-testid="minute-left">
          {t('usage.remaining')}: {formatNumber(u.minute.remaining, lng)} / {formatNumber(u.minute.limit, lng)}
        </p>
        <p data-testid="sandbox-used">{t('usage.sandbox', { used: formatNumber(u.sandbox.used, lng), limit: formatNumber(u.sandbox.limit, lng) })}</p>
        <p className="muted" data-testid="active-keys">
          {u.keys.length === 0 ? t('usage.noKeys') : t('usage.activeKeys', { count: u.keys.length, limit: formatNumber(u.activeKeysLimit, lng) })}
        </p>
      </section>
    </>
  );
}
