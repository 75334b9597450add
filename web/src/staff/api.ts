/**
 * The staff console's calls to the web service, on top of the page's `api()` (../api.ts: same
 * origin, the session cookie, X-CSRF-Token on changes). Every staff route is under /api/staff and
 * answers in the web envelope; a section calls `staffApi.get('/support', { page: 1 })` and the
 * like, and turns a failure into words with `failureOf()` (./ui.tsx shows them).
 *
 * Later sections' routes (the web service relays them, same envelope): /api/staff/support/…
 * (the support API's paths), /api/staff/news/admin/… (the news API's, with /api replaced by
 * /api/staff/news), /api/staff/quiz/…, /api/staff/ai/….
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../api';
import { useSession } from '../session';
import type { StaffPermission, StaffRole } from './roles';

/** A query string's values; `undefined` and `null` are left out. */
export type Query = Record<string, string | number | boolean | null | undefined>;

/** `/api/staff` + `path` + the query string. `path` starts with a slash and is already encoded (see {@link segment}). */
export function staffPath(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return `/api/staff${path}${qs ? `?${qs}` : ''}`;
}

/** One path segment from a value (an address, an id): `/members/${segment(email)}`. */
export const segment = (value: string): string => encodeURIComponent(value);

export const staffApi = {
  get: <T>(path: string, query?: Query) => api<T>(staffPath(path, query)),
  post: <T>(path: string, body?: unknown) => api<T>(staffPath(path), { method: 'POST', body }),
  put: <T>(path: string, body?: unknown) => api<T>(staffPath(path), { method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown) => api<T>(staffPath(path), { method: 'PATCH', body }),
  delete: <T>(path: string) => api<T>(staffPath(path), { method: 'DELETE' }),
};

/** GET /api/staff/me: the signed-in member's roles and what they grant. */
export interface StaffMe {
  email: string;
  roles: StaffRole[];
  permissions: StaffPermission[];
}

/**
 * What went wrong, in kinds the page words in the reader's language (./i18n.ts `errors.*`); the
 * API's own message (English) is kept for what has no kind of its own.
 */
export type FailureKind =
  | 'network' // no answer at all (offline, the service down)
  | 'signedOut' // 401: the session ended (signed out elsewhere, removed from the staff)
  | 'forbidden' // 403: not staff, or not this permission
  | 'notFound' // 404
  | 'invalid' // 400, 422
  | 'conflict' // 409 with no reason of its own
  | 'lastOwner' // 409, details.reason = last_owner
  | 'alreadyMember' // 409 on an invitation: details.status
  | 'staffFull' // 409 on an invitation: details.staffMax
  | 'tooMany' // 429
  | 'unavailable' // 503 (mail, database…)
  | 'unknown';

export interface Failure {
  kind: FailureKind;
  status: number | null;
  /** The API's message (English), or the browser's for a network failure. */
  message: string;
  details: Record<string, unknown>;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function failureOf(err: unknown): Failure {
  if (!(err instanceof ApiError)) return { kind: 'network', status: null, message: err instanceof Error ? err.message : String(err), details: {} };
  const details = record(err.details);
  const kind = ((): FailureKind => {
    switch (err.status) {
      case 401:
        return 'signedOut';
      case 403:
        return 'forbidden';
      case 404:
        return 'notFound';
      case 400:
      case 422:
        return 'invalid';
      case 409:
        if (details.reason === 'last_owner') return 'lastOwner';
        if (typeof details.status === 'string') return 'alreadyMember';
        if (typeof details.staffMax === 'number') return 'staffFull';
        return 'conflict';
      case 429:
        return 'tooMany';
      case 502:
      case 503:
      case 504:
        return 'unavailable';
      default:
        return 'unknown';
    }
  })();
  return { kind, status: err.status, message: err.message, details };
}

/**
 * A resource of the staff API, read when the path (or query) changes and on `reload()`. A 401
 * (the session ended meanwhile) asks the app for the session again, which sends the reader to
 * sign in.
 */
export function useStaffResource<T>(path: string, query?: Query): { data: T | undefined; failure: Failure | null; loading: boolean; reload(): Promise<void> } {
  const { refresh } = useSession();
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(true);
  const url = staffPath(path, query);
  // Only the latest request's answer is kept (a slow older page never overwrites a newer one).
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const answer = await api<T>(url);
      if (mine !== latest.current) return;
      setData(answer);
      setFailure(null);
    } catch (err) {
      if (mine !== latest.current) return;
      const f = failureOf(err);
      setFailure(f);
      if (f.kind === 'signedOut') await refresh();
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, [url, refresh]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, failure, loading, reload };
}
