import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SECTORS, TOPICS } from '../../../models/news/article.rules';
import type { NotificationSettings } from '../../../models/news/preferences.rules';
import { api, type AccountPush, type EntityOption, type Preferences, type WhatsAppLink } from '../api';
import { Failure, Loading, useAction, useResource } from './common';

type Weighted = { list: 'sectors' | 'topics'; weights: 'sectorWeights' | 'topicWeights'; codes: readonly string[] };

function WeightedList({ prefs, set, spec, title }: { prefs: Preferences; set(p: Preferences): void; spec: Weighted; title: string }) {
  const { t } = useTranslation();
  const chosen = prefs[spec.list];
  return (
    <fieldset className="card">
      <legend>{title}</legend>
      <div className="codes">
        {spec.codes.map((code) => {
          const on = chosen.includes(code);
          return (
            <div key={code} className="code">
              <label className="check">
                <input
                  type="checkbox"
                  checked={on}
                  onChange={(e) => {
                    const list = e.target.checked ? [...chosen, code] : chosen.filter((c) => c !== code);
                    const weights = { ...prefs[spec.weights] };
                    if (!e.target.checked) delete weights[code];
                    set({ ...prefs, [spec.list]: list, [spec.weights]: weights });
                  }}
                />
                {t(`codes.${code}`, { defaultValue: code })} ({code})
              </label>
              {on ? (
                <input
                  type="number"
                  className="weight"
                  aria-label={t('prefs.weight', { code })}
                  min={0}
                  max={5}
                  step={0.5}
                  value={prefs[spec.weights][code] ?? 1}
                  onChange={(e) => set({ ...prefs, [spec.weights]: { ...prefs[spec.weights], [code]: Number(e.target.value) } })}
                />
              ) : null}
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}

function Companies({ prefs, set }: { prefs: Preferences; set(p: Preferences): void }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<EntityOption[]>([]);
  const [names, setNames] = useState<Record<string, string>>({});

  useEffect(() => {
    const missing = prefs.watchlistCompanies.filter((id) => !names[id]);
    if (missing.length === 0) return;
    void api<EntityOption[]>(`/api/account/entities?ids=${missing.join(',')}`).then((es) =>
      setNames((n) => ({ ...n, ...Object.fromEntries(es.map((e) => [e.id, e.ticker ? `${e.name} (${e.ticker})` : e.name])) })),
    );
  }, [prefs.watchlistCompanies, names]);

  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setFound([]);
      return;
    }
    const timer = setTimeout(() => {
      void api<EntityOption[]>(`/api/account/entities?q=${encodeURIComponent(q)}`).then(setFound, () => setFound([]));
    }, 200);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <div>
      <h3>{t('prefs.companies')}</h3>
      <ul className="chips">
        {prefs.watchlistCompanies.map((id) => (
          <li key={id}>
            {names[id] ?? id.slice(0, 8)}
            <button type="button" className="link" aria-label={t('prefs.remove', { name: names[id] ?? id })} onClick={() => set({ ...prefs, watchlistCompanies: prefs.watchlistCompanies.filter((x) => x !== id) })}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <label htmlFor="company-search">{t('prefs.search')}</label>
      <input id="company-search" type="search" placeholder={t('prefs.searchHint')} maxLength={100} value={query} onChange={(e) => setQuery(e.target.value)} />
      {found.length > 0 ? (
        <ul className="results" aria-label={t('prefs.search')}>
          {found.map((e) => (
            <li key={e.id}>
              <button
                type="button"
                className="secondary"
                disabled={prefs.watchlistCompanies.includes(e.id)}
                onClick={() => {
                  setNames((n) => ({ ...n, [e.id]: e.ticker ? `${e.name} (${e.ticker})` : e.name }));
                  set({ ...prefs, watchlistCompanies: [...prefs.watchlistCompanies, e.id] });
                }}
              >
                {t('prefs.add')} {e.name}
                {e.ticker ? ` (${e.ticker})` : ''}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Words({ values, label, inputLabel, onChange, upper, heading = true }: { values: string[]; label: string; inputLabel: string; onChange(v: string[]): void; upper?: boolean; heading?: boolean }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState('');
  const id = `add-${label.replace(/\W/g, '')}`;
  const add = () => {
    const v = upper ? draft.trim().toUpperCase() : draft.trim();
    if (v && !values.includes(v)) onChange([...values, v]);
    setDraft('');
  };
  return (
    <div>
      {heading ? <h3>{label}</h3> : null}
      <ul className="chips">
        {values.map((v) => (
          <li key={v}>
            {v}
            <button type="button" className="link" aria-label={t('prefs.remove', { name: v })} onClick={() => onChange(values.filter((x) => x !== v))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="row">
        <label htmlFor={id} className="visually-hidden">
          {inputLabel}
        </label>
        <input
          id={id}
          placeholder={inputLabel}
          maxLength={upper ? 8 : 50}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button type="button" className="secondary" onClick={add}>
          {t('prefs.add')}
        </button>
      </div>
    </div>
  );
}

function Settings<T extends Record<string, number | boolean>>({ title, values, onChange }: { title: string; values: T; onChange(v: T): void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="card settings">
      <legend>{title}</legend>
      {Object.entries(values).map(([k, v]) =>
        typeof v === 'boolean' ? (
          <label key={k} className="check">
            <input type="checkbox" checked={v} onChange={(e) => onChange({ ...values, [k]: e.target.checked })} />
            {t(`prefs.fields.${k}`)}
          </label>
        ) : (
          <label key={k} className="field">
            <span>{t(`prefs.fields.${k}`)}</span>
            <input type="number" step="any" min={0} value={v} onChange={(e) => onChange({ ...values, [k]: Number(e.target.value) })} />
          </label>
        ),
      )}
    </fieldset>
  );
}

/** Every time zone this browser knows, the reader's own first (a short list when Intl lacks the list). */
function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['America/Sao_Paulo', 'UTC'];
  return [...new Set([current, ...all])];
}

/** The VAPID public key (base64url) as PushManager.subscribe takes it. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const raw = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

type PushSupport = 'checking' | 'unsupported' | 'denied' | 'ready';

const pushSupported = () => typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/**
 * Breaking alerts by Web Push (issue 40): the `push` setting, and this browser's subscription
 * (the service worker at /sw.js, a subscription made with the deployment's VAPID key and posted
 * to the account), the account's other browsers, each removable. Not set up on this deployment:
 * no control, a sentence saying so. A browser without push, or with notifications blocked, says so.
 */
function PushControl({ on, onChange }: { on: boolean; onChange(on: boolean): void }) {
  const { t } = useTranslation();
  const info = useResource<AccountPush>('/api/account/push');
  const { busy, status, error, act } = useAction(info.reload);
  const [support, setSupport] = useState<PushSupport>('checking');
  const [endpoint, setEndpoint] = useState<string | null>(null);

  useEffect(() => {
    if (!pushSupported()) return setSupport('unsupported');
    if (Notification.permission === 'denied') return setSupport('denied');
    setSupport('ready');
    void navigator.serviceWorker.getRegistration('/').then(async (reg) => setEndpoint((await reg?.pushManager.getSubscription())?.endpoint ?? null), () => undefined);
  }, []);

  const data = info.data;
  if (!data) return <Failure message={info.error} />;
  if (!data.configured) {
    return (
      <p className="muted" data-testid="push-status">
        {t('prefs.pushOff')}
      </p>
    );
  }
  const mine = data.subscriptions.find((s) => s.endpoint === endpoint);
  const others = data.subscriptions.filter((s) => s !== mine);

  const subscribe = () =>
    act(async () => {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') {
        if (permission === 'denied') setSupport('denied');
        throw new Error(t('prefs.pushNotAllowed'));
      }
      const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
      await navigator.serviceWorker.ready;
      const sub = (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(data.publicKey!) }));
      await api('/api/account/push/subscriptions', { method: 'POST', body: sub.toJSON() });
      setEndpoint(sub.endpoint);
      if (!on) onChange(true);
      return t('prefs.pushSubscribed');
    });
  const remove = (id: string, thisBrowser: boolean) =>
    act(async () => {
      await api(`/api/account/push/subscriptions/${id}`, { method: 'DELETE' });
      if (thisBrowser) {
        const reg = await navigator.serviceWorker.getRegistration('/');
        await (await reg?.pushManager.getSubscription())?.unsubscribe();
        setEndpoint(null);
      }
      return t('prefs.pushRemoved');
    });

  return (
    <div className="push" data-testid="push-control">
      <label className="check">
        <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked)} />
        {t('prefs.fields.push')}
      </label>
      <Failure message={info.error ?? error} />
      <p className="muted" data-testid="push-status">
        {support === 'checking'
          ? t('app.loading')
          : support === 'unsupported'
            ? t('prefs.pushUnsupported')
            : support === 'denied'
              ? t('prefs.pushDenied')
              : mine
                ? t('prefs.pushThisBrowser', { label: mine.label })
                : t('prefs.pushNotThisBrowser')}
      </p>
      {support === 'ready' ? (
        mine ? (
          <button type="button" className="secondary" disabled={busy} onClick={() => void remove(mine.id, true)}>
            {t('prefs.pushStop')}
          </button>
        ) : (
          <button type="button" disabled={busy || data.subscriptions.length >= data.limit} onClick={() => void subscribe()}>
            {t('prefs.pushStart')}
          </button>
        )
      ) : null}
      {others.length > 0 ? (
        <>
          <p className="muted">{t('prefs.pushOthers')}</p>
          <ul className="chips" aria-label={t('prefs.pushOthers')}>
            {others.map((s) => (
              <li key={s.id}>
                {s.label}
                <button type="button" className="link" aria-label={t('prefs.remove', { name: s.label })} disabled={busy} onClick={() => void remove(s.id, false)}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {status ? (
        <p role="status" className="ok">
          {status}
        </p>
      ) : null}
    </div>
  );
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const clock = (h: number) => `${String(h).padStart(2, '0')}:00`;

/**
 * How and when the reader is told (issue 40): the alert channels, the minimum score, the daily
 * digest and its hour, the time zone and language of mail, and quiet hours.
 */
function NotificationsCard({ values, onChange }: { values: NotificationSettings; onChange(v: NotificationSettings): void }) {
  const { t } = useTranslation();
  const set = <K extends keyof NotificationSettings>(key: K, value: NotificationSettings[K]) => onChange({ ...values, [key]: value });
  const check = (key: 'email' | 'push' | 'whatsapp' | 'digest' | 'breakingOnly') => (
    <label className="check">
      <input type="checkbox" checked={values[key]} onChange={(e) => set(key, e.target.checked)} />
      {t(`prefs.fields.${key}`)}
    </label>
  );
  const quiet = values.quietHours;
  return (
    <fieldset className="card settings">
      <legend>{t('prefs.notifications')}</legend>
      <p className="muted">{t('prefs.alertsLead')}</p>
      {check('email')}
      <PushControl on={values.push} onChange={(on) => set('push', on)} />
      {check('whatsapp')}
      <label className="field">
        <span>{t('prefs.fields.minScore')}</span>
        <input type="number" min={0} max={100} step={1} value={values.minScore} onChange={(e) => set('minScore', Number(e.target.value))} />
      </label>
      {check('digest')}
      <label className="field">
        <span>{t('prefs.fields.digestHour')}</span>
        <select value={values.digestHour} onChange={(e) => set('digestHour', Number(e.target.value))}>
          {HOURS.map((h) => (
            <option key={h} value={h}>
              {clock(h)}
            </option>
          ))}
        </select>
      </label>
      {check('breakingOnly')}
      <label className="field">
        <span>{t('prefs.fields.timeZone')}</span>
        <select value={values.timeZone} onChange={(e) => set('timeZone', e.target.value)}>
          {timeZones(values.timeZone).map((z) => (
            <option key={z} value={z}>
              {z.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>{t('prefs.fields.language')}</span>
        <select value={values.language} onChange={(e) => set('language', e.target.value as NotificationSettings['language'])}>
          <option value="pt">Português</option>
          <option value="en">English</option>
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={quiet !== null} onChange={(e) => set('quietHours', e.target.checked ? { start: '22:00', end: '07:00' } : null)} />
        {t('prefs.fields.quietHours')}
      </label>
      {quiet ? (
        <div className="quiet">
          <label className="field">
            <span>{t('prefs.quietFrom')}</span>
            <input type="time" required value={quiet.start} onChange={(e) => set('quietHours', { ...quiet, start: e.target.value })} />
          </label>
          <label className="field">
            <span>{t('prefs.quietTo')}</span>
            <input type="time" required value={quiet.end} onChange={(e) => set('quietHours', { ...quiet, end: e.target.value })} />
          </label>
        </div>
      ) : null}
    </fieldset>
  );
}

/**
 * The account's WhatsApp phone: which one is linked, a button to unlink it, and where to enter the
 * code a phone got by sending *entrar* and this account's address (the only way to link one).
 * Inside the preferences form: its buttons are plain buttons, not submits.
 */
function WhatsAppCard() {
  const { t } = useTranslation();
  const whatsapp = useResource<WhatsAppLink>('/api/account/whatsapp');
  const [code, setCode] = useState('');
  const { busy, status, error, act } = useAction(whatsapp.reload);
  const link = () =>
    act(async () => {
      const linked = await api<{ phone: string }>('/api/account/whatsapp/link', { method: 'POST', body: { code } });
      setCode('');
      return t('prefs.whatsappLinkedNow', { phone: linked.phone });
    });
  const unlink = () =>
    act(async () => {
      const unlinked = await api<{ phone: string }>('/api/account/whatsapp', { method: 'DELETE' });
      return t('prefs.whatsappUnlinked', { phone: unlinked.phone });
    });

  const data = whatsapp.data;
  return (
    <section className="card" aria-labelledby="whatsapp">
      <h2 id="whatsapp">{t('prefs.whatsapp')}</h2>
      <Failure message={whatsapp.error ?? error} />
      <p data-testid="whatsapp-status">
        {!data ? t('app.loading') : !data.configured ? t('prefs.whatsappOff') : data.linked ? t('prefs.whatsappLinked', { phone: data.phone }) : t('prefs.whatsappNotLinked')}
      </p>
      {data?.linked ? (
        <button type="button" className="danger" disabled={busy} onClick={() => void unlink()}>
          {t('prefs.whatsappUnlink')}
        </button>
      ) : data?.configured ? (
        <div className="row">
          <label htmlFor="whatsapp-code">{t('prefs.whatsappCode')}</label>
          <input
            id="whatsapp-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            onKeyDown={(e) => {
              // Enter here links the phone; it must not save the preferences form around it.
              if (e.key !== 'Enter') return;
              e.preventDefault();
              if (code.length === 6 && !busy) void link();
            }}
          />
          <button type="button" disabled={busy || code.length !== 6} onClick={() => void link()}>
            {t('prefs.whatsappLink')}
          </button>
        </div>
      ) : null}
      {status ? (
        <p role="status" className="ok">
          {status}
        </p>
      ) : null}
    </section>
  );
}

export function PreferencesPage() {
  const { t } = useTranslation();
  const loaded = useResource<Preferences>('/api/account/preferences');
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (loaded.data) setPrefs(loaded.data);
  }, [loaded.data]);

  if (loaded.error) return <Failure message={loaded.error} />;
  if (!prefs) return <Loading />;
  const set = (p: Preferences) => {
    setPrefs(p);
    setStatus(null);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const keywordWeights = Object.fromEntries(prefs.keywords.map((k) => [k, prefs.keywordWeights[k] ?? 1]));
      setPrefs(await api<Preferences>('/api/account/preferences', { method: 'PUT', body: { ...prefs, keywordWeights } }));
      setStatus(t('prefs.saved'));
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <form onSubmit={save}>
      <h1>{t('prefs.title')}</h1>
      <p>{t('prefs.lead')}</p>
      <Failure message={error} />
      <WeightedList prefs={prefs} set={set} title={t('prefs.sectors')} spec={{ list: 'sectors', weights: 'sectorWeights', codes: SECTORS }} />
      <WeightedList prefs={prefs} set={set} title={t('prefs.topics')} spec={{ list: 'topics', weights: 'topicWeights', codes: TOPICS }} />
      <section className="card" aria-labelledby="watchlist">
        <h2 id="watchlist">{t('prefs.watchlist')}</h2>
        <Companies prefs={prefs} set={set} />
        <Words label={t('prefs.tickers')} inputLabel={t('prefs.ticker')} values={prefs.watchlistTickers} upper onChange={(v) => set({ ...prefs, watchlistTickers: v })} />
      </section>
      <section className="card" aria-labelledby="keywords">
        <h2 id="keywords">{t('prefs.keywords')}</h2>
        <Words label={t('prefs.keywords')} inputLabel={t('prefs.keyword')} heading={false} values={prefs.keywords} onChange={(v) => set({ ...prefs, keywords: v })} />
      </section>
      <NotificationsCard values={prefs.notificationSettings} onChange={(v) => set({ ...prefs, notificationSettings: v })} />
      <Settings title={t('prefs.relevance')} values={prefs.relevanceSettings} onChange={(v) => set({ ...prefs, relevanceSettings: v })} />
      <WhatsAppCard />
      <div className="save-bar">
        <button type="submit">{t('prefs.save')}</button>
        {status ? (
          <span role="status" className="ok">
            {status}
          </span>
        ) : null}
      </div>
    </form>
  );
}
