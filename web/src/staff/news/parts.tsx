/**
 * The News section's shared pieces: its header (the page's heading and the section's tabs), the
 * names of codes in the reader's language (sectors, topics, sentiment, entity types, states),
 * badges, times, a field's error, and the catalogue search editors pick an entity with.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { useSession } from '../../session';
import { failureOf, type Failure } from '../api';
import { formatDateTime, sectionNs } from '../i18n';
import { Address, PageHeader, useFailureText } from '../ui';
import { newsApi, type CandidateState, type EditorialState, type Entity, type EntityType, type ReenrichState, type Sector, type SentimentLabel, type SourceState, type Topic } from './api';

export const NS = sectionNs('news');

/** The section's pages, in the tabs' order (paths below /staff/news). */
const TABS = [
  { key: 'sources', to: '/staff/news', end: true },
  { key: 'articles', to: '/staff/news/articles', end: false },
  { key: 'curation', to: '/staff/news/curation', end: false },
  { key: 'catalogue', to: '/staff/news/catalogue', end: false },
  { key: 'reenrich', to: '/staff/news/enrichments', end: false },
] as const;

/** A page of the section: its heading (PageHeader: the focus after a navigation, the document's title), then the section's tabs. */
export function NewsHeader({ title, lead, actions }: { title: string; lead?: ReactNode; actions?: ReactNode }) {
  const { t } = useTranslation(NS);
  return (
    <>
      <PageHeader title={title} {...(lead ? { lead } : {})} {...(actions ? { actions } : {})} />
      <nav className="nw-tabs" aria-label={t('tabs.label')}>
        <ul>
          {TABS.map((tab) => (
            <li key={tab.key}>
              <NavLink to={tab.to} end={tab.end}>
                {t(`tabs.${tab.key}`)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}

/** i18next reads a hyphen fine but the keys are camelCase, as the shell's. */
const camel = (s: string) => s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The names of the API's codes in the reader's language (sectors and topics are the dashboard's own words). */
export function useNames() {
  const { t } = useTranslation(NS);
  return {
    sector: useCallback((code: Sector | null | undefined) => (code ? `${t(`codes.${code}`, { ns: 'translation', defaultValue: code })}` : t('common.none')), [t]),
    topic: useCallback((code: Topic | null | undefined) => (code ? `${t(`codes.${code}`, { ns: 'translation', defaultValue: code })}` : t('common.none')), [t]),
    sentiment: useCallback((label: SentimentLabel | null | undefined) => (label ? t(`sentiment.${label}`) : t('common.none')), [t]),
    entityType: useCallback((type: EntityType) => t(`entityTypes.${type}`, { defaultValue: type }), [t]),
    state: useCallback((s: EditorialState) => t(`states.${camel(s)}`, { defaultValue: s }), [t]),
    sourceState: useCallback((s: SourceState) => t(`sourceStates.${camel(s)}`, { defaultValue: s }), [t]),
    candidateState: useCallback((s: CandidateState) => t(`candidateStates.${s}`, { defaultValue: s }), [t]),
    reenrichState: useCallback((s: ReenrichState | 'cancelling') => t(`reenrichStates.${s}`, { defaultValue: s }), [t]),
    language: useCallback((l: string) => t(`languages.${l}`, { defaultValue: l }), [t]),
  };
}

/** A state as a coloured tag (`nw-badge-<tone>`), its words always visible. */
export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'bad' | 'info' | 'off'; children: ReactNode }) {
  return <span className={`nw-badge nw-badge-${tone}`}>{children}</span>;
}

export const STATE_TONE: Record<EditorialState, 'ok' | 'warn' | 'bad' | 'info' | 'off'> = {
  pending: 'info',
  'waiting-budget': 'warn',
  failed: 'bad',
  enriched: 'ok',
  imported: 'ok',
  hidden: 'off',
};

export const SOURCE_TONE: Record<SourceState, 'ok' | 'warn' | 'bad' | 'info' | 'off'> = {
  ok: 'ok',
  new: 'info',
  'backing-off': 'warn',
  failing: 'bad',
  disabled: 'off',
};

/** Numbers in the reader's language. */
export function useNumber(): (n: number, o?: Intl.NumberFormatOptions) => string {
  const { i18n } = useTranslation(NS);
  const locale = i18n.language === 'pt' ? 'pt-BR' : 'en-GB';
  return useCallback((n: number, o?: Intl.NumberFormatOptions) => new Intl.NumberFormat(locale, o).format(n), [locale]);
}

/** "in 5 minutes", "3 hours ago": the time from now, in the reader's language. */
export function relativeTime(iso: string, lng: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const rtf = new Intl.RelativeTimeFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 45) return rtf.format(Math.round(seconds), 'second');
  if (abs < 45 * 60) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 22 * 3600) return rtf.format(Math.round(seconds / 3600), 'hour');
  return rtf.format(Math.round(seconds / 86400), 'day');
}

/** A time as a date and time, and how long from now ("in 2 hours"); "never" (or `none`) without one. */
export function When({ iso, relative = false, none }: { iso: string | null | undefined; relative?: boolean; none?: string }) {
  const { t, i18n } = useTranslation(NS);
  if (!iso) return <span className="muted">{none ?? t('common.never')}</span>;
  return (
    <time dateTime={iso}>
      {formatDateTime(iso, i18n.language)}
      {relative ? <span className="muted nw-relative">{relativeTime(iso, i18n.language)}</span> : null}
    </time>
  );
}

/**
 * Who did something, as the news API records it: the staff member's address (models/auth
 * token.rules actorOf; a bearer token without an e-mail: its subject). One's own is marked "you".
 */
export function Editor({ by }: { by: string }) {
  const { t } = useTranslation(NS);
  const { session } = useSession();
  const mine = !!session && (by === session.user.email || by === session.user.id);
  return (
    <span>
      {by.includes('@') ? <Address email={by} /> : <span className="nw-url-inline">{by}</span>}
      {mine ? <span className="muted"> {t('common.you')}</span> : null}
    </span>
  );
}

/** A field's problem, told under it (and named by the field's aria-describedby). */
export function FieldError({ id, message }: { id: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="error nw-field-error">
      {message}
    </p>
  );
}

/** What a change's failure says, for the alert beside a form (the API's message where we have no words). */
export function useProblem(): (err: unknown) => { failure: Failure; text: string } {
  const text = useFailureText();
  return useCallback(
    (err: unknown) => {
      const failure = failureOf(err);
      return { failure, text: text(failure) };
    },
    [text],
  );
}

/**
 * The catalogue, searched as the editor types (GET /admin/entities?q=…, a quarter of a second after
 * the last key): each result is a button (`actionLabel`), so that picking one is a click or Enter.
 * The number of results is told in a polite live region. `exclude`: ids already chosen (shown, not
 * offered again).
 */
export function EntityPicker({
  label,
  help,
  actionLabel,
  onPick,
  exclude = [],
  autoFocus = false,
  clearOnPick = false,
}: {
  label: string;
  help?: string;
  actionLabel: (e: Entity) => ReactNode;
  onPick: (e: Entity) => void;
  exclude?: readonly string[];
  autoFocus?: boolean;
  /** Empty the search once an entity is picked (to pick another), and say which was picked. */
  clearOnPick?: boolean;
}) {
  const { t } = useTranslation(NS);
  const failureText = useFailureText();
  const [picked, setPicked] = useState<string | null>(null);
  const id = useId();
  const [q, setQ] = useState('');
  const [results, setResults] = useState<Entity[] | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);
  const names = useNames();

  useEffect(() => {
    const query = q.trim();
    const mine = ++latest.current;
    if (!query || !/[\p{L}\p{N}]/u.test(query)) {
      setResults(null);
      setFailure(null);
      setBusy(false);
      return;
    }
    setBusy(true);
    const timer = window.setTimeout(() => {
      newsApi
        .entities({ q: query.slice(0, 100), limit: 8, offset: 0 })
        .then((page) => {
          if (mine !== latest.current) return;
          setResults(page.data);
          setFailure(null);
        })
        .catch((err: unknown) => {
          if (mine === latest.current) setFailure(failureOf(err));
        })
        .finally(() => {
          if (mine === latest.current) setBusy(false);
        });
    }, 250);
    return () => window.clearTimeout(timer);
  }, [q]);

  const status = busy ? t('picker.searching') : results === null ? (picked ? t('picker.picked', { name: picked }) : '') : results.length === 0 ? t('picker.none') : t('picker.results', { count: results.length });
  const pick = (e: Entity) => {
    onPick(e);
    if (!clearOnPick) return;
    setPicked(e.canonicalName);
    setQ('');
    document.getElementById(`${id}-q`)?.focus();
  };
  return (
    <div className="nw-picker">
      <label htmlFor={`${id}-q`}>{label}</label>
      <input
        id={`${id}-q`}
        type="search"
        autoComplete="off"
        maxLength={100}
        value={q}
        onChange={(e) => {
          setQ(e.target.value);
          setPicked(null);
        }}
        onKeyDown={(e) => {
          // Enter in the search must not submit the form around it.
          if (e.key === 'Enter') e.preventDefault();
        }}
        aria-describedby={help ? `${id}-help` : undefined}
        {...(autoFocus ? { 'data-autofocus': '' } : {})}
      />
      {help ? (
        <p id={`${id}-help`} className="muted staff-help">
          {help}
        </p>
      ) : null}
      <p className="muted nw-picker-status" role="status">
        {status}
      </p>
      {failure ? <p className="error">{failureText(failure)}</p> : null}
      {results && results.length > 0 ? (
        <ul className="nw-picker-results">
          {results.map((e) => {
            const chosen = exclude.includes(e.id);
            return (
              <li key={e.id}>
                <span className="nw-picker-name">
                  <strong>{e.canonicalName}</strong>
                  <span className="muted">
                    {' '}
                    · {names.entityType(e.entityType)}
                    {e.ticker ? ` · ${e.ticker}` : ''}
                  </span>
                  {e.aliases.length ? <span className="muted small nw-picker-aliases">{e.aliases.slice(0, 4).join(', ')}</span> : null}
                </span>
                {chosen ? (
                  <span className="muted small">{t('picker.chosen')}</span>
                ) : (
                  <button type="button" className="secondary" onClick={() => pick(e)}>
                    {actionLabel(e)}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}
