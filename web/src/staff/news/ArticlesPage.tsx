/**
 * /staff/news/articles: every article in the pipeline, newest first (GET /admin/articles): items
 * waiting for their enrichment (pending, or waiting for the day's token budget) or failed at it
 * (with the reason), published articles (enriched, imported), hidden ones. Filtered by state and
 * source, 20 a page; the filters and the page live in the address (?state=…&sourceId=…&page=…), so
 * an article's "back" and the browser's history return to the same page.
 */
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { EDITORIAL_OFFSET_MAX, EDITORIAL_STATES } from '../../../../models/news/editorial.rules';
import { useStaffResource } from '../api';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Pagination, queryNow, type Column } from '../ui';
import { newsApi, newsPaths, PAGE_SIZE, usePage, type EditorialArticle, type EditorialState, type Source } from './api';
import { Badge, NewsHeader, NS, STATE_TONE, useNames, useNumber, When } from './parts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The last page the API reaches (its offset is bounded: narrow the list with a state or a source). */
const LAST_PAGE = Math.floor(EDITORIAL_OFFSET_MAX / PAGE_SIZE) + 1;

/** The list's filters and page, from the address's query. */
function filtersOf(params: URLSearchParams): { state?: EditorialState; sourceId?: string; pageNo: number } {
  const rawState = params.get('state');
  const rawSource = params.get('sourceId');
  return {
    state: (EDITORIAL_STATES as readonly string[]).includes(rawState ?? '') ? (rawState as EditorialState) : undefined,
    sourceId: rawSource && UUID.test(rawSource) ? rawSource.toLowerCase() : undefined,
    pageNo: Math.min(LAST_PAGE, Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1)),
  };
}

