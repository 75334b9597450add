/**
 * One-click unsubscribe (issue 40; RFC 8058), outside /api/: a mailbox provider posts to a reader
 * mail's List-Unsubscribe address with no Origin, no cookie and no CSRF token, so these routes
 * take no session and the same-origin check (which guards /api/) does not apply. The token is the
 * whole authority, and all it can do is switch one list off. `GET /unsubscribe/{token}` is the
 * dashboard's page (a link opened in a mail client): it asks before anything changes, since link
 * scanners open links, then posts here. The use cases: operations/news/unsubscribe.ts.
 */
import { unsubscribe } from '../../operations/news/unsubscribe';
import { publicRoute } from '../shared/auth';
import { routeFactory } from '../shared/route';
import { UnsubscribeParams, UnsubscribedView } from './contracts';
import type { WebDeps } from './deps';

const route = routeFactory<WebDeps>();

const TOKEN_EXAMPLE = 'YWxpY2U~alerts~c2lnbmVkLWJ5LXVzLW9ubHk';

export const unsubscribeRoutes = [
  route({
    method: 'post',
    path: '/unsubscribe/:token',
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      "The List-Unsubscribe address of every reader mail. A mailbox provider posts `List-Unsubscribe=One-Click` (form-encoded) to it with no cookie; the page the link opens posts when the reader confirms. Switches the token's list off (breaking alerts by e-mail, or the daily digest) and answers 200, never a redirect. Idempotent. 404 for a token we did not sign.",
    tags: ['account'],
    auth: publicRoute,
    params: UnsubscribeParams,
    response: UnsubscribedView,
    errors: [404],
    example: { params: { token: TOKEN_EXAMPLE }, response: { list: 'alerts', unsubscribed: true } },
    handler: ({ params, deps }) => unsubscribe({ preferences: deps.preferences, secret: deps.config.web.secret }, params.token),
  }),
];
