/**
 * /staff/news: the news sources and their health (GET /admin/sources): the state (new, ok, backing
 * off, failing, disabled), the last poll and success, failures in a row and the last error, the
 * next poll (a back-off or a site's Retry-After shows there), the items seen and the articles made.
 * Add and edit a source (a dialog), disable or enable it, remove it (asked first), and poll it now:
 * the poll runs in the source's workflow, so the row is read again until its last poll changes.
 */
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { failureOf, useStaffResource } from '../api';
import { DataTable, ErrorState, LoadingState, Panel, useConfirm, useFailureText, useNotify, type Column } from '../ui';
import { newsApi, newsPaths, type Source } from './api';
import { Badge, NewsHeader, NS, SOURCE_TONE, useNames, useNumber, When } from './parts';
import { SourceDialog } from './SourceDialog';

/** How often, and how long, a polled source is read again for the poll's result. */
const WATCH_EVERY_MS = 1_500;
const WATCH_FOR_MS = 45_000;
/** The health is read again this often while the page is shown. */
const REFRESH_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

export default function SourcesPage() {
  const { t } = useTranslation(NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const confirm = useConfirm();
  const failureText = useFailureText();
  const list = useStaffResource<Source[]>(newsPaths.sources);
  const { reload } = list;
  // Rows read again one by one (a poll's result) until the next read of the list.
  const [fresh, setFresh] = useState<Map<string, Source>>(new Map());
  const [polling, setPolling] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Source | 'new' | null>(null);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  useEffect(() => setFresh(new Map()), [list.data]);

  // The health moves on its own (pollers run every few minutes): read again while the page is shown.
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  const mark = (set: Dispatch<SetStateAction<Set<string>>>, id: string, on: boolean) =>
    set((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const put = useCallback((s: Source) => setFresh((m) => new Map(m).set(s.id, s)), []);

  const poll = async (s: Source) => {
    mark(setPolling, s.id, true);
    try {
      const before = s.health.lastPollAt;
      put(await newsApi.pollSource(s.id));
      const until = Date.now() + WATCH_FOR_MS;
      let done: Source | null = null;
      while (live.current && Date.now() < until) {
        await sleep(WATCH_EVERY_MS);
        const now = await newsApi.source(s.id);
        put(now);
        if (now.health.lastPollAt !== before) {
          done = now;
          break;
        }
      }
      if (!live.current) return;
      if (!done) notify(t('sources.pollSlow', { name: s.name }), 'info');
      else if (done.health.consecutiveFailures > 0) notify(t('sources.pollFailed', { name: s.name, error: done.health.lastError ?? '' }), 'error');
      else notify(t('sources.polled', { name: s.name, count: done.health.itemsSeen - s.health.itemsSeen }));
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    } finally {
      mark(setPolling, s.id, false);
    }
  };

  const toggle = async (s: Source) => {
    mark(setBusy, s.id, true);
    try {
      const changed = await newsApi.changeSource(s.id, { enabled: !s.enabled });
      put(changed);
      notify(t(changed.enabled ? 'sources.enabledNow' : 'sources.disabledNow', { name: s.name }));
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    } finally {
      mark(setBusy, s.id, false);
    }
  };

  const remove = async (s: Source) => {
    const ok = await confirm({ title: t('sources.removeTitle', { name: s.name }), body: <p>{t('sources.removeBody')}</p>, confirmLabel: t('sources.remove'), danger: true });
    if (!ok) return;
    try {
      await newsApi.removeSource(s.id);
      notify(t('sources.removed', { name: s.name }));
      await reload();
      if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    }
  };

  const rows = (list.data ?? []).map((s) => fresh.get(s.id) ?? s);

  const columns: Column<Source>[] = [
    {
      header: t('sources.source'),
      rowHeader: true,
      width: 22,
      cell: (s) => (
        <>
          <span className="nw-source-name">{s.name}</span>
          <span className="muted small nw-url">{s.feedUrl}</span>
          <span className="muted small nw-block">
            {t('sources.settings', { tier: s.tier, language: names.language(s.language), count: s.pollIntervalMinutes })}
            {s.defaultSector ? ` · ${names.sector(s.defaultSector)}` : ''}
          </span>
        </>
      ),
    },
    {
      header: t('sources.health'),
      width: 20,
      cell: (s) => (
        <>
          <Badge tone={SOURCE_TONE[s.state]}>{names.sourceState(s.state)}</Badge>
          {s.health.consecutiveFailures > 0 ? <span className="nw-block small">{t('sources.failures', { count: s.health.consecutiveFailures })}</span> : null}
          {s.health.lastError ? (
            <span className="nw-block small nw-last-error">
              {t('sources.lastError', { error: s.health.lastError })} <When iso={s.health.lastErrorAt} />
            </span>
          ) : null}
        </>
      ),
    },
    {
      header: t('sources.lastPoll'),
      width: 16,
      cell: (s) => (
        <>
          <When iso={s.health.lastPollAt} relative />
          {s.health.lastPollAt ? (
            <span className="nw-block muted small">
              {t('sources.lastSuccess')} <When iso={s.health.lastSuccessAt} />
            </span>
          ) : null}
        </>
      ),
    },
    {
      header: t('sources.nextPoll'),
      width: 14,
      cell: (s) =>
        !s.enabled ? (
          <span className="muted">{t('sources.notPolled')}</span>
        ) : (
          <>
            {s.state === 'backing-off' || s.state === 'failing' ? <span className="nw-block small">{t('sources.backedOffUntil')}</span> : null}
            <When iso={s.health.nextPollAt} relative none={t('sources.notScheduled')} />
          </>
        ),
    },
    {
      header: t('sources.items'),
      width: 10,
      cell: (s) => (
        <>
          <span className="nw-block">{t('sources.itemsSeen', { count: s.health.itemsSeen, n: number(s.health.itemsSeen) })}</span>
          <span className="nw-block muted small">{t('sources.articlesCreated', { count: s.health.articlesCreated, n: number(s.health.articlesCreated) })}</span>
        </>
      ),
    },
    {
      header: t('sources.actions'),
      className: 'actions',
      width: 18,
      cell: (s) => {
        const isPolling = polling.has(s.id);
        return (
          <div className="staff-actions">
            <button type="button" onClick={() => void poll(s)} disabled={!s.enabled || isPolling}>
              {isPolling ? t('sources.polling') : t('sources.poll')}
              <span className="visually-hidden"> {s.name}</span>
            </button>
            <button type="button" className="secondary" onClick={() => setEditing(s)}>
              {t('sources.edit')}
              <span className="visually-hidden"> {s.name}</span>
            </button>
            <button type="button" className="secondary" onClick={() => void toggle(s)} disabled={busy.has(s.id)}>
              {s.enabled ? t('sources.disable') : t('sources.enable')}
              <span className="visually-hidden"> {s.name}</span>
            </button>
            <button type="button" className="secondary danger-outline" onClick={() => void remove(s)}>
              {t('sources.remove')}
              <span className="visually-hidden"> {s.name}</span>
            </button>
            <Link className="nw-row-link" to={`/staff/news/articles?sourceId=${encodeURIComponent(s.id)}`}>
              {t('sources.articles')}
              <span className="visually-hidden"> {t('sources.of', { name: s.name })}</span>
            </Link>
          </div>
        );
      },
    },
  ];

  return (
    <>
      <NewsHeader
        title={t('sources.title')}
        lead={t('sources.lead')}
        actions={
          <button type="button" onClick={() => setEditing('new')}>
            {t('sources.add')}
          </button>
        }
      />
      <Panel
        title={t('sources.listTitle')}
        actions={
          <>
            {list.data ? <span className="muted">{t('sources.count', { count: list.data.length })}</span> : null}
            <button type="button" className="secondary" onClick={() => void reload()} disabled={list.loading}>
              {t('common.refresh')}
            </button>
          </>
        }
      >
        {list.failure ? (
          <ErrorState failure={list.failure} onRetry={() => void reload()} />
        ) : !list.data ? (
          <LoadingState />
        ) : (
          <DataTable fixed caption={t('sources.caption')} columns={columns} rows={rows} rowKey={(s) => s.id} empty={t('sources.none')} rowAttributes={(s) => ({ 'data-source': s.id, 'data-state': s.state })} />
        )}
      </Panel>
      <SourceDialog
        source={editing}
        onClose={() => setEditing(null)}
        onSaved={(saved, added) => {
          setEditing(null);
          notify(t(added ? 'sources.form.added' : 'sources.form.saved', { name: saved.name }));
          void reload();
        }}
        onUnchanged={() => {
          setEditing(null);
          notify(t('common.unchanged'), 'info');
        }}
      />
    </>
  );
}
