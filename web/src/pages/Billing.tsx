import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, type Billing } from '../api';
import { formatDate, formatNumber } from '../i18n';
import { useSession } from '../session';
import { Failure, Loading, useResource } from './common';

export function BillingPage() {
  const { t, i18n } = useTranslation();
  const billing = useResource<Billing>('/api/account/billing');
  const { refresh } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [params] = useSearchParams();
  const lng = i18n.language;

  const go = async (path: string, body?: unknown) => {
    setError(null);
    try {
      const { url } = await api<{ url: string }>(path, { method: 'POST', ...(body ? { body } : {}) });
      window.location.assign(url);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  if (billing.error) return <Failure message={billing.error} />;
  const b = billing.data;
  if (!b) return <Loading />;
  const s = b.subscription;
  const current = b.plans.find((p) => p.plan === s.plan);
  return (
    <>
      <h1>{t('billing.title')}</h1>
      <Failure message={error} />
      {params.has('checkout') ? (
        <p role="status" className="ok">
          {t('billing.returned')}{' '}
          <button type="button" className="link" onClick={() => void Promise.all([billing.reload(), refresh()])}>
            {t('app.refresh')}
          </button>
        </p>
      ) : null}
      <section className="card" aria-labelledby="current">
        <h2 id="current" data-testid="current-plan">
          {t('billing.current', { plan: current?.name ?? s.plan })}
        </h2>
        {s.status === 'none' ? <p>{t('billing.none')}</p> : <p>{t('billing.status', { status: s.status })}</p>}
        {s.status === 'past_due' && s.graceEndsAt ? (
          <p role="alert" className="warn">
            {t('billing.pastDue', { date: formatDate(s.graceEndsAt, lng) })}
          </p>
        ) : null}
        {s.cancelAtPeriodEnd && s.currentPeriodEnd ? <p className="warn">{t('billing.cancelAtEnd', { date: formatDate(s.currentPeriodEnd, lng) })}</p> : null}
        {!s.cancelAtPeriodEnd && s.currentPeriodEnd && s.status !== 'none' ? <p className="muted">{t('billing.renews', { date: formatDate(s.currentPeriodEnd, lng) })}</p> : null}
        {!b.billingConfigured ? <p>{t('billing.notConfigured')}</p> : null}
        {s.customerId && b.billingConfigured ? (
          <button type="button" className="secondary" onClick={() => void go('/api/account/billing/portal')}>
            {t('billing.portal')}
          </button>
        ) : null}
      </section>
      <div className="plans">
        {b.plans.map((p) => (
          <section key={p.plan} className={`card plan${p.plan === s.plan ? ' current' : ''}`} aria-labelledby={`plan-${p.plan}`}>
            <h2 id={`plan-${p.plan}`}>{p.name}</h2>
            <p className="price">{t('billing.price', { price: formatNumber(p.monthlyPriceBRL, lng) })}</p>
            <ul>
              <li>{t('billing.perMinute', { n: formatNumber(p.perMinute, lng) })}</li>
              <li>{p.perMonth === null ? t('billing.unlimited') : t('billing.perMonth', { n: formatNumber(p.perMonth, lng) })}</li>
              <li>
                {t('billing.modules')}: {p.modules.join(', ')}
              </li>
            </ul>
            {p.plan === s.plan ? (
              <p className="badge live">{t('billing.currentPlan')}</p>
            ) : p.plan !== 'starter' && b.billingConfigured && (s.status === 'none' || s.status === 'canceled') ? (
              <button type="button" onClick={() => void go('/api/account/billing/checkout', { plan: p.plan })}>
                {t('billing.upgrade', { plan: p.name })}
              </button>
            ) : null}
          </section>
        ))}
      </div>
    </>
  );
}
