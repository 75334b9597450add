import { Component, Suspense, useCallback, useEffect, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { api, setCsrfToken, type SessionView, type SignedOut } from './api';
import { setLanguage } from './i18n';
import { SessionContext, useSession, type SessionState } from './session';
import { Loading } from './pages/common';
import { SignIn } from './pages/SignIn';
import { UnsubscribePage } from './pages/Unsubscribe';
import { preloadable } from './preloadable';

/**
 * The signed-in pages are chunks of their own, loaded when first shown: the sign-in page's bundle
 * carries no Chart.js (Usage) and no zod (Preferences imports the article rules). Each loader is
 * also called early, beside the session request, when the address is already that page's.
 */
const PAGES = {
  keys: () => import('./pages/Keys').then((m) => m.Keys),
  usage: () => import('./pages/Usage').then((m) => m.UsagePage),
  billing: () => import('./pages/Billing').then((m) => m.BillingPage),
  preferences: () => import('./pages/Preferences').then((m) => m.PreferencesPage),
  reading: () => import('./pages/Reading').then((m) => m.ReadingPage),
  webhooks: () => import('./pages/Webhooks').then((m) => m.WebhooksPage),
} satisfies Record<string, () => Promise<ComponentType>>;
type PageName = keyof typeof PAGES;

const page = (name: PageName) => preloadable(async () => ({ default: await PAGES[name]() }));
const Keys = page('keys');
const UsagePage = page('usage');
const BillingPage = page('billing');
const PreferencesPage = page('preferences');
const ReadingPage = page('reading');
const WebhooksPage = page('webhooks');

/** The staff console (issue 38): a chunk of its own, which a customer never loads. */
const StaffConsole = preloadable(() => import('./staff/Console'));
const PRELOADABLE: Record<PageName, { preload(): Promise<unknown> }> = { keys: Keys, usage: UsagePage, billing: BillingPage, preferences: PreferencesPage, reading: ReadingPage, webhooks: WebhooksPage };

/** Asks for the chunk of the page at this address; settles when it is there (or failed: the page's own loading then says so). */
function preloadPage(pathname: string): Promise<unknown> {
  if (pathname === '/staff' || pathname.startsWith('/staff/')) return StaffConsole.preload().catch(() => undefined);
  const name = /^\/account\/([a-z]+)/.exec(pathname)?.[1];
  if (name && Object.hasOwn(PRELOADABLE, name)) return PRELOADABLE[name as PageName].preload().catch(() => undefined);
  return Promise.resolve();
}

export function App() {
  const { t, i18n } = useTranslation();
  const [session, setSession] = useState<SessionView | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      // The page's chunk is asked for beside the session, and the page drawn once both are here: drawn
      // before its chunk, it would suspend, and React shows a suspended page no sooner than 300 ms later.
      const [s] = await Promise.all([api<SessionView | SignedOut>('/api/auth/session'), preloadPage(window.location.pathname)]);
      setCsrfToken(s.csrfToken ?? '');
      setSession(s.user ? (s as SessionView) : null);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const { pathname } = useLocation();
  useEffect(() => void preloadPage(pathname), [pathname]);

  useEffect(() => {
    document.documentElement.lang = i18n.language === 'pt' ? 'pt-BR' : 'en';
  }, [i18n.language]);

  const state = useMemo<SessionState>(
    () => ({
      session: session ?? null,
      refresh,
      signedIn: (s) => {
        setCsrfToken(s.csrfToken);
        setSession(s);
      },
      signOut: async (everywhere) => {
        await api(everywhere ? '/api/auth/sign-out-everywhere' : '/api/auth/sign-out', { method: 'POST' });
        setCsrfToken('');
        setSession(null);
      },
    }),
    [session, refresh],
  );

  const inStaff = pathname === '/staff' || pathname.startsWith('/staff/');
  const staffLink = session?.staff === true && !inStaff;

  const other = i18n.language === 'pt' ? 'en' : 'pt';
  return (
    <SessionContext.Provider value={state}>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="top">
        <span className="brand">{t('app.title')}</span>
        <div className="top-actions">
          <button type="button" className="link" lang={other === 'pt' ? 'pt-BR' : 'en'} aria-label={t('app.languageLabel')} onClick={() => setLanguage(other)}>
            {t('app.language')}
          </button>
          {session && staffLink ? <Link to="/staff">{t('app.staffConsole')}</Link> : null}
          {session ? (
            <>
              <span className="who">{session.user.email}</span>
              <button type="button" className="secondary" onClick={() => void state.signOut(false)}>
                {t('app.signOut')}
              </button>
            </>
          ) : null}
        </div>
      </header>
      {error ? (
        <main id="main" className="page">
          <p role="alert" className="error">
            {t('app.error', { message: error })}
          </p>
          <button type="button" onClick={() => void refresh()}>
            {t('app.retry')}
          </button>
        </main>
      ) : session === undefined ? (
        <main id="main" className="page">
          <p>{t('app.loading')}</p>
        </main>
      ) : (
        <Routes>
          <Route path="/sign-in" element={session ? <AfterSignIn /> : <SignIn />} />
          <Route path="/unsubscribe/:token" element={<UnsubscribePage />} />
          <Route path="/account/*" element={session ? <Account /> : <RedirectToSignIn />} />
          <Route
            path="/staff/*"
            element={
              session ? (
                <PageLoadFailure key="staff">
                  <Suspense fallback={<main id="main" className="page"><Loading /></main>}>
                    <StaffConsole />
                  </Suspense>
                </PageLoadFailure>
              ) : (
                <RedirectToSignIn />
              )
            }
          />
          <Route path="*" element={<Navigate to={session ? '/account/keys' : '/sign-in'} replace />} />
        </Routes>
      )}
    </SessionContext.Provider>
  );
}

/** Signed in: back to the page that sent the reader to sign in (the staff console…), or the API keys. */
function AfterSignIn() {
  const from = (useLocation().state as { from?: unknown } | null)?.from;
  const to = typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : '/account/keys';
  return <Navigate to={to} replace />;
}

function RedirectToSignIn() {
  const location = useLocation();
  return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
}

function Account() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const links: [string, string][] = [
    ['keys', t('nav.keys')],
    ['usage', t('nav.usage')],
    ['billing', t('nav.billing')],
    ['preferences', t('nav.preferences')],
    ['webhooks', t('nav.webhooks')],
    ['reading', t('nav.reading')],
  ];
  return (
    <div className="layout">
      <nav className="side" aria-label={t('nav.main')}>
        <ul>
          {links.map(([to, label]) => (
            <li key={to}>
              <NavLink to={`/account/${to}`}>{label}</NavLink>
            </li>
          ))}
        </ul>
        <SignOutEverywhere />
      </nav>
      <main id="main" className="page">
        <PageLoadFailure key={pathname}>
          <Suspense fallback={<Loading />}>
            <Routes>
              <Route path="keys" element={<Keys />} />
              <Route path="usage" element={<UsagePage />} />
              <Route path="billing" element={<BillingPage />} />
              <Route path="preferences" element={<PreferencesPage />} />
              <Route path="reading" element={<ReadingPage />} />
              <Route path="webhooks" element={<WebhooksPage />} />
              <Route path="*" element={<Navigate to="/account/keys" replace />} />
            </Routes>
          </Suspense>
        </PageLoadFailure>
      </main>
    </div>
  );
}

function SignOutEverywhere() {
  const { t } = useTranslation();
  const { signOut } = useSession();
  return (
    <button type="button" className="link small" onClick={() => void signOut(true)}>
      {t('app.signOutEverywhere')}
    </button>
  );
}

/**
 * A page's chunk that cannot be loaded (offline, or a deploy replaced it since this page was
 * opened) is told, with a reload that fetches the current page and its chunks. Keyed by the
 * address, so another page of the menu is tried afresh.
 */
class PageLoadFailure extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    return this.state.error ? <Reload message={this.state.error.message} /> : this.props.children;
  }
}

function Reload({ message }: { message: string }) {
  const { t } = useTranslation();
  return (
    <>
      <p role="alert" className="error">
        {t('app.error', { message })}
      </p>
      <button type="button" onClick={() => window.location.reload()}>
        {t('app.retry')}
      </button>
    </>
  );
}
