/**
 * The staff console's shared pieces, for every section: a page's header (its heading, which takes
 * the focus after a navigation, and the document's title), a table that stacks into cards on a
 * phone, pagination, the loading, empty and error states, a modal dialog and a confirmation, and
 * notifications in live regions. Their words are the shell's (`staff` namespace, ./i18n.ts).
 */
import {
  Component,
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type ReactNode,
  type RefObject,
} from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams, type LinkProps } from 'react-router';
import type { Failure } from './api';
import { ROLE_KEYS, STAFF_NS } from './i18n';
import { orderRoles, type StaffRole } from './roles';

// ---- Navigation focus and the document's title ------------------------------------------------

/**
 * Set by the console once the reader has moved within it: a page's header then takes the focus, so
 * that a screen reader announces the new page and the keyboard starts from it. On the first load
 * the focus is left where the browser put it.
 */
export const NavigatedContext = createContext<RefObject<boolean> | null>(null);

/**
 * The address's query as it is now. The router draws a navigation a moment later (in a transition), so
 * a filter changed right after another starts from the address, not from the values last drawn (which
 * would put the other filter back as it was).
 */
export const queryNow = (): URLSearchParams => new URLSearchParams(window.location.search);

/**
 * A link to this page with another query, built from the address when it is followed (so a filter
 * changed a moment before is kept). Its href, for a new tab or a copied link, is the last drawing's.
 */
export function QueryLink({ query, onClick, ...props }: Omit<LinkProps, 'to'> & { query: (now: URLSearchParams) => string }) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  return (
    <Link
      {...props}
      to={query(params) || '?'}
      onClick={(e) => {
        onClick?.(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        void navigate(query(queryNow()) || '?');
      }}
    />
  );
}

export function PageHeader({ title, lead, actions, documentTitle }: { title: string; lead?: ReactNode; actions?: ReactNode; documentTitle?: string }) {
  const { t } = useTranslation(STAFF_NS);
  const heading = useRef<HTMLHeadingElement>(null);
  const navigated = useContext(NavigatedContext);
  useEffect(() => {
    if (navigated?.current) heading.current?.focus();
  }, [navigated]);
  useEffect(() => {
    document.title = documentTitle ?? t('documentTitle', { page: title });
  }, [t, title, documentTitle]);
  return (
    <div className="staff-page-header">
      <div>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {lead ? <p className="muted staff-lead">{lead}</p> : null}
      </div>
      {actions ? <div className="row">{actions}</div> : null}
    </div>
  );
}

/** A section's placeholder, until its pages are built. */
export function Placeholder({ title, lead }: { title: string; lead?: string }) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <>
      <PageHeader title={title} {...(lead ? { lead } : {})} />
      <p className="staff-placeholder">{t('placeholder')}</p>
    </>
  );
}

