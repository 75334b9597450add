/**
 * One endpoint's deliveries on the Webhooks page (issue 40, part 5: "a delivery log per endpoint
 * (request, response code, duration), replay of one message, and a test event button"): drawn in
 * the endpoint's card through its `deliveries` slot. The newest attempts first, each expandable to
 * the headers sent (the signature is never kept, only how many were sent) and the first 4 KiB of
 * the answer, shown as text (React escapes it) in a bounded, scrollable monospace box; older ones
 * page in by "Load older"; "Refresh" reads the newest again. A test event and a replay are sent
 * at once by the worker: their attempts appear on a refresh. What happened is announced through
 * the page's live region (`announce`); a disabled endpoint says why it has no test or replay
 * button instead of showing dead ones.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type WebhookDeliveriesPage, type WebhookDelivery, type WebhookEndpoint } from '../api';

const BASE = '/api/account/webhooks/endpoints';
/** Attempts per page: the newest few, more by "Load older". */
const PAGE = 10;

const formatAt = (iso: string, lng: string): string =>
  new Intl.DateTimeFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));

const succeeded = (d: WebhookDelivery) => d.status !== null && d.status >= 200 && d.status < 300;

export interface DeliveriesProps {
  e: WebhookEndpoint;
  /** Says something in the page's live region (an i18n key and its values). */
  announce(key: string, values?: Record<string, string | number>): void;
  /** Shows an error in the page's alert. */
  fail(message: string): void;
}

function Outcome({ d }: { d: WebhookDelivery }) {
  const { t } = useTranslation();
  if (d.status !== null) return <span className={`badge ${succeeded(d) ? 'live' : 'fail'}`}>{t('hooks.deliveries.status', { status: d.status })}</span>;
  return <span className="badge fail">{t(`hooks.deliveries.errors.${d.error ?? 'unknown'}`, { defaultValue: d.error ?? t('hooks.deliveries.errors.unknown') })}</span>;
}

function DeliveryItem({ d, canReplay, busy, onReplay }: { d: WebhookDelivery; canReplay: boolean; busy: boolean; onReplay(d: WebhookDelivery): void }) {
  const { t, i18n } = useTranslation();
  const headers = Object.entries(d.requestHeaders).sort(([a], [b]) => a.localeCompare(b));
  return (
    <li className="delivery" data-delivery-id={d.id}>
      <details>
        <summary>
          <span className="delivery-line">
            <time dateTime={d.at}>{formatAt(d.at, i18n.language)}</time>
            <Outcome d={d} />
            <span>{t('hooks.deliveries.attempt', { n: d.attempt })}</span>
            {d.replay ? <span className="badge test">{t('hooks.deliveries.replayed')}</span> : null}
            <span className="muted">{t('hooks.deliveries.duration', { ms: d.durationMs })}</span>
            <code className="delivery-msg">{d.msgId}</code>
          </span>
        </summary>
        <div className="delivery-details">
          <h5>{t('hooks.deliveries.requestHeaders')}</h5>
          <dl className="headers">
            {headers.map(([name, value]) => (
              <div key={name}>
                <dt>
                  <code>{name}</code>
                </dt>
                <dd>
                  <code>{value}</code>
                </dd>
              </div>
            ))}
          </dl>
          <p className="muted small-text">{t('hooks.deliveries.noSignature')}</p>
          <h5>{t('hooks.deliveries.responseBody')}</h5>
          {d.responseBody ? (
            <pre className="snippet response-body" role="region" tabIndex={0} aria-label={t('hooks.deliveries.responseBodyLabel', { id: d.msgId, n: d.attempt })}>
              <code>{d.responseBody}</code>
            </pre>
          ) : (
            <p className="muted small-text">{d.status === null ? t('hooks.deliveries.noResponse') : t('hooks.deliveries.emptyBody')}</p>
          )}
          {canReplay ? (
            <button type="button" className="secondary" aria-disabled={busy || undefined} aria-label={t('hooks.deliveries.replayLabel', { id: d.msgId })} onClick={() => onReplay(d)}>
              {t('hooks.deliveries.replay')}
            </button>
          ) : null}
        </div>
      </details>
    </li>
  );
}

