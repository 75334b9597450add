/**
 * The news API's administration (news.admin), as the console serves it: `/api/staff/news` + the
 * news API's path without its leading `/api` (api/web/console.ts), in the dashboard's envelope.
 *
 * The views are the news API's own OpenAPI components, taken from its generated types
 * (clients/src/generated/news.ts, `npm run clients`; type-only, so nothing of it is bundled): a
 * change of a view fails `npm run typecheck` here instead of the page at run time.
 *
 * `api()` (../../api.ts) answers an envelope's `data` alone; the paginated lists (articles, the
 * catalogue) also need its `pagination`, so they are read by {@link getPage}, a GET of their own
 * (GETs carry no CSRF token, so nothing of the session's is needed here).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { components } from '../../../../clients/src/generated/news';
import { ApiError } from '../../api';
import { useSession } from '../../session';
import { failureOf, segment, staffApi, staffPath, type Failure, type Query } from '../api';

type Schemas = components['schemas'];

export type Source = Schemas['NewsSource'];
export type NewSource = Schemas['NewSourceRequest'];
export type SourcePatch = Schemas['SourcePatchRequest'];
export type SourceState = Source['state'];
export type Candidate = Schemas['EntityCandidate'];
export type CandidateState = Candidate['state'];
export type EditorialArticle = Schemas['EditorialArticle'];
export type EditorialState = EditorialArticle['state'];
export type ArticleDetail = Schemas['EditorialArticleDetail'];
export type ArticleView = Schemas['ArticleView'];
export type ArticleEntity = Schemas['ArticleEntity'];
export type Correction = Schemas['ArticleCorrection'];
export type CorrectionRequest = Schemas['ArticleCorrectionRequest'];
export type EnrichmentRecord = Schemas['ArticleEnrichmentRecord'];
export type Entity = Schemas['Entity'];
export type EntityType = Entity['entityType'];
export type EntityPatch = Schemas['EntityPatchRequest'];
export type Reenrichment = Schemas['Reenrichment'];
export type ReenrichmentFilter = Schemas['ReenrichmentFilter'];
export type ReenrichState = Reenrichment['state'];
export type Sector = Source['defaultSector'] & string;
export type Topic = NonNullable<EditorialArticle['primaryTopic']>;
export type SentimentLabel = Schemas['SentimentLabel'];
export type Pagination = Schemas['NewsPagination'];

/** A page of a list, with the envelope's pagination. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** Rows per page of the articles and the catalogue (the API allows 1 to 100). */
export const PAGE_SIZE = 20;

const news = (path: string) => `/news${path}`;
const id = (value: string) => segment(value);

/** The paths the pages read with `useStaffResource` (the others are `newsApi`'s). */
export const newsPaths = {
  sources: news('/admin/sources'),
  article: (articleId: string) => news(`/admin/articles/${id(articleId)}`),
  candidates: news('/admin/entity-candidates'),
};

