/** The customer dashboard API's reference overview and tag descriptions (issue 37). */
import { overview } from '../shared/reference';

export const webDescription = overview({
  summary:
    "The API behind the customer dashboard: sign-in by a code mailed to the customer, API keys (each shown once), usage against the plan, plan and billing through Stripe, preferences, webhook endpoints (each secret shown once), and the reader's streak and quizzes. It is the dashboard's own API, made for its pages: integrations use the News Intelligence API with an API key.",
  credential: [
    '1. `POST /api/auth/sign-in` with the e-mail: a six-digit code is mailed to it (the answer is the same whether or not the address has an account).',
    '2. `POST /api/auth/verify` with the e-mail and the code: the answer sets the session cookie (`nl_session`, HttpOnly) and gives the session\'s CSRF token.',
    '3. Send the cookie on every request. A request that changes something must come from the dashboard\'s own origin (`Origin`) and carry the token in `X-CSRF-Token`.',
  ].join('\n'),
  firstRequest: [
    'Signed in, the account\'s keys:',
    '```bash\ncurl -sS "$WEB_URL/api/account/keys" -b "nl_session=$SESSION"\n```',
  ].join('\n\n'),
  pagination:
    'The dashboard\'s lists are short and answered whole (the keys of an account, the plans, the days of a month, the staff). The staff\'s audit log is read newest first, a page at a time: each page gives `nextBefore`, sent as `before` for the next one.',
  failureExample: JSON.stringify({ success: false, error: 'Not signed in: sign in to the dashboard first', statusCode: 401, code: 'UNAUTHENTICATED' }, null, 2),
  limits:
    'Requests are counted per signed-in user (300 a minute unless the operator sets `RATE_LIMIT_PER_USER_PER_MINUTE`), and the sign-in steps per address and per client IP, so that codes cannot be guessed.',
});

export const webTags: Record<string, string> = {
  session: 'Signing in with a mailed code, the session, signing out.',
  'api keys': 'The account\'s API keys for the News Intelligence API: create (shown once), list, revoke.',
  usage: "The account's use against its plan, by day and by key.",
  billing: 'Plans and prices, Stripe Checkout to subscribe or change plan, and the customer portal.',
  preferences: 'What the account follows and how it wants alerts, WhatsApp included.',
  webhooks: 'The account\'s webhook endpoints (the same as the News API\'s `/api/webhooks/endpoints`): register (the signing secret shown once), list, change, enable or disable, remove, rotate the secret.',
  reading: "The reader's streak, the days read and the quizzes that recover missed days.",
  staff: "The newsletter's own staff: the signed-in member's roles and, for owners, the members (invite by e-mail, change roles, remove) and the audit log of every change.",
};