/** A titled part of a page (`<section>` named by its heading). */
export function Panel({ title, actions, children, id }: { title: string; actions?: ReactNode; children: ReactNode; id?: string }) {
  const generated = useId();
  const headingId = id ?? `${generated}-title`;
  return (
    <section className="card staff-panel" aria-labelledby={headingId}>
      <div className="staff-panel-head">
        <h2 id={headingId}>{title}</h2>
        {actions ? <div className="row">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

// ---- Roles -----------------------------------------------------------------------------------

/** A role's name in the reader's language. */
export function useRoleName(): (role: StaffRole) => string {
  const { t } = useTranslation(STAFF_NS);
  return useCallback((role: StaffRole) => t(`roles.${ROLE_KEYS[role]}`), [t]);
}

/** Roles as a list of tags, in the model's order. */
export function RoleTags({ roles, label }: { roles: readonly StaffRole[]; label?: string }) {
  const name = useRoleName();
  return (
    <ul className="staff-roles" {...(label ? { 'aria-label': label } : {})}>
      {orderRoles(roles).map((r) => (
        <li key={r} className={r === 'owner' ? 'owner' : undefined}>
          {name(r)}
        </li>
      ))}
    </ul>
  );
}

/**
 * An e-mail address that may wrap before its @ (and at its hyphens) rather than anywhere: a table's
 * narrow column shows `agent-3f9c` / `@example.com`, not `agent-3f9c@exa` / `mple.com`.
 */
export function Address({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  return (
    <span className="staff-address">
      {at > 0 ? (
        <>
          {email.slice(0, at)}
          <wbr />
          {email.slice(at)}
        </>
      ) : (
        email
      )}
    </span>
  );
}

// ---- States ----------------------------------------------------------------------------------

export function LoadingState() {
  const { t } = useTranslation(STAFF_NS);
  return (
    <p className="muted" role="status">
      {t('ui.loading')}
    </p>
  );
}

export function EmptyState({ children }: { children?: ReactNode }) {
  const { t } = useTranslation(STAFF_NS);
  return <p className="staff-empty">{children ?? t('ui.empty')}</p>;
}

/** A failure in the reader's language (the API's own message where it has no words of ours). */
export function useFailureText(): (failure: Failure, vars?: Record<string, unknown>) => string {
  const { t } = useTranslation(STAFF_NS);
  return useCallback(
    (f: Failure, vars: Record<string, unknown> = {}) => {
      const d = f.details;
      switch (f.kind) {
        case 'lastOwner':
          return t('errors.lastOwner', { email: d.email ?? vars.email ?? '', ...vars });
        case 'alreadyMember':
          return t('errors.alreadyMember', { email: d.email ?? vars.email ?? '', status: t(`status.${String(d.status)}`, { defaultValue: String(d.status) }), ...vars });
        case 'staffFull':
          return t('errors.staffFull', { max: d.staffMax, ...vars });
        default:
          return t(`errors.${f.kind}`, { message: f.message, ...vars });
      }
    },
    [t],
  );
}

/** A failure to load something, with a retry. */
export function ErrorState({ failure, onRetry }: { failure: Failure; onRetry?: () => void }) {
  const { t } = useTranslation(STAFF_NS);
  const text = useFailureText();
  return (
    <div className="staff-error" role="alert">
      <p className="error">{text(failure)}</p>
      {onRetry ? (
        <button type="button" className="secondary" onClick={onRetry}>
          {t('ui.retry')}
        </button>
      ) : null}
    </div>
  );
}

// ---- Table -----------------------------------------------------------------------------------

export interface Column<T> {
  /** The column's heading; also each cell's label when the table stacks into cards (a phone). */
  header: string;
  cell: (row: T) => ReactNode;
  /** A class for the column's cells (`actions`, `nowrap`…). */
  className?: string;
  /** The column's share of a `fixed` table's width (staff.css `.col-<n>`), in percent. */
  width?: 10 | 12 | 14 | 16 | 18 | 20 | 22 | 24 | 26 | 28 | 30 | 35 | 40;
  /** The row's header cell (`<th scope="row">`): the column that names the row. */
  rowHeader?: boolean;
}

/**
 * A table of rows. On a narrow screen (staff.css) each row becomes a card and each cell shows its
 * column's heading before it; the explicit roles keep the table's semantics for screen readers
 * when the cells are displayed as blocks.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
  captionHidden = true,
  rowAttributes,
  fixed = false,
}: {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  empty?: ReactNode;
  captionHidden?: boolean;
  rowAttributes?: (row: T) => Record<`data-${string}`, string>;
  /** Columns as wide as their `width` says, whatever their content (long addresses wrap instead of squeezing the others). */
  fixed?: boolean;
}) {
  if (rows.length === 0) return <EmptyState>{empty}</EmptyState>;
  const classes = (c: Column<T>) => [c.className, c.width ? `col-${c.width}` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <table className={fixed ? 'staff-table fixed' : 'staff-table'} role="table">
      <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead role="rowgroup">
        <tr role="row">
          {columns.map((c) => (
            <th key={c.header} scope="col" role="columnheader" className={classes(c)}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody role="rowgroup">
        {rows.map((row) => (
          <tr key={rowKey(row)} role="row" {...(rowAttributes?.(row) ?? {})}>
            {columns.map((c) =>
              c.rowHeader ? (
                <th key={c.header} scope="row" role="rowheader" data-label={c.header} className={c.className}>
                  {c.cell(row)}
                </th>
              ) : (
                <td key={c.header} role="cell" data-label={c.header} className={c.className}>
                  {c.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// ---- Pagination ------------------------------------------------------------------------------

/**
 * Previous and next, and where the reader is: for numbered pages (`pages` known) and for cursors
 * (the audit log's `nextBefore`: no total; label the buttons Newer and Older).
 */
export function Pagination({
  label,
  page,
  pages,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
  previousLabel,
  nextLabel,
  busy = false,
}: {
  label: string;
  page: number;
  pages?: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  previousLabel?: string;
  nextLabel?: string;
  busy?: boolean;
}) {
  const { t } = useTranslation(STAFF_NS);
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav className="staff-pagination" aria-label={t('ui.pagination', { label })}>
      <button type="button" className="secondary" disabled={!hasPrevious || busy} onClick={onPrevious}>
        <span aria-hidden="true">← </span>
        {previousLabel ?? t('ui.previous')}
      </button>
      <span className="muted" aria-live="polite">
        {pages ? t('ui.pageOf', { page, pages }) : t('ui.page', { page })}
      </span>
      <button type="button" className="secondary" disabled={!hasNext || busy} onClick={onNext}>
        {nextLabel ?? t('ui.next')}
        <span aria-hidden="true"> →</span>
      </button>
    </nav>
  );
}

// ---- Dialogs ---------------------------------------------------------------------------------

/**
 * A modal dialog (the platform's <dialog>: the rest of the page inert, Escape closes). Its content
 * is rendered only while open, so a form in it starts afresh. The focus starts on the first
 * control, or the one marked `data-autofocus`; when the dialog closes it goes back to what opened
 * it, or to the page's heading when that is gone (a removed row).
 */
export function Modal({ open, title, onClose, children, className }: { open: boolean; title: string; onClose: () => void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      // The platform focuses the first control; a dialog may name another (data-autofocus).
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      const back = opener.current?.isConnected ? opener.current : document.querySelector<HTMLElement>('main h1');
      back?.focus();
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`staff-dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <h2 id={titleId}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel?: string;
  /** A destructive action: its button is red, and the focus starts on Cancel. */
  danger?: boolean;
}

type Confirm = (options: ConfirmOptions) => Promise<boolean>;

// ---- Notifications ---------------------------------------------------------------------------

export type NoticeKind = 'success' | 'info' | 'error';
/**
 * A notice's words: a string, or a function drawn each time the notices are (in the language of
 * that moment: a notice shown while the reader switches language follows it).
 */
type NoticeText = string | (() => string);
interface Notice {
  id: number;
  kind: NoticeKind;
  text: NoticeText;
}
type Notify = (text: NoticeText, kind?: NoticeKind) => void;

/** How long a success or information stays; errors stay until dismissed. */
const NOTICE_MS = 8000;
const NOTICES_SHOWN = 3;

const UiContext = createContext<{ notify: Notify; confirm: Confirm } | null>(null);

function useUi() {
  const ui = useContext(UiContext);
  if (!ui) throw new Error('the staff UI is used outside StaffUiProvider');
  return ui;
}

/** `notify(text, kind)`: a notification, announced by screen readers (errors at once); `text` may be a function, to follow the language. */
export const useNotify = (): Notify => useUi().notify;
/** `await confirm({ title, body, danger })`: true when the reader confirms. */
export const useConfirm = (): Confirm => useUi().confirm;

/**
 * The console's notifications (two live regions, present from the start so that what is added
 * is announced: polite for news, assertive for errors) and its one confirmation dialog.
 */
export function StaffUiProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation(STAFF_NS);
  const [notices, setNotices] = useState<Notice[]>([]);
  const next = useRef(1);
  const timers = useRef(new Map<number, number>());
  const dismiss = useCallback((id: number) => {
    setNotices((list) => list.filter((n) => n.id !== id));
    const timer = timers.current.get(id);
    if (timer !== undefined) window.clearTimeout(timer);
    timers.current.delete(id);
  }, []);
  const notify = useCallback<Notify>(
    (text, kind = 'success') => {
      const id = next.current++;
      setNotices((list) => [...list, { id, kind, text }].slice(-NOTICES_SHOWN));
      if (kind !== 'error') timers.current.set(id, window.setTimeout(() => dismiss(id), NOTICE_MS));
    },
    [dismiss],
  );
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => window.clearTimeout(timer));
  }, []);

  const [asking, setAsking] = useState<(ConfirmOptions & { resolve: (ok: boolean) => void }) | null>(null);
  const confirm = useCallback<Confirm>((options) => new Promise<boolean>((resolve) => setAsking({ ...options, resolve })), []);
  const answer = (ok: boolean) => {
    asking?.resolve(ok);
    setAsking(null);
  };

  const value = useMemo(() => ({ notify, confirm }), [notify, confirm]);
  const list = (kind: 'polite' | 'assertive') =>
    notices
      .filter((n) => (kind === 'assertive') === (n.kind === 'error'))
      .map((n) => (
        <div key={n.id} className={`staff-toast ${n.kind}`}>
          <p>{typeof n.text === 'function' ? n.text() : n.text}</p>
          <button type="button" className="link" aria-label={t('ui.dismiss')} onClick={() => dismiss(n.id)}>
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ));
  return (
    <UiContext.Provider value={value}>
      {children}
      <div className="staff-toasts" role="region" aria-label={t('ui.notifications')}>
        <div role="status" aria-live="polite" aria-atomic="false">
          {list('polite')}
        </div>
        <div role="alert" aria-live="assertive" aria-atomic="false">
          {list('assertive')}
        </div>
      </div>
      <Modal open={asking !== null} title={asking?.title ?? ''} onClose={() => answer(false)}>
        <div className="staff-dialog-body">{asking?.body}</div>
        <div className="staff-dialog-actions">
          <button type="button" className="secondary" data-autofocus={asking?.danger ? '' : undefined} onClick={() => answer(false)}>
            {t('ui.cancel')}
          </button>
          <button type="button" className={asking?.danger ? 'danger' : undefined} data-autofocus={asking?.danger ? undefined : ''} onClick={() => answer(true)}>
            {asking?.confirmLabel ?? t('ui.confirm')}
          </button>
        </div>
      </Modal>
    </UiContext.Provider>
  );
}

// ---- A section's chunk that fails to load ----------------------------------------------------

/**
 * A section's chunk that cannot be loaded (offline, or a deploy replaced it since the page was
 * opened) is told, with a reload. The console keys it by the section, so another section is tried
 * afresh.
 */
export class SectionBoundary extends Component<{ children: ReactNode; fallback: (error: Error) => ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}
