/**
 * The staff console's API (issue 38): the support, news, quiz and AI operations that a bearer token
 * with a staff permission reaches, served by the dashboard's service under the staff session.
 *
 * Each is the other service's own route declaration (its schemas, handler and operation), mounted
 * at `/api/staff` + its path (the news API's leading `/api` named `news`):
 * - `GET /support/:id` → `GET /api/staff/support/:id`;
 * - `GET /api/admin/sources` → `GET /api/staff/news/admin/sources`;
 * - `GET /quiz/admin/list` → `GET /api/staff/quiz/admin/list`, `GET /ai/agents` → `GET /api/staff/ai/agents`;
 * - a path outside its area goes under its service's name: `POST /ops/smoke` of support →
 *   `POST /api/staff/support/ops/smoke`.
 *
 * Only its credential changes: `bearer(p…)` becomes `staffSignedIn(p…)` (./staff-session.ts), the
 * same permissions held by an active staff member, read on every request, with the session's CSRF
 * check. The handler gets its own service's dependencies, built once in this process. Nothing else
 * is mounted: public routes, API keys, webhooks and a reader's own bearer routes stay on their
 * services. The support API's reader-or-staff routes (`bearer()`: a ticket, its messages) are
 * mounted for `support.agent`. Errors come in the dashboard's envelope; the operations are
 * documented in their own services' documents (docs/decisions.md "The staff console's API").
 */
import type { Config } from '../../models/config';
import { STAFF_PERMISSIONS, type StaffPermission } from '../../models/staff/staff.rules';
import type { StaffRepo } from '../../models/staff/staff.repo';
import { recordConsoleChange } from '../../operations/staff/members';
import type { AnyRoute } from '../shared/route';
import { newsService, type NewsDeps } from '../news/service';
import { createQuizService, type QuizDeps } from '../quiz/service';
import { supportService, type SupportDeps } from '../support/service';
import type { ConsoleDeps } from './console-deps';
import { staffSignedIn } from './staff-session';


export const CONSOLE_PREFIX = '/api/staff';

interface Mount<S> {
  routes: AnyRoute<S>[];
  depsOf: (console: ConsoleDeps) => S;
  /** Where the route is served. */
  path: (path: string) => string;
  /** The permission a route open to any valid token (`bearer()`) requires here; none: not mounted. */
  anyToken?: StaffPermission;
}

const isStaffPermission = (p: string): p is StaffPermission => (STAFF_PERMISSIONS as readonly string[]).includes(p);

/**
 * A route's place under /api/staff: its own path when that begins with its area (`/support`,
 * `/quiz`, `/ai`), else under its service's name (`/ops/smoke` of support → `/support/ops/smoke`;
 * the news API's `/api/…` → `/news/…`).
 */
const placeOf = (service: 'support' | 'news' | 'quiz') => (path: string) => {
  if (path.startsWith('/api/')) return `${CONSOLE_PREFIX}/${service}${path.slice(4)}`;
  return /^\/(support|quiz|ai)(\/|$)/.test(path) ? `${CONSOLE_PREFIX}${path}` : `${CONSOLE_PREFIX}/${service}${path}`;
};

/** The dashboard's own dependencies a mounted route uses besides its service's: the audit log. */
type ConsoleHost = { console: ConsoleDeps; staff: Pick<StaffRepo, 'record'>; now: () => Date };

const documented = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`;

/** A path's parameters as the audit log keeps them (strings and whole numbers). */
const targetOf = (params: unknown): Record<string, string | number> =>
  Object.fromEntries(Object.entries((params ?? {}) as Record<string, unknown>).filter((e): e is [string, string | number] => typeof e[1] === 'string' || (typeof e[1] === 'number' && Number.isInteger(e[1]) && e[1] >= 0)));

function mount<S, D extends ConsoleHost>(m: Mount<S>): AnyRoute<D>[] {
  const mounted: AnyRoute<D>[] = [];
  for (const route of m.routes) {
    const required = route.auth.permissions;
    if (required === undefined) continue; // not a bearer route: public, API key, a provider's signature
    // A permission no staff member can hold (the sending system's `quiz.readings`) is not mounted.
    if (!required.every(isStaffPermission)) continue;
    const permissions = required.length > 0 ? required : m.anyToken ? [m.anyToken] : undefined;
    if (!permissions) continue;
    const { rateLimit } = route;
    mounted.push({
      ...route,
      path: m.path(route.path),
      auth: staffSignedIn(...permissions) as AnyRoute<D>['auth'],
      ...(rateLimit ? { rateLimit: ({ ctx, auth, deps }) => rateLimit({ ctx, auth, deps: m.depsOf(deps.console) }) } : {}),
      // Every change a member makes here is in the audit log (issue 38), once it succeeded.
      handler: async (input) => {
        const result = await route.handler({ ...input, deps: m.depsOf(input.deps.console) });
        if (route.method !== 'get') {
          const actor = (input.auth as { email: string }).email;
          await recordConsoleChange(input.deps, { actor, operation: documented(route.method, route.path), target: targetOf(input.params), body: input.body });
        }
        return result;
      },
    } as AnyRoute<D>);
  }
  return mounted;
}

/** Every operation the console serves, in its services' order. */
export function consoleRoutes<D extends ConsoleHost>(config: Config): AnyRoute<D>[] {
  return [
    ...mount<SupportDeps, D>({ routes: supportService.routes, depsOf: (c) => c.support, path: placeOf('support'), anyToken: 'support.agent' }),
    ...mount<NewsDeps, D>({ routes: newsService.routes, depsOf: (c) => c.news, path: placeOf('news') }),
    ...mount<QuizDeps, D>({ routes: createQuizService(config).routes, depsOf: (c) => c.quiz, path: placeOf('quiz') }),
  ];
}
