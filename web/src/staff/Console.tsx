/**
 * The staff console (issue 38): a chunk of its own, loaded at /staff only (the customer dashboard's
 * bundle carries none of it). It asks GET /api/staff/me on load: a member sees the sections its
 * permissions open, each a route of its own (/staff/<section>) and a chunk of its own; a
 * customer's session (403) sees that this area is for staff; a session that has ended goes to
 * sign in (the app's session, asked again).
 */
import './staff.css';
import { Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { preloadable, type Preloadable } from '../preloadable';
import { useSession } from '../session';
import { failureOf, staffApi, type Failure, type StaffMe } from './api';
import { StaffContext, type StaffAccess } from './access';
import { registerStaffMessages, sectionNs, STAFF_NS } from './i18n';
import type { StaffPermission } from './roles';
import type { StaffSection } from './section';
import { SECTIONS } from './sections';
import { ErrorState, LoadingState, NavigatedContext, PageHeader, RoleTags, SectionBoundary, StaffUiProvider } from './ui';

registerStaffMessages(SECTIONS);

/** Each section's page, a chunk loaded when first shown, or asked for as the console's chunk loads when the address is already the section's. */
const PAGES = new Map<string, Preloadable<object>>(SECTIONS.map((s) => [s.id, preloadable(s.load)]));
const sectionAt = (pathname: string) => SECTIONS.find((s) => pathname === `/staff/${s.path}` || pathname.startsWith(`/staff/${s.path}/`));
/** Asks for the chunk of the section at this address; settles when it is there (or failed: the section's boundary then says so). */
const preloadSection = (pathname: string): Promise<unknown> => {
  const at = sectionAt(pathname);
  return at ? PAGES.get(at.id)!.preload().catch(() => undefined) : Promise.resolve();
};
void preloadSection(window.location.pathname);

type State = { kind: 'loading' } | { kind: 'staff'; me: StaffMe } | { kind: 'notStaff' } | { kind: 'failed'; failure: Failure };

export default function StaffConsole() {
  const { t } = useTranslation(STAFF_NS);
  const { session, refresh } = useSession();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const email = session?.user.email ?? '';

  const load = useCallback(async () => {
    try {
      // Drawn once the section's chunk is here too (asked for as this chunk loaded): see ../preloadable.tsx.
      const [me] = await Promise.all([staffApi.get<StaffMe>('/me'), preloadSection(window.location.pathname)]);
      setState({ kind: 'staff', me });
    } catch (err) {
      const failure = failureOf(err);
      if (failure.kind === 'forbidden') {
        setState({ kind: 'notStaff' });
      } else if (failure.kind === 'signedOut') {
        await refresh(); // the app sends the reader to sign in
      } else {
        setState({ kind: 'failed', failure });
      }
    }
  }, [email, refresh]);

  useEffect(() => {
    void load();
  }, [load]);

  // The document's title is the pages' (PageHeader) while in the console, and the dashboard's again after.
  useEffect(() => {
    const title = document.title;
    return () => {
      document.title = title;
    };
  }, []);

  if (state.kind === 'loading') {
    return (
      <main id="main" className="page">
        <LoadingState />
      </main>
    );
  }
  if (state.kind === 'failed') {
    return (
      <main id="main" className="page">
        <h1>{t('errors.title')}</h1>
        <ErrorState failure={state.failure} onRetry={() => void load()} />
      </main>
    );
  }
  if (state.kind === 'notStaff') return <NotStaff email={email} />;
  return <Staff me={state.me} reload={load} />;
}

/** A signed-in customer (or an invitee whose session predates the invitation). */
function NotStaff({ email }: { email: string }) {
  const { t } = useTranslation(STAFF_NS);
  const { signOut } = useSession();
  useEffect(() => {
    document.title = t('documentTitle', { page: t('notStaff.title') });
  }, [t]);
  return (
    <main id="main" className="page narrow staff-not-staff">
      <h1>{t('notStaff.title')}</h1>
      <p>{t('notStaff.lead', { email })}</p>
      <p className="muted">{t('notStaff.invited')}</p>
      <div className="row">
        <Link to="/account/keys" className="button-link">
          {t('notStaff.back')}
        </Link>
        <button type="button" className="secondary" onClick={() => void signOut(false)}>
          {t('notStaff.signOut')}
        </button>
      </div>
    </main>
  );
}

function Staff({ me, reload }: { me: StaffMe; reload: () => Promise<void> }) {
  const { t } = useTranslation(STAFF_NS);
  const { pathname } = useLocation();

  // After the first page, each navigation moves the focus to the new page's heading (PageHeader).
  const navigated = useRef(false);
  const firstPath = useRef(pathname);
  if (pathname !== firstPath.current) navigated.current = true;

  const access = useMemo<StaffAccess>(() => {
    const held = new Set<StaffPermission>(me.permissions);
    return { me, can: (p) => held.has(p), reload };
  }, [me, reload]);
  const allowed = SECTIONS.filter((s) => access.can(s.permission));
  const current = sectionAt(pathname);

  return (
    <StaffContext.Provider value={access}>
      <NavigatedContext.Provider value={navigated}>
        <StaffUiProvider>
          <div className="layout staff-layout">
            <nav className="side staff-nav" aria-label={t('nav')}>
              <p className="staff-name">
                <Link to="/staff">{t('console')}</Link>
              </p>
              <ul>
                {allowed.map((s) => (
                  <li key={s.id}>
                    <NavLink to={`/staff/${s.path}`}>{t('title', { ns: sectionNs(s.id) })}</NavLink>
                  </li>
                ))}
              </ul>
              <div className="staff-me">
                <p className="staff-me-label">{t('yourRoles')}</p>
                <RoleTags roles={me.roles} label={t('yourRoles')} />
              </div>
              <Link className="staff-back" to="/account/keys">
                {t('backToDashboard')}
              </Link>
            </nav>
            <main id="main" className="page staff-main">
              <SectionBoundary key={current?.id ?? 'home'} fallback={(error) => <SectionFailed message={error.message} />}>
                <Suspense fallback={<LoadingState />}>
                  <Routes>
                    <Route index element={<Home sections={allowed} />} />
                    {SECTIONS.map((s) => (
                      <Route key={s.id} path={`${s.path}/*`} element={access.can(s.permission) ? <SectionPage section={s} /> : <NoAccess />} />
                    ))}
                    <Route path="*" element={<Navigate to="/staff" replace />} />
                  </Routes>
                </Suspense>
              </SectionBoundary>
            </main>
          </div>
        </StaffUiProvider>
      </NavigatedContext.Provider>
    </StaffContext.Provider>
  );
}

function SectionPage({ section }: { section: StaffSection }) {
  const Page = PAGES.get(section.id)!;
  return <Page />;
}

/** /staff: the sections the member may open, each with what it is for. */
function Home({ sections }: { sections: readonly StaffSection[] }) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <>
      <PageHeader title={t('home')} lead={sections.length ? t('homeLead') : undefined} documentTitle={t('documentTitleHome')} />
      {sections.length === 0 ? (
        <p>{t('noSections')}</p>
      ) : (
        <ul className="staff-home">
          {sections.map((s) => (
            <li key={s.id} className="card">
              <h2>
                <Link to={`/staff/${s.path}`}>{t('title', { ns: sectionNs(s.id) })}</Link>
              </h2>
              <p className="muted">{t('lead', { ns: sectionNs(s.id), defaultValue: '' })}</p>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** A section the member's permissions do not open (reached by its address). */
function NoAccess() {
  const { t } = useTranslation(STAFF_NS);
  return (
    <>
      <PageHeader title={t('noAccess.title')} lead={t('noAccess.lead')} />
      <p>
        <Link to="/staff">{t('noAccess.home')}</Link>
      </p>
    </>
  );
}

function SectionFailed({ message }: { message: string }) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <div role="alert">
      <p className="error">{t('ui.failedSection', { message })}</p>
      <button type="button" onClick={() => window.location.reload()}>
        {t('ui.reload')}
      </button>
    </div>
  );
}
