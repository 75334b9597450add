/**
 * /staff/support: the queue. Views (mine, unassigned, open, pending, all) with their counts, the
 * facets (newsletter, issue, tag: active tickets each), search and status, 50 tickets a page with
 * page numbers. The filters live in the address (?view=…&page=…), so a ticket's "back" and the
 * browser's history return to the same page of the same view. Live: rows change as the stream
 * says (status, assignee, tags, a new message), who is on each ticket shows under its subject,
 * new tickets are offered, and the counts are read again (debounced). Keyboard: j/k, Enter, x, r,
 * e, a, / and ? (./shortcuts.tsx). Rows are selected for bulk actions (./bulk.tsx).
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { QUEUE_VIEWS, TICKET_ISSUES, TICKET_STATUSES } from '../../../../models/support/ticket.rules';
import { useSession } from '../../session';
import { useStaff } from '../access';
import { failureOf, type Failure } from '../api';
import { Address, ErrorState, LoadingState, PageHeader, QueryLink, queryNow, useFailureText, useNotify } from '../ui';
import { supportApi, type BulkSelection, type Page, type PresencePerson, type QueueCounts, type QueueFilter, type QueueView, type ReportFilters, type Tag, type Ticket, type TicketStatus } from './api';
import { BulkProgress, BulkToolbar, useBulk } from './bulk';
import { useLiveEvents, type TicketEvent } from './live';
import { LiveBadge } from './LiveBadge';
import { nameOf, NS, PresenceList, StatusBadge, TagChip, When } from './parts';
import { ShortcutsButton, useShortcuts } from './shortcuts';

const ACTIVE: readonly TicketStatus[] = ['open', 'in_progress'];
/** Wider than a phone (support.css's breakpoint): the filters are shown unfolded. */
const WIDE = '(min-width: 721px)';

/** The queue's filters from the address; unknown values are left out. */
function filterOf(params: URLSearchParams): QueueFilter {
  const view = params.get('view');
  const status = params.get('status');
  const tag = Number(params.get('tag'));
  const q = params.get('q')?.trim();
  return {
    view: (QUEUE_VIEWS as readonly string[]).includes(view ?? '') ? (view as QueueView) : 'mine',
    status: (TICKET_STATUSES as readonly string[]).includes(status ?? '') ? (status as TicketStatus) : undefined,
    newsletter: params.get('newsletter') || undefined,
    issue: params.get('issue') || undefined,
    tag: Number.isInteger(tag) && tag > 0 ? tag : undefined,
    q: q && q.length >= 2 ? q : undefined,
    assignee: params.get('assignee')?.trim() || undefined,
  };
}

const pageOf = (params: URLSearchParams): number => {
  const n = Number(params.get('page'));
  return Number.isInteger(n) && n > 1 ? n : 1;
};

