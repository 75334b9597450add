/**
 * The account's webhook endpoints (issue 40, part 5): the same endpoints as the News API's
 * /api/webhooks/endpoints, through the dashboard's API. The signing secret is shown once, after a
 * registration or a rotation, and never again; deleting asks first.
 *
 * Structure: Webhooks (the page: results, the secret shown once, the form, the list, the
 * verification snippet) → EndpointCard (one endpoint: EndpointSummary, EndpointActions, and its
 * deliveries' slot, `deliveries`, filled with EndpointDeliveries: ./WebhookDeliveries.tsx, the
 * delivery log, replay and test event, announcing through this page's live region).
 */
import { useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { SECTORS, TOPICS } from '../../../models/news/article.rules';
import { EVENT_TYPES, WEBHOOK_LIMITS } from '../../../models/events/webhook.rules';
import { api, ApiError, fieldIssues, type WebhookEndpoint, type WebhookEndpointWithSecret } from '../api';
import { Failure, Loading, useResource } from './common';
import { EndpointDeliveries } from './WebhookDeliveries';

/** A moment with its time (the secret's overlap is a matter of hours), in the browser's zone. */
const formatMoment = (iso: string, lng: string): string =>
  new Intl.DateTimeFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

const BASE = '/api/account/webhooks/endpoints';

type Revealed = { endpoint: WebhookEndpointWithSecret; kind: 'created' | 'rotated' };
type FieldIssue = { path: string; message: string };

/** The signing secret, shown this once, with copy; focused when it appears. */
function SecretShownOnce({ revealed, onDone }: { revealed: Revealed; onDone(): void }) {
  const { t, i18n } = useTranslation();
  const [copied, setCopied] = useState<boolean | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [revealed]);
  const { endpoint, kind } = revealed;
  return (
    <section className="notice" aria-labelledby="secret-once">
      <h2 id="secret-once" tabIndex={-1} ref={heading}>
        {t(kind === 'created' ? 'hooks.secret.created' : 'hooks.secret.rotated')}
      </h2>
      <p>
        {t('hooks.secret.for')} <code>{endpoint.url}</code>
      </p>
      <p>
        <strong>{t('hooks.secret.once')}</strong>
      </p>
      {kind === 'rotated' && endpoint.previousSecretExpiresAt ? <p>{t('hooks.secret.overlap', { date: formatMoment(endpoint.previousSecretExpiresAt, i18n.language) })}</p> : null}
      <div className="secret">
        <code data-testid="webhook-secret">{endpoint.secret}</code>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(endpoint.secret).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {t('hooks.secret.copy')}
        </button>
        <span role="status" className={copied === false ? 'error' : 'ok'}>
          {copied === true ? t('hooks.secret.copied') : copied === false ? t('hooks.secret.copyFailed') : ''}
        </span>
      </div>
      <button type="button" className="secondary" onClick={onDone}>
        {t('hooks.secret.stored')}
      </button>
    </section>
  );
}

/** Comma- or space-separated tickers, upper-cased, each once. */
const parseTickers = (text: string): string[] => [...new Set(text.split(/[\s,;]+/).map((s) => s.trim().toUpperCase()).filter(Boolean))];