export default function ArticlesPage() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const names = useNames();
  const number = useNumber();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const { state, sourceId, pageNo } = filtersOf(params);
  const sources = useStaffResource<Source[]>(newsPaths.sources);
  const list = usePage(() => newsApi.articles({ state, sourceId, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }), `${state}|${sourceId}|${pageNo}`);

  const go = (next: { state?: EditorialState | undefined; sourceId?: string | undefined; page?: number }) => {
    const p = new URLSearchParams();
    if (next.state) p.set('state', next.state);
    if (next.sourceId) p.set('sourceId', next.sourceId);
    if (next.page && next.page > 1) p.set('page', String(next.page));
    setParams(p);
  };

  // After a turn of the page the focus goes to the list's heading (the button pressed may be disabled now).
  const turned = useRef(false);
  useEffect(() => {
    if (turned.current && !list.loading) {
      turned.current = false;
      document.getElementById(`${id}-list`)?.focus();
    }
  }, [list.loading, id]);

  const sourceName = (a: EditorialArticle) => a.sourceName ?? (a.sourceId ? sources.data?.find((s) => s.id === a.sourceId)?.name : null) ?? t('articles.imported');

  const columns: Column<EditorialArticle>[] = [
    {
      header: t('articles.article'),
      rowHeader: true,
      width: 35,
      cell: (a) => (
        <>
          <Link to={`/staff/news/articles/${a.id}`} state={{ back: params.size ? `?${params.toString()}` : '' }} className="nw-title-link">
            {a.title}
          </Link>
          <span className="nw-block muted small">{sourceName(a)}</span>
        </>
      ),
    },
    { header: t('articles.published'), width: 14, cell: (a) => <When iso={a.publishedAt} /> },
    {
      header: t('articles.state'),
      width: 22,
      cell: (a) => (
        <>
          <Badge tone={STATE_TONE[a.state]}>{names.state(a.state)}</Badge>
          {a.corrected ? <Badge tone="info">{t('articles.corrected')}</Badge> : null}
          {a.reason ? <span className="nw-block small nw-reason">{a.reason}</span> : null}
        </>
      ),
    },
    {
      header: t('articles.classification'),
      width: 16,
      cell: (a) =>
        a.primarySector ? (
          <>
            <span className="nw-block">{names.sector(a.primarySector)}</span>
            <span className="nw-block muted small">{names.topic(a.primaryTopic)}</span>
          </>
        ) : (
          <span className="muted">{t('articles.notYet')}</span>
        ),
    },
    {
      header: t('articles.readers'),
      width: 12,
      cell: (a) => (a.visible ? <span className="ok">{t('articles.visible')}</span> : <span className="muted">{a.state === 'hidden' ? t('articles.hiddenFromReaders') : t('articles.notPublished')}</span>),
    },
  ];

  const page = list.page;
  const total = page?.pagination.total ?? 0;
  const pages = Math.min(LAST_PAGE, Math.max(1, Math.ceil(total / PAGE_SIZE)));

  return (
    <>
      <NewsHeader title={t('articles.title')} lead={t('articles.lead')} />
      <div className="card nw-filters">
        <form className="nw-filter-row" role="search" aria-label={t('articles.filters')} onSubmit={(e) => e.preventDefault()}>
          <div className="staff-field">
            <label htmlFor={`${id}-state`}>{t('articles.state')}</label>
            <select id={`${id}-state`} value={state ?? ''} onChange={(e) => go({ state: (e.target.value || undefined) as EditorialState | undefined, sourceId: filtersOf(queryNow()).sourceId })}>
              <option value="">{t('articles.allStates')}</option>
              {EDITORIAL_STATES.map((s) => (
                <option key={s} value={s}>
                  {names.state(s)}
                </option>
              ))}
            </select>
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-source`}>{t('articles.source')}</label>
            <select id={`${id}-source`} value={sourceId ?? ''} onChange={(e) => go({ state: filtersOf(queryNow()).state, sourceId: e.target.value || undefined })}>
              <option value="">{t('articles.allSources')}</option>
              {sourceId && !sources.data?.some((s) => s.id === sourceId) ? <option value={sourceId}>{t('articles.thisSource')}</option> : null}
              {(sources.data ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </div>
          {state || sourceId ? (
            <button type="button" className="link" onClick={() => go({})}>
              {t('articles.clear')}
            </button>
          ) : null}
          {sourceId ? (
            <Link className="nw-row-link" to={`/staff/news/enrichments?sourceId=${encodeURIComponent(sourceId)}`}>
              {t('articles.reenrichSource')}
            </Link>
          ) : null}
        </form>
      </div>
      <section className="card staff-panel" aria-labelledby={`${id}-list`} aria-busy={list.loading}>
        <div className="staff-panel-head">
          <h2 id={`${id}-list`} tabIndex={-1}>
            {t('articles.listTitle')}
          </h2>
          {page ? (
            <span className="muted" role="status">
              {t('articles.count', { count: total, n: number(total) })}
            </span>
          ) : null}
        </div>
        {list.failure ? (
          <ErrorState failure={list.failure} onRetry={() => void list.reload()} />
        ) : !page ? (
          <LoadingState />
        ) : (
          <>
            <DataTable fixed caption={t('articles.caption')} columns={columns} rows={page.data} rowKey={(a) => a.id} empty={state || sourceId ? t('articles.noneHere') : t('articles.none')} rowAttributes={(a) => ({ 'data-article': a.id, 'data-state': a.state })} />
            <Pagination
              label={t('articles.listTitle')}
              page={pageNo}
              pages={pages}
              hasPrevious={pageNo > 1}
              hasNext={page.pagination.hasMore && pageNo < LAST_PAGE}
              previousLabel={shell('ui.previous')}
              nextLabel={shell('ui.next')}
              busy={list.loading}
              onPrevious={() => {
                turned.current = true;
                const now = filtersOf(queryNow());
                go({ ...now, page: now.pageNo - 1 });
              }}
              onNext={() => {
                turned.current = true;
                const now = filtersOf(queryNow());
                go({ ...now, page: now.pageNo + 1 });
              }}
            />
          </>
        )}
      </section>
    </>
  );
}