/** The address's query string for a filter and page (the default view and page 1 left out). */
function searchOf(filter: QueueFilter, page = 1): string {
  const p = new URLSearchParams();
  if (filter.view !== 'mine') p.set('view', filter.view);
  for (const k of ['status', 'newsletter', 'issue', 'tag', 'q', 'assignee'] as const) {
    const v = filter[k];
    if (v !== undefined && v !== '') p.set(k, String(v));
  }
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Whether a ticket still belongs to the view (after a live change); newsletter, issue and search do not change live. */
function inView(row: Ticket, f: QueueFilter, me: string): boolean {
  const active = ACTIVE.includes(row.status);
  const mine = row.assignee?.toLowerCase() === me.toLowerCase();
  const byView = { mine: active && mine, unassigned: active && row.assignee === null, open: row.status === 'open', pending: row.status === 'in_progress', all: true }[f.view];
  if (!byView) return false;
  if (f.status ? row.status !== f.status : f.view === 'all' && row.status === 'deleted') return false;
  if (f.tag !== undefined && !row.tags.some((t) => t.id === f.tag)) return false;
  if (f.assignee && row.assignee?.toLowerCase() !== f.assignee.toLowerCase()) return false;
  return true;
}

/** Blanks for a ticket known only from a live event (the fields inView reads are filled in). */
const NO_TAG: Tag = { id: 0, name: '', color: '#000000', isDefault: false };
const NO_TICKET: Ticket = { id: 0, main: '', issue: '', description: '', status: 'open', email: '', newsletter: null, wantReply: false, replied: null, createdAt: '', updatedAt: '', deletedAt: null, assignee: null, tags: [] };

const isInteractive = (target: EventTarget | null) => target instanceof Element && target.closest('a, button, input, select, textarea, summary, label') !== null;

export default function QueuePage() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation('staff');
  const { me, can } = useStaff();
  const manager = can('support.manager');
  const { refresh } = useSession();
  const notify = useNotify();
  const failureText = useFailureText();
  const navigate = useNavigate();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const filter = useMemo(() => filterOf(params), [params]);
  const page = pageOf(params);
  const filterKey = JSON.stringify(filter);
  const bulk = useBulk();
  const ids = useId();

  // ---- The page of tickets ----
  const [list, setList] = useState<Page<Ticket> | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(true);
  const listRef = useRef<Page<Ticket> | null>(null);
  listRef.current = list;
  const loadedAt = useRef(Date.now());
  const latest = useRef(0);
  /** The filter and page of the list shown: until the current one's answer comes, the list is busy. */
  const [shownKey, setShownKey] = useState<string | null>(null);
  const load = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const answer = await supportApi.list(JSON.parse(filterKey) as QueueFilter, page);
      if (mine !== latest.current) return;
      loadedAt.current = answer.servedAt;
      setList(answer);
      setShownKey(`${filterKey}|${page}`);
      setFailure(null);
      setIncoming(new Set());
    } catch (err) {
      if (mine !== latest.current) return;
      const f = failureOf(err);
      setFailure(f);
      if (f.kind === 'signedOut') await refresh();
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, [filterKey, page, refresh]);
  useEffect(() => {
    void load();
  }, [load]);

  // ---- Counts, tags, the managers' lists ----
  const [counts, setCounts] = useState<QueueCounts | null>(null);
  const loadCounts = useCallback(async () => {
    try {
      setCounts(await supportApi.counts());
    } catch {
      // the tabs show no numbers until the next read
    }
  }, []);
  const countsTimer = useRef<number | undefined>(undefined);
  const countsDue = useRef(0);
  /** Counts are read again 1.5 s after the last change, and at least every 5 s while changes keep coming. */
  const refreshCounts = useCallback(() => {
    const now = Date.now();
    if (!countsDue.current) countsDue.current = now + 5_000;
    window.clearTimeout(countsTimer.current);
    countsTimer.current = window.setTimeout(
      () => {
        countsDue.current = 0;
        void loadCounts();
      },
      Math.max(0, Math.min(1_500, countsDue.current - now)),
    );
  }, [loadCounts]);
  useEffect(() => () => window.clearTimeout(countsTimer.current), []);

  const [tags, setTags] = useState<Tag[]>([]);
  const tagsRef = useRef(tags);
  tagsRef.current = tags;
  const [reportFilters, setReportFilters] = useState<ReportFilters | null>(null);
  useEffect(() => {
    void loadCounts();
    supportApi.tags().then(setTags, () => undefined);
    // Every newsletter and category: the reports' filters, a manager's only (an agent would be answered 403).
    if (manager) supportApi.reportFilters().then(setReportFilters, () => undefined);
  }, [loadCounts, manager]);

  // A bulk operation ended: what it changed is read again.
  const finished = useRef(bulk.finished);
  useEffect(() => {
    if (bulk.finished === finished.current) return;
    finished.current = bulk.finished;
    void load();
    void loadCounts();
  }, [bulk.finished, load, loadCounts]);

  // ---- Live ----
  const [presence, setPresence] = useState<Map<number, PresencePerson[]>>(() => new Map());
  const [marked, setMarked] = useState<Set<number>>(() => new Set());
  const [incoming, setIncoming] = useState<Set<number>>(() => new Set());
  const [said, setSaid] = useState('');
  const pendingNews = useRef<string[]>([]);
  const newsTimer = useRef<number | undefined>(undefined);
  /** Live changes are announced politely, a few together at most every 2 s. */
  const announce = useCallback((text: string) => {
    pendingNews.current.push(text);
    if (newsTimer.current !== undefined) return;
    newsTimer.current = window.setTimeout(() => {
      newsTimer.current = undefined;
      const news = pendingNews.current.splice(0);
      setSaid(news.length > 3 ? `${news.slice(0, 3).join('. ')}. ${t('live.andMore', { count: news.length - 3 })}` : news.join('. '));
    }, 2_000);
  }, [t]);
  useEffect(() => () => window.clearTimeout(newsTimer.current), []);

  const onTicket = (e: TicketEvent) => {
    refreshCounts();
    const current = listRef.current;
    if (!current) return;
    const row = current.items.find((r) => r.id === e.id);
    if (row) {
      const changes: string[] = [];
      if (row.status !== e.status) changes.push(t('live.nowStatus', { status: t(`status.${e.status}`) }));
      const assignee = e.assignee === undefined ? row.assignee : e.assignee;
      if (assignee !== row.assignee) changes.push(assignee ? t('live.nowAssigned', { name: nameOf(assignee) }) : t('live.nowUnassigned'));
      const newMessage = e.lastMessageAt !== null && Date.parse(e.lastMessageAt) > loadedAt.current && !marked.has(e.id);
      if (newMessage) {
        changes.push(t('live.newMessage'));
        setMarked((m) => new Set(m).add(e.id));
      }
      const byId = new Map(tagsRef.current.map((tag) => [tag.id, tag]));
      const tagsNow = e.tags.map((id) => byId.get(id) ?? row.tags.find((tag) => tag.id === id)).filter((tag): tag is Tag => tag !== undefined);
      setList((l) => l && { ...l, items: l.items.map((r) => (r.id === e.id ? { ...r, status: e.status, assignee, updatedAt: e.updatedAt, tags: tagsNow } : r)) });
      if (changes.length) announce(t('live.ticketChanged', { id: e.id, changes: changes.join(', ') }));
    } else if (
      page === 1 &&
      Date.parse(e.updatedAt) > loadedAt.current &&
      e.id > Math.max(0, ...current.items.map((r) => r.id)) &&
      !incoming.has(e.id) &&
      inView({ ...NO_TICKET, id: e.id, status: e.status, assignee: e.assignee ?? null, tags: e.tags.map((id) => ({ ...NO_TAG, id })) }, filter, me.email)
    ) {
      // A ticket newer than every one shown, changed since the page was read, that may be in the
      // view (its newsletter, issue and text are not in the event): offered, not inserted.
      setIncoming((s) => new Set(s).add(e.id));
      announce(t('live.incoming', { id: e.id }));
    }
  };
  const live = useLiveEvents(undefined, {
    ticket: onTicket,
    presence: (p) =>
      setPresence((m) => {
        const next = new Map(m);
        if (p.people.length) next.set(p.ticketId, p.people);
        else next.delete(p.ticketId);
        return next;
      }),
    reset: () => {
      void load();
      void loadCounts();
    },
  });

  // ---- Selection ----
  const [selected, setSelected] = useState<Set<number>>(() => new Set());
  const [wholeView, setWholeView] = useState(false);
  useEffect(() => {
    setSelected(new Set());
    setWholeView(false);
  }, [filterKey]);
  const rows = useMemo(() => list?.items ?? [], [list]);
  const total = list?.total ?? 0;
  const pageIds = rows.map((r) => r.id);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => wholeView || selected.has(id));
  const someOnPage = pageIds.some((id) => wholeView || selected.has(id));
  const selectedCount = wholeView ? total : selected.size;
  const toggle = (id: number) => {
    if (wholeView) {
      setWholeView(false);
      setSelected(new Set(pageIds.filter((x) => x !== id)));
      return;
    }
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  };
  const togglePage = () => {
    if (allOnPage) {
      setWholeView(false);
      setSelected((s) => new Set([...s].filter((id) => !pageIds.includes(id))));
    } else setSelected((s) => new Set([...s, ...pageIds]));
  };
  const clearSelection = () => {
    setSelected(new Set());
    setWholeView(false);
  };
  const selection = (): BulkSelection => {
    if (!wholeView) return { ticketIds: [...selected] };
    const f: QueueFilter = { view: filter.view };
    for (const k of ['status', 'newsletter', 'issue', 'tag', 'q', 'assignee'] as const) if (filter[k] !== undefined) Object.assign(f, { [k]: filter[k] });
    return { filter: f };
  };

  // ---- The focused row (j/k) and the row actions (r, e, a) ----
  const [cursor, setCursor] = useState(-1);
  const table = useRef<HTMLTableElement>(null);
  const focusRow = useCallback((i: number) => {
    const link = table.current?.querySelector<HTMLElement>(`tr[data-index="${i}"] .sd-subject-link`);
    link?.focus();
    link?.closest('tr')?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  // Back from a ticket: the focus goes to its row (location state), else stays with the page's heading.
  const backTo = (location.state as { focusTicket?: number } | null)?.focusTicket;
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current || !backTo || !list) return;
    restored.current = true;
    const i = list.items.findIndex((r) => r.id === backTo);
    if (i >= 0) {
      setCursor(i);
      window.setTimeout(() => focusRow(i), 0);
    }
  }, [backTo, list, focusRow]);
  useEffect(() => setCursor(-1), [filterKey, page]);

  const unmark = (id: number) =>
    setMarked((m) => {
      if (!m.has(id)) return m;
      const next = new Set(m);
      next.delete(id);
      return next;
    });
  const open = (row: Ticket, reply = false) => {
    unmark(row.id);
    void navigate(String(row.id), { state: { from: location.search, reply } });
  };
  const patchRow = (id: number, patch: Partial<Ticket>) => setList((l) => l && { ...l, items: l.items.map((r) => (r.id === id ? { ...r, ...patch } : r)) });
  const resolve = async (row: Ticket) => {
    if (row.status === 'resolved') {
      notify(t('actions.alreadyResolved', { id: row.id }), 'info');
      return;
    }
    try {
      const updated = await supportApi.setStatus(row.id, 'resolved');
      patchRow(row.id, { status: updated.status, updatedAt: updated.updatedAt });
      notify(t('actions.resolved', { id: row.id }));
      refreshCounts();
    } catch (err) {
      notify(t('actions.failed', { id: row.id, reason: failureText(failureOf(err)) }), 'error');
    }
  };
  const take = async (row: Ticket) => {
    if (row.assignee?.toLowerCase() === me.email.toLowerCase()) {
      notify(t('actions.alreadyYours', { id: row.id }), 'info');
      return;
    }
    try {
      const updated = await supportApi.assign(row.id, me.email);
      patchRow(row.id, { assignee: updated.assignee, updatedAt: updated.updatedAt });
      notify(t('actions.taken', { id: row.id }));
      refreshCounts();
    } catch (err) {
      const f = failureOf(err);
      const holder = typeof f.details.assignee === 'string' ? f.details.assignee : null;
      notify(holder ? t('assign.someoneElse', { id: row.id, email: holder }) : t('actions.failed', { id: row.id, reason: failureText(f) }), 'error');
      if (holder) patchRow(row.id, { assignee: holder });
    }
  };
  const search = useRef<HTMLInputElement>(null);
  const cursorRow = cursor >= 0 ? rows[cursor] : undefined;
  const move = (step: number) => {
    if (!rows.length) return;
    const next = cursor < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, cursor + step));
    setCursor(next);
    focusRow(next);
  };
  const needRow = (then: (row: Ticket) => void) => () => {
    if (cursorRow) then(cursorRow);
    else notify(t('keys.noRow'), 'info');
  };
  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    Enter: (e) => {
      if (isInteractive(e.target) || !cursorRow) return false;
      open(cursorRow);
    },
    x: needRow((row) => toggle(row.id)),
    r: needRow((row) => open(row, true)),
    e: needRow((row) => void resolve(row)),
    a: needRow((row) => void take(row)),
    '/': () => search.current?.focus(),
  });

  // ---- Filters ----
  // From the address as it is now: two filters changed in a row must not put the first one back.
  const setFilter = (patch: Partial<QueueFilter>) => setParams(new URLSearchParams(searchOf({ ...filterOf(queryNow()), ...patch })));
  const [q, setQ] = useState(filter.q ?? '');
  const [qProblem, setQProblem] = useState(false);
  useEffect(() => setQ(filter.q ?? ''), [filter.q]);
  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    const text = q.trim();
    if (text.length === 1) {
      setQProblem(true);
      return;
    }
    setQProblem(false);
    setFilter({ q: text || undefined });
  };
  const [assignee, setAssignee] = useState(filter.assignee ?? '');
  useEffect(() => setAssignee(filter.assignee ?? ''), [filter.assignee]);

  const newsletterOptions = useMemo(() => {
    const seen = new Map<string, number | undefined>((counts?.newsletters ?? []).map((n) => [n.value, n.count]));
    for (const n of reportFilters?.newsletters ?? []) if (!seen.has(n)) seen.set(n, undefined);
    if (filter.newsletter && !seen.has(filter.newsletter)) seen.set(filter.newsletter, undefined);
    return [...seen].sort((a, b) => a[0].localeCompare(b[0]));
  }, [counts, reportFilters, filter.newsletter]);
  const issueOptions = useMemo(() => {
    const seen = new Map<string, number | undefined>((counts?.issues ?? []).map((n) => [n.value, n.count]));
    for (const i of [...TICKET_ISSUES, ...(reportFilters?.categorias.flatMap((c) => c.issues) ?? [])]) if (!seen.has(i)) seen.set(i, undefined);
    if (filter.issue && !seen.has(filter.issue)) seen.set(filter.issue, undefined);
    return [...seen];
  }, [counts, reportFilters, filter.issue]);
  const tagCounts = useMemo(() => new Map((counts?.tags ?? []).map((c) => [c.id, c.count])), [counts]);
  const withCount = (label: string, count: number | undefined) => (count === undefined ? label : t('filters.withCount', { label, count }));
  const filtered = filter.status || filter.newsletter || filter.issue || filter.tag || filter.q || filter.assignee;
  const activeFilters = [filter.status, filter.newsletter, filter.issue, filter.tag, filter.assignee].filter((v) => v !== undefined).length;
  // The filters are folded on a phone (the search stays), open on a wider screen.
  const [filtersOpen, setFiltersOpen] = useState(() => typeof window.matchMedia !== 'function' || window.matchMedia(WIDE).matches);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const wide = window.matchMedia(WIDE);
    const follow = () => {
      if (wide.matches) setFiltersOpen(true);
    };
    wide.addEventListener('change', follow);
    return () => wide.removeEventListener('change', follow);
  }, []);

  // ---- Pages ----
  const listHeading = useRef<HTMLHeadingElement>(null);
  const goToPage = (n: number) => {
    setParams(new URLSearchParams(searchOf(filterOf(queryNow()), n)));
    listHeading.current?.focus();
  };

  const viewName = t(`views.${filter.view}`);
  return (
    <>
      <PageHeader
        title={t('title')}
        lead={t('queue.lead')}
        actions={
          <>
            <LiveBadge status={live} />
            <ShortcutsButton />
          </>
        }
      />
      <nav className="sd-views" aria-label={t('views.label')}>
        <ul>
          {QUEUE_VIEWS.map((v) => (
            <li key={v}>
              <QueryLink query={(now) => searchOf({ ...filterOf(now), view: v })} aria-current={v === filter.view ? 'page' : undefined} data-view={v}>
                <span className="sd-view-name">{t(`views.${v}`)}</span>
                <span className="sd-count" data-testid={`count-${v}`}>
                  <span className="visually-hidden">{', '}</span>
                  {counts ? counts[v] : '…'}
                  <span className="visually-hidden">{` ${t('views.tickets', { count: counts?.[v] ?? 0 })}`}</span>
                </span>
              </QueryLink>
            </li>
          ))}
        </ul>
      </nav>

      <div className="sd-filters card">
        <form role="search" className="sd-search" onSubmit={submitSearch} aria-label={t('filters.searchLabel')}>
          <label htmlFor={`${ids}-q`}>{t('filters.search')}</label>
          <div className="row sd-search-row">
            <input
              id={`${ids}-q`}
              ref={search}
              type="search"
              value={q}
              onChange={(e) => setQ(e.target.value)}
              aria-describedby={qProblem ? `${ids}-qerr` : undefined}
              aria-invalid={qProblem || undefined}
            />
            <button type="submit" className="secondary">
              {t('filters.searchButton')}
            </button>
          </div>
          {qProblem ? (
            <p id={`${ids}-qerr`} className="error small">
              {t('filters.searchTooShort')}
            </p>
          ) : null}
        </form>
        {filtered ? (
          <button type="button" className="link sd-clear" onClick={() => setParams(new URLSearchParams(searchOf({ view: filterOf(queryNow()).view })))}>
            {t('filters.clear')}
          </button>
        ) : null}
        <details className="sd-more" open={filtersOpen} onToggle={(e) => setFiltersOpen(e.currentTarget.open)}>
          <summary>{activeFilters ? t('filters.moreActive', { count: activeFilters }) : t('filters.more')}</summary>
          <div className="sd-more-grid">
        <div className="staff-field">
          <label htmlFor={`${ids}-status`}>{t('filters.status')}</label>
          <select id={`${ids}-status`} value={filter.status ?? ''} onChange={(e) => setFilter({ status: (e.target.value || undefined) as TicketStatus | undefined })}>
            <option value="">{t('filters.anyStatus')}</option>
            {TICKET_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="staff-field">
          <label htmlFor={`${ids}-newsletter`}>{t('filters.newsletter')}</label>
          <select id={`${ids}-newsletter`} value={filter.newsletter ?? ''} onChange={(e) => setFilter({ newsletter: e.target.value || undefined })}>
            <option value="">{t('filters.anyNewsletter')}</option>
            {newsletterOptions.map(([value, count]) => (
              <option key={value} value={value}>
                {withCount(value, count)}
              </option>
            ))}
          </select>
        </div>
        <div className="staff-field">
          <label htmlFor={`${ids}-issue`}>{t('filters.issue')}</label>
          <select id={`${ids}-issue`} value={filter.issue ?? ''} onChange={(e) => setFilter({ issue: e.target.value || undefined })}>
            <option value="">{t('filters.anyIssue')}</option>
            {issueOptions.map(([value, count]) => (
              <option key={value} value={value}>
                {withCount(value, count)}
              </option>
            ))}
          </select>
        </div>
        <div className="staff-field">
          <label htmlFor={`${ids}-tag`}>{t('filters.tag')}</label>
          <select id={`${ids}-tag`} value={filter.tag ?? ''} onChange={(e) => setFilter({ tag: e.target.value ? Number(e.target.value) : undefined })}>
            <option value="">{t('filters.anyTag')}</option>
            {tags.map((tag) => (
              <option key={tag.id} value={tag.id}>
                {withCount(tag.name, tagCounts.get(tag.id) ?? 0)}
              </option>
            ))}
          </select>
        </div>
        <form
          className="staff-field sd-assignee-filter"
          onSubmit={(e) => {
            e.preventDefault();
            setFilter({ assignee: assignee.trim() || undefined });
          }}
        >
          <label htmlFor={`${ids}-assignee`}>{t('filters.assignee')}</label>
          <div className="row sd-search-row">
            <input id={`${ids}-assignee`} type="email" autoComplete="off" value={assignee} onChange={(e) => setAssignee(e.target.value)} />
            <button type="submit" className="secondary">
              {t('filters.apply')}
            </button>
          </div>
        </form>
        <p className="muted small sd-facet-help">{t('filters.countsHelp')}</p>
          </div>
        </details>
      </div>

      <BulkProgress />

      <section className="sd-list" aria-labelledby={`${ids}-list`}>
        <div className="sd-list-head">
          <h2 id={`${ids}-list`} ref={listHeading} tabIndex={-1}>
            {list ? t('queue.heading', { view: viewName, count: total }) : viewName}
          </h2>
          {incoming.size > 0 ? (
            <button type="button" className="secondary sd-incoming" onClick={() => void load()}>
              {t('queue.showIncoming', { count: incoming.size })}
            </button>
          ) : null}
          {loading && list ? <span className="muted small">{shell('ui.loading')}</span> : null}
        </div>
        <div role="status" aria-live="polite" className="visually-hidden" data-testid="queue-news">
          {said}
        </div>

        {list && rows.length > 0 && (selectedCount > 0 || wholeView) ? (
          <BulkToolbar count={selectedCount} selection={selection} tags={tags} onStarted={clearSelection} onClear={clearSelection} />
        ) : null}
        {list && allOnPage && !wholeView && total > rows.length ? (
          <p className="sd-whole-view">
            {t('bulk.pageSelected', { count: rows.length })}{' '}
            <button type="button" className="link" onClick={() => setWholeView(true)}>
              {t('bulk.selectView', { count: total })}
            </button>
          </p>
        ) : null}
        {wholeView ? (
          <p className="sd-whole-view">
            <strong>{t('bulk.viewSelected', { count: total })}</strong>{' '}
            <button type="button" className="link" onClick={clearSelection}>
              {t('bulk.clear')}
            </button>
          </p>
        ) : null}

        {failure ? (
          <ErrorState failure={failure} onRetry={() => void load()} />
        ) : !list ? (
          <LoadingState />
        ) : rows.length === 0 ? (
          <EmptyQueue view={filter.view} filtered={Boolean(filtered)} counts={counts} to={(v) => (now) => searchOf({ ...filterOf(now), view: v })} />
        ) : (
          <table ref={table} className="sd-queue" role="table" aria-describedby={`${ids}-keys`} aria-busy={loading || shownKey !== `${filterKey}|${page}`}>
            <caption className="visually-hidden">{t('queue.caption', { view: viewName, page: list.page, pages: Math.max(1, list.totalPages) })}</caption>
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader" className="sd-col-select" data-label={t('queue.selectPageShort')}>
                  <input
                    type="checkbox"
                    aria-label={t('queue.selectPage')}
                    checked={allOnPage}
                    ref={(el) => {
                      if (el) el.indeterminate = someOnPage && !allOnPage;
                    }}
                    onChange={togglePage}
                  />
                </th>
                <th scope="col" role="columnheader" className="sd-col-num">
                  {t('queue.number')}
                </th>
                <th scope="col" role="columnheader" className="sd-col-subject">
                  {t('queue.subject')}
                </th>
                <th scope="col" role="columnheader" className="sd-col-requester">
                  {t('queue.requester')}
                </th>
                <th scope="col" role="columnheader" className="sd-col-status">
                  {t('queue.status')}
                </th>
                <th scope="col" role="columnheader" className="sd-col-assignee">
                  {t('queue.assignee')}
                </th>
                <th scope="col" role="columnheader" className="sd-col-updated">
                  {t('queue.updated')}
                </th>
              </tr>
            </thead>
            <tbody
              role="rowgroup"
              onFocus={(e) => {
                const i = Number((e.target as Element).closest('tr')?.getAttribute('data-index'));
                if (Number.isInteger(i)) setCursor(i);
              }}
            >
              {rows.map((row, i) => {
                const checked = wholeView || selected.has(row.id);
                const gone = !inView(row, filter, me.email);
                return (
                  <tr
                    key={row.id}
                    role="row"
                    data-index={i}
                    data-ticket={row.id}
                    className={[i === cursor ? 'is-cursor' : '', checked ? 'is-selected' : '', gone ? 'is-gone' : ''].filter(Boolean).join(' ') || undefined}
                  >
                    <td role="cell" className="sd-select">
                      <input type="checkbox" checked={checked} onChange={() => toggle(row.id)} aria-label={t('queue.select', { id: row.id })} />
                    </td>
                    <th scope="row" role="rowheader" className="sd-num">
                      #{row.id}
                    </th>
                    <td role="cell" className="sd-subject">
                      <Link className="sd-subject-link" to={String(row.id)} state={{ from: location.search }} onClick={() => unmark(row.id)}>
                        {row.issue}
                      </Link>
                      {marked.has(row.id) ? <span className="sd-new">{t('queue.newMessage')}</span> : null}
                      {gone ? <span className="sd-gone">{t('queue.leftView')}</span> : null}
                      <span className="sd-snippet">{row.description}</span>
                      {row.tags.length ? (
                        <span className="sd-tags">
                          <span className="visually-hidden">{t('tags.label')}: </span>
                          {row.tags.map((tag) => (
                            <TagChip key={tag.id} tag={tag} />
                          ))}
                        </span>
                      ) : null}
                      <PresenceList people={presence.get(row.id) ?? []} me={me.email} compact />
                    </td>
                    <td role="cell" className="sd-requester" data-label={t('queue.requester')}>
                      <Address email={row.email} />
                      {row.newsletter ? <span className="muted small sd-newsletter">{row.newsletter}</span> : null}
                    </td>
                    <td role="cell" className="sd-status-cell" data-label={t('queue.status')}>
                      <StatusBadge status={row.status} />
                    </td>
                    <td role="cell" className="sd-assignee" data-label={t('queue.assignee')}>
                      {row.assignee ? row.assignee.toLowerCase() === me.email.toLowerCase() ? <strong>{t('queue.you')}</strong> : <Address email={row.assignee} /> : <span className="muted">{t('queue.nobody')}</span>}
                    </td>
                    <td role="cell" className="sd-updated" data-label={t('queue.updated')}>
                      <When iso={row.updatedAt} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <p id={`${ids}-keys`} className="muted small sd-keys-hint">
          {t('queue.keysHint')}
        </p>
        {list && list.totalPages > 1 ? <Pages page={list.page} pages={list.totalPages} label={viewName} onPage={goToPage} /> : null}
      </section>
    </>
  );
}

function EmptyQueue({ view, filtered, counts, to }: { view: QueueView; filtered: boolean; counts: QueueCounts | null; to: (v: QueueView) => (now: URLSearchParams) => string }) {
  const { t } = useTranslation(NS);
  if (filtered) return <p className="staff-empty">{t('queue.emptyFiltered')}</p>;
  if (view === 'mine')
    return (
      <p className="staff-empty">
        {t('queue.emptyMine')} {counts && counts.unassigned > 0 ? <QueryLink query={to('unassigned')}>{t('queue.seeUnassigned', { count: counts.unassigned })}</QueryLink> : null}
      </p>
    );
  return <p className="staff-empty">{t('queue.empty')}</p>;
}

/** Numbered pages: the first, the last, and two on either side of the current, with gaps between. */
function Pages({ page, pages, label, onPage }: { page: number; pages: number; label: string; onPage: (n: number) => void }) {
  const { t } = useTranslation(NS);
  const shown = [...new Set([1, page - 2, page - 1, page, page + 1, page + 2, pages])].filter((n) => n >= 1 && n <= pages).sort((a, b) => a - b);
  const items: (number | 'gap')[] = [];
  shown.forEach((n, i) => {
    if (i > 0 && n - shown[i - 1]! > 1) items.push('gap');
    items.push(n);
  });
  return (
    <nav className="sd-pages" aria-label={t('pages.label', { label })}>
      <ul>
        <li>
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
            <span aria-hidden="true">← </span>
            {t('pages.previous')}
          </button>
        </li>
        {items.map((n, i) =>
          n === 'gap' ? (
            <li key={`gap-${i}`} aria-hidden="true" className="sd-gap">
              …
            </li>
          ) : (
            <li key={n}>
              <button type="button" className={n === page ? 'sd-page current' : 'secondary sd-page'} aria-current={n === page ? 'page' : undefined} aria-label={t('pages.page', { page: n })} onClick={() => onPage(n)}>
                {n}
              </button>
            </li>
          ),
        )}
        <li>
          <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
            {t('pages.next')}
            <span aria-hidden="true"> →</span>
          </button>
        </li>
      </ul>
    </nav>
  );
}