function Checkboxes({ legend, options, chosen, set, label }: { legend: string; options: readonly string[]; chosen: string[]; set(next: string[]): void; label(o: string): ReactNode }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="codes">
        {options.map((o) => (
          <label key={o} className="check">
            <input type="checkbox" checked={chosen.includes(o)} onChange={(e) => set(e.target.checked ? [...chosen, o] : chosen.filter((x) => x !== o))} />
            {label(o)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Registers an endpoint; the server's refusal is shown with its fields. */
function AddEndpoint({ onCreated }: { onCreated(e: WebhookEndpointWithSecret): void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState('');
  const [eventTypes, setEventTypes] = useState<string[]>(['article.breaking']);
  const [sectors, setSectors] = useState<string[]>([]);
  const [topics, setTopics] = useState<string[]>([]);
  const [tickers, setTickers] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<{ message: string; fields: FieldIssue[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const errorBox = useRef<HTMLDivElement>(null);
  // A refusal is read out (role alert) and focused, so a keyboard user lands on it.
  useEffect(() => {
    if (error) errorBox.current?.focus();
  }, [error]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const filters = {
      ...(sectors.length ? { sectors } : {}),
      ...(topics.length ? { topics } : {}),
      ...(parseTickers(tickers).length ? { tickers: parseTickers(tickers) } : {}),
    };
    try {
      const created = await api<WebhookEndpointWithSecret>(BASE, { method: 'POST', body: { url: url.trim(), eventTypes, filters, ...(description.trim() ? { description: description.trim() } : {}) } });
      setUrl('');
      setSectors([]);
      setTopics([]);
      setTickers('');
      setDescription('');
      onCreated(created);
    } catch (err) {
      setError({ message: (err as Error).message, fields: err instanceof ApiError ? fieldIssues(err.details) : [] });
    } finally {
      setBusy(false);
    }
  };

  const invalid = (field: string) => (error?.fields.some((f) => f.path === `body.${field}` || f.path.startsWith(`body.${field}.`)) ? true : undefined);
  const fieldName = (path: string) => {
    const field = path.replace(/^body\.?/, '').split('.')[0] ?? '';
    return ['url', 'eventTypes', 'filters', 'description'].includes(field) ? t(`hooks.form.fields.${field}`) : t('hooks.form.fields.request');
  };

  return (
    <form onSubmit={submit} className="card grid-form" aria-labelledby="add-endpoint">
      <h2 id="add-endpoint">{t('hooks.form.title')}</h2>
      {error ? (
        <div role="alert" className="error" tabIndex={-1} ref={errorBox} data-testid="endpoint-error">
          <p>{error.message}</p>
          {error.fields.some((f) => !error.message.includes(f.message)) ? (
            <ul>
              {error.fields.filter((f) => !error.message.includes(f.message)).map((f, i) => (
                <li key={i}>
                  {fieldName(f.path)}: {f.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <label htmlFor="hook-url">{t('hooks.form.url')}</label>
      <div>
        <input
          id="hook-url"
          type="url"
          required
          inputMode="url"
          autoComplete="url"
          placeholder="https://"
          maxLength={WEBHOOK_LIMITS.urlLength}
          aria-describedby="hook-url-hint"
          aria-invalid={invalid('url')}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          className="wide"
        />
        <p id="hook-url-hint" className="muted small-text">
          {t('hooks.form.urlHint')}
        </p>
      </div>
      <fieldset>
        <legend>{t('hooks.form.eventTypes')}</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="check">
            <input type="checkbox" checked={eventTypes.includes(type)} onChange={(e) => setEventTypes(e.target.checked ? [...eventTypes, type] : eventTypes.filter((x) => x !== type))} />
            <span>
              {t(`hooks.events.${type}`)} <code className="muted">{type}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <details className="filters">
        <summary>{t('hooks.form.filters')}</summary>
        <p className="muted">{t('hooks.form.filtersHint')}</p>
        <Checkboxes legend={t('hooks.form.sectors')} options={SECTORS} chosen={sectors} set={setSectors} label={(c) => `${t(`codes.${c}`, { defaultValue: c })} (${c})`} />
        <Checkboxes legend={t('hooks.form.topics')} options={TOPICS} chosen={topics} set={setTopics} label={(c) => `${t(`codes.${c}`, { defaultValue: c })} (${c})`} />
        <div className="stacked">
          <label htmlFor="hook-tickers">{t('hooks.form.tickers')}</label>
          <input id="hook-tickers" aria-describedby="hook-tickers-hint" value={tickers} onChange={(e) => setTickers(e.target.value)} autoCapitalize="characters" spellCheck={false} />
          <p id="hook-tickers-hint" className="muted small-text">
            {t('hooks.form.tickersHint')}
          </p>
        </div>
      </details>
      <label htmlFor="hook-description">{t('hooks.form.description')}</label>
      <input id="hook-description" aria-invalid={invalid('description')} value={description} onChange={(e) => setDescription(e.target.value)} />
      <button type="submit" disabled={busy || eventTypes.length === 0}>
        {t('hooks.form.submit')}
      </button>
    </form>
  );
}

/** What the endpoint hears about, in words. */
function FiltersSummary({ filters }: { filters: WebhookEndpoint['filters'] }) {
  const { t } = useTranslation();
  const name = (c: string) => t(`codes.${c}`, { defaultValue: c });
  const parts = [
    filters.sectors?.length ? `${t('hooks.form.sectors')}: ${filters.sectors.map(name).join(', ')}` : null,
    filters.topics?.length ? `${t('hooks.form.topics')}: ${filters.topics.map(name).join(', ')}` : null,
    filters.tickers?.length ? `${t('hooks.form.tickers')}: ${filters.tickers.join(', ')}` : null,
    filters.entityIds?.length ? t('hooks.list.companies', { count: filters.entityIds.length }) : null,
  ].filter(Boolean);
  return <>{parts.length ? parts.join(' · ') : t('hooks.list.everyArticle')}</>;
}

/** Enabled, or disabled and why (and what to do about it). */
function StateOf({ e }: { e: WebhookEndpoint }) {
  const { t, i18n } = useTranslation();
  if (e.state === 'enabled') {
    return (
      <>
        <span className="badge live">{t('hooks.state.enabled')}</span>
        {e.failingSince ? <p className="warn">{t('hooks.state.failingSince', { date: formatMoment(e.failingSince, i18n.language) })}</p> : null}
      </>
    );
  }
  return (
    <>
      <span className="badge off">{t('hooks.state.disabled')}</span>
      <p className={e.disabledReason === 'owner' ? 'muted' : 'warn'}>{t(`hooks.state.reason.${e.disabledReason ?? 'owner'}`)}</p>
    </>
  );
}

function EndpointSummary({ e }: { e: WebhookEndpoint }) {
  const { t, i18n } = useTranslation();
  return (
    <dl className="facts">
      <dt>{t('hooks.list.state')}</dt>
      <dd>
        <StateOf e={e} />
      </dd>
      <dt>{t('hooks.form.eventTypes')}</dt>
      <dd>{e.eventTypes.map((type) => t(`hooks.events.${type}`)).join(', ')}</dd>
      <dt>{t('hooks.list.filters')}</dt>
      <dd>
        <FiltersSummary filters={e.filters} />
      </dd>
      <dt>{t('hooks.list.secret')}</dt>
      <dd>
        {t('hooks.list.secretSince', { date: formatMoment(e.secretCreatedAt, i18n.language) })}
        {e.previousSecretExpiresAt && Date.parse(e.previousSecretExpiresAt) > Date.now() ? ` ${t('hooks.list.previousUntil', { date: formatMoment(e.previousSecretExpiresAt, i18n.language) })}` : null}
      </dd>
    </dl>
  );
}

type Act = (e: WebhookEndpoint, button: HTMLButtonElement) => Promise<void>;

function EndpointActions({ e, busy, onToggle, onRotate, onDelete }: { e: WebhookEndpoint; busy: boolean; onToggle: Act; onRotate: Act; onDelete: Act }) {
  const { t } = useTranslation();
  const label = e.description ?? e.url;
  return (
    <div className="row">
      <button type="button" className="secondary" aria-disabled={busy || undefined} aria-label={t(e.state === 'enabled' ? 'hooks.actions.disableLabel' : 'hooks.actions.enableLabel', { name: label })} onClick={(ev) => void onToggle(e, ev.currentTarget)}>
        {t(e.state === 'enabled' ? 'hooks.actions.disable' : 'hooks.actions.enable')}
      </button>
      <button type="button" className="secondary" aria-disabled={busy || undefined} aria-label={t('hooks.actions.rotateLabel', { name: label })} onClick={(ev) => void onRotate(e, ev.currentTarget)}>
        {t('hooks.actions.rotate')}
      </button>
      <button type="button" className="danger" aria-disabled={busy || undefined} aria-label={t('hooks.actions.deleteLabel', { name: label })} onClick={(ev) => void onDelete(e, ev.currentTarget)}>
        {t('hooks.actions.delete')}
      </button>
    </div>
  );
}

/** One endpoint. `deliveries` draws its delivery log, replay and test event (./WebhookDeliveries.tsx). */
function EndpointCard({ e, busy, onToggle, onRotate, onDelete, deliveries }: { e: WebhookEndpoint; busy: boolean; onToggle: Act; onRotate: Act; onDelete: Act; deliveries?: ((e: WebhookEndpoint) => ReactNode) | undefined }) {
  const headingId = `endpoint-${e.id}`;
  return (
    <li className="card endpoint" data-endpoint-id={e.id}>
      <h3 id={headingId} tabIndex={-1}>
        {e.description ? <span className="endpoint-name">{e.description}</span> : null}
        <code className="endpoint-url">{e.url}</code>
      </h3>
      <EndpointSummary e={e} />
      <EndpointActions e={e} busy={busy} onToggle={onToggle} onRotate={onRotate} onDelete={onDelete} />
      {deliveries ? <div className="deliveries">{deliveries(e)}</div> : null}
    </li>
  );
}

/** A confirmation in a modal dialog (the platform's <dialog>: focus kept inside, Escape cancels). */
function useConfirm() {
  const dialog = useRef<HTMLDialogElement>(null);
  const [asked, setAsked] = useState<{ title: string; text: string; confirm: string; danger: boolean }>({ title: '', text: '', confirm: '', danger: false });
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const ask = (q: typeof asked) =>
    new Promise<boolean>((resolve) => {
      setAsked(q);
      resolver.current = resolve;
      dialog.current?.showModal();
    });
  const close = (ok: boolean) => {
    dialog.current?.close();
    resolver.current?.(ok);
    resolver.current = null;
  };
  return { ask, close, dialog, asked };
}

function ConfirmDialog({ confirm }: { confirm: ReturnType<typeof useConfirm> }) {
  const { t } = useTranslation();
  return (
    <dialog ref={confirm.dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text" onCancel={() => confirm.close(false)}>
      <h2 id="confirm-title">{confirm.asked.title}</h2>
      <p id="confirm-text">{confirm.asked.text}</p>
      <div className="row">
        <button type="button" className="secondary" onClick={() => confirm.close(false)}>
          {t('hooks.actions.cancel')}
        </button>
        <button type="button" className={confirm.asked.danger ? 'danger' : undefined} onClick={() => confirm.close(true)}>
          {confirm.asked.confirm}
        </button>
      </div>
    </dialog>
  );
}

const SNIPPET = `import { Webhook } from 'standardwebhooks';

// The endpoint's signing secret, from your secret store.
const wh = new Webhook(process.env.WEBHOOK_SECRET);

// In your handler, with the raw body exactly as received:
const event = wh.verify(rawBody, {
  'webhook-id': req.headers['webhook-id'],
  'webhook-timestamp': req.headers['webhook-timestamp'],
  'webhook-signature': req.headers['webhook-signature'],
}); // throws if the signature or the timestamp is wrong`;

function VerifySnippet() {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="verify">
      <h2 id="verify">{t('hooks.verify.title')}</h2>
      <p>{t('hooks.verify.lead')}</p>
      <pre className="snippet" role="region" tabIndex={0} aria-label={t('hooks.verify.codeLabel')}>
        <code>{`npm install standardwebhooks\n\n${SNIPPET}`}</code>
      </pre>
      <p className="muted">{t('hooks.verify.rotation')}</p>
    </section>
  );
}

const focusLater = (el: RefObject<HTMLElement | null> | HTMLElement | null | undefined) =>
  setTimeout(() => (el && 'current' in el ? el.current : el)?.focus(), 0);

export function WebhooksPage() {
  const { t } = useTranslation();
  const list = useResource<WebhookEndpoint[]>(BASE);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [status, setStatus] = useState<{ key: string; url?: string; values?: Record<string, string | number> } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const confirm = useConfirm();

  const act = async (e: WebhookEndpoint, work: () => Promise<void>) => {
    // Buttons stay focusable while busy (a disabled one would drop the focus): a second press waits.
    if (busyId !== null) return;
    setBusyId(e.id);
    setError(null);
    setStatus(null);
    try {
      await work();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusyId(null);
    }
  };

  const onToggle: Act = (e, button) =>
    act(e, async () => {
      const next = e.state === 'enabled' ? 'disabled' : 'enabled';
      await api<WebhookEndpoint>(`${BASE}/${e.id}`, { method: 'PATCH', body: { state: next } });
      await list.reload();
      setStatus({ key: next === 'enabled' ? 'hooks.done.enabled' : 'hooks.done.disabled', url: e.url });
      focusLater(button);
    });

  const onRotate: Act = async (e, button) => {
    const ok = await confirm.ask({ title: t('hooks.confirm.rotateTitle'), text: t('hooks.confirm.rotate', { url: e.url }), confirm: t('hooks.actions.rotate'), danger: false });
    if (!ok) return void focusLater(button);
    await act(e, async () => {
      const rotated = await api<WebhookEndpointWithSecret>(`${BASE}/${e.id}/secret/rotate`, { method: 'POST' });
      setRevealed({ endpoint: rotated, kind: 'rotated' });
      await list.reload();
    });
  };

  const onDelete: Act = async (e, button) => {
    const ok = await confirm.ask({ title: t('hooks.confirm.deleteTitle'), text: t('hooks.confirm.delete', { url: e.url }), confirm: t('hooks.actions.delete'), danger: true });
    if (!ok) return void focusLater(button);
    await act(e, async () => {
      await api(`${BASE}/${e.id}`, { method: 'DELETE' });
      if (revealed?.endpoint.id === e.id) setRevealed(null);
      await list.reload();
      setStatus({ key: 'hooks.done.deleted', url: e.url });
      focusLater(listHeading);
    });
  };

  return (
    <>
      <h1>{t('hooks.title')}</h1>
      <p>{t('hooks.lead')}</p>
      <p className="ok" role="status" aria-live="polite" data-testid="webhooks-status">
        {status ? t(status.key, { url: status.url, ...status.values }) : null}
      </p>
      <Failure message={list.error ?? error} />
      {revealed ? (
        <SecretShownOnce
          revealed={revealed}
          onDone={() => {
            const id = revealed.endpoint.id;
            setRevealed(null);
            focusLater(document.getElementById(`endpoint-${id}`) ?? listHeading.current);
          }}
        />
      ) : null}
      <AddEndpoint
        onCreated={(created) => {
          setRevealed({ endpoint: created, kind: 'created' });
          setStatus(null);
          void list.reload();
        }}
      />
      <h2 id="endpoints" tabIndex={-1} ref={listHeading}>
        {t('hooks.list.title')}
      </h2>
      {list.data === undefined ? (
        <Loading />
      ) : list.data.length === 0 ? (
        <p>{t('hooks.list.none')}</p>
      ) : (
        <ul className="endpoints" aria-labelledby="endpoints">
          {list.data.map((e) => (
            <EndpointCard
              key={e.id}
              e={e}
              busy={busyId === e.id}
              onToggle={onToggle}
              onRotate={onRotate}
              onDelete={onDelete}
              deliveries={(x) => (
                <EndpointDeliveries
                  e={x}
                  announce={(key, values) => {
                    setError(null);
                    setStatus({ key, ...(values ? { values } : {}) });
                  }}
                  fail={(message) => {
                    setStatus(null);
                    setError(message);
                  }}
                />
              )}
            />
          ))}
        </ul>
      )}
      <VerifySnippet />
      <ConfirmDialog confirm={confirm} />
    </>
  );
}