export function EndpointDeliveries({ e, announce, fail }: DeliveriesProps) {
  const { t } = useTranslation();
  const [items, setItems] = useState<WebhookDelivery[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `${BASE}/${e.id}`;
  const label = e.description ?? e.url;
  const enabled = e.state === 'enabled';
  const headingId = `deliveries-${e.id}`;

  const page = useCallback((before?: string) => api<WebhookDeliveriesPage>(`${path}/deliveries?limit=${PAGE}${before ? `&before=${encodeURIComponent(before)}` : ''}`), [path]);

  useEffect(() => {
    let live = true;
    page().then(
      (p) => {
        if (!live) return;
        setItems(p.deliveries);
        setNext(p.next);
      },
      (err: Error) => live && fail(err.message),
    );
    return () => {
      live = false;
    };
    // Read once per endpoint (`fail` is the page's, stable in effect); the buttons read again.
  }, [page]);

  /** One action at a time: a second press while one runs waits (buttons stay focusable). */
  const run = async (work: () => Promise<void>) => {
    if (busy) return;
    setBusy(true);
    try {
      await work();
    } catch (err) {
      fail((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const refresh = () =>
    run(async () => {
      const p = await page();
      setItems(p.deliveries);
      setNext(p.next);
      announce('hooks.deliveries.refreshed', { count: p.deliveries.length, name: label });
    });

  const older = () =>
    run(async () => {
      if (!next) return;
      const p = await page(next);
      setItems((was) => [...(was ?? []), ...p.deliveries.filter((d) => !(was ?? []).some((w) => w.id === d.id))]);
      setNext(p.next);
      announce('hooks.deliveries.loadedOlder', { count: p.deliveries.length });
    });

  const test = () =>
    run(async () => {
      const sent = await api<{ msgId: string }>(`${path}/test`, { method: 'POST' });
      announce('hooks.deliveries.testSent', { name: label, id: sent.msgId });
    });

  const replay = (d: WebhookDelivery) =>
    run(async () => {
      await api(`${path}/messages/${d.msgId}/replay`, { method: 'POST' });
      announce('hooks.deliveries.replaySent', { id: d.msgId, name: label });
    });

  return (
    <section className="deliveries-log" aria-labelledby={headingId}>
      <h4 id={headingId}>{t('hooks.deliveries.title')}</h4>
      <div className="row actions">
        {enabled ? (
          <button type="button" aria-disabled={busy || undefined} aria-label={t('hooks.deliveries.testLabel', { name: label })} onClick={() => void test()}>
            {t('hooks.deliveries.test')}
          </button>
        ) : null}
        <button type="button" className="secondary" aria-disabled={busy || undefined} aria-label={t('hooks.deliveries.refreshLabel', { name: label })} onClick={() => void refresh()}>
          {t('hooks.deliveries.refresh')}
        </button>
      </div>
      {enabled ? <p className="muted small-text">{t('hooks.deliveries.hint')}</p> : <p className="muted small-text">{t('hooks.deliveries.needsEnabled')}</p>}
      {items === undefined ? (
        <p className="muted">{t('app.loading')}</p>
      ) : items.length === 0 ? (
        <p className="muted">{t('hooks.deliveries.none')}</p>
      ) : (
        <ul className="delivery-list" aria-labelledby={headingId}>
          {items.map((d) => (
            <DeliveryItem key={d.id} d={d} canReplay={enabled} busy={busy} onReplay={(x) => void replay(x)} />
          ))}
        </ul>
      )}
      {next ? (
        <button type="button" className="secondary" aria-disabled={busy || undefined} aria-label={t('hooks.deliveries.olderLabel', { name: label })} onClick={() => void older()}>
          {t('hooks.deliveries.older')}
        </button>
      ) : null}
    </section>
  );
}