/** A GET whose answer is a page: its `data` and `pagination` (an error as `api()` throws it). */
export async function getPage<T>(path: string, query?: Query): Promise<Page<T>> {
  const res = await fetch(staffPath(path, query), { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  let json: { success?: boolean; data?: T[]; pagination?: Pagination; error?: string; code?: string; details?: unknown } | undefined;
  try {
    json = (await res.json()) as typeof json;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json?.success) throw new ApiError(res.status, json?.error ?? res.statusText, json?.code, json?.details);
  const data = json.data ?? [];
  return { data, pagination: json.pagination ?? { limit: data.length, offset: 0, total: data.length, hasMore: false } };
}

export const newsApi = {
  source: (sourceId: string) => staffApi.get<Source>(news(`/admin/sources/${id(sourceId)}`)),
  addSource: (body: NewSource) => staffApi.post<Source>(news('/admin/sources'), body),
  changeSource: (sourceId: string, body: SourcePatch) => staffApi.patch<Source>(news(`/admin/sources/${id(sourceId)}`), body),
  removeSource: (sourceId: string) => staffApi.delete<{ id: string; deleted: true }>(news(`/admin/sources/${id(sourceId)}`)),
  pollSource: (sourceId: string) => staffApi.post<Source>(news(`/admin/sources/${id(sourceId)}/poll`)),

  articles: (query: { state?: EditorialState | undefined; sourceId?: string | undefined; limit: number; offset: number }) => getPage<EditorialArticle>(news('/admin/articles'), query),
  hide: (articleId: string, reason: string | undefined) => staffApi.post<EditorialArticle>(news(`/admin/articles/${id(articleId)}/hide`), reason ? { reason } : {}),
  unhide: (articleId: string) => staffApi.post<EditorialArticle>(news(`/admin/articles/${id(articleId)}/unhide`)),
  correct: (articleId: string, body: CorrectionRequest) => staffApi.put<ArticleDetail>(news(`/admin/articles/${id(articleId)}/correction`), body),

  entities: (query: { q?: string | undefined; type?: EntityType | undefined; limit: number; offset: number }) => getPage<Entity>(news('/admin/entities'), query),
  changeEntity: (entityId: string, body: EntityPatch) => staffApi.patch<Entity>(news(`/admin/entities/${id(entityId)}`), body),

  accept: (candidateId: string) => staffApi.post<Candidate>(news(`/admin/entity-candidates/${id(candidateId)}/accept`)),
  dismiss: (candidateId: string) => staffApi.post<Candidate>(news(`/admin/entity-candidates/${id(candidateId)}/dismiss`)),
  alias: (candidateId: string, entityId: string) => staffApi.post<Candidate>(news(`/admin/entity-candidates/${id(candidateId)}/alias`), { entityId }),

  startReenrichment: (filter: ReenrichmentFilter) => staffApi.post<Reenrichment>(news('/admin/enrichments'), filter),
  reenrichment: (operationId: string) => staffApi.get<Reenrichment>(news(`/admin/enrichments/${id(operationId)}`)),
  cancelReenrichment: (operationId: string) => staffApi.post<{ id: string; state: 'cancelling' }>(news(`/admin/enrichments/${id(operationId)}/cancel`)),
};

/**
 * A paginated list, read when its query changes and on `reload()`; the latest request wins, and the
 * page shown stays while the next is read. A 401 asks the app for the session (sign in again).
 */
export function usePage<T>(read: () => Promise<Page<T>>, key: string): { page: Page<T> | undefined; failure: Failure | null; loading: boolean; reload(): Promise<void> } {
  const { refresh } = useSession();
  const [page, setPage] = useState<Page<T> | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reader = useRef(read);
  reader.current = read;
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const answer = await reader.current();
      if (mine !== latest.current) return;
      setPage(answer);
      setFailure(null);
    } catch (err) {
      if (mine !== latest.current) return;
      const f = failureOf(err);
      setFailure(f);
      if (f.kind === 'signedOut') await refresh();
    } finally {
      if (mine === latest.current) setLoading(false);
    }
    // `key` names the query: a new one reads again.
  }, [key, refresh]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { page, failure, loading, reload };
}

/** A 400's field problems (`details: [{ path: 'body.ticker', message }]`), by the field's path without `body.`. */
export function fieldProblems(err: unknown): { path: string; message: string }[] {
  if (!(err instanceof ApiError) || !Array.isArray(err.details)) return [];
  return err.details
    .filter((d): d is { path: string; message: string } => !!d && typeof d === 'object' && typeof (d as { path?: unknown }).path === 'string' && typeof (d as { message?: unknown }).message === 'string')
    .map((d) => ({ path: d.path.replace(/^body\.?/, ''), message: d.message }));
}

/** Another entity named in a 409 of the catalogue ("… belongs to another entity already: Vale (id)"). */
export function heldByOther(message: string): { what: 'ticker' | 'cnpj' | 'name' | null; name: string } | null {
  const m = /belongs to another entity already: (.+) \([0-9a-f-]{36}\)\s*$/i.exec(message);
  if (!m) return null;
  const what = /^The ticker/i.test(message) ? 'ticker' : /^The CNPJ/i.test(message) ? 'cnpj' : /^The name/i.test(message) ? 'name' : null;
  return { what, name: m[1]! };
}
