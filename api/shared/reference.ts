/**
 * The sections every service's reference opens with (info.description, Markdown), after its own
 * "getting a credential" and "a first request": pagination, errors, rate limits, retries with
 * Idempotency-Key, versioning. Polygon's, Marketaux's and Stripe's references open the same way
 * (issue 37). Numbers come from the code (plans, limits, the error codes), never copied by hand.
 */
import { ERROR_CODES, type ErrorCode } from '../../models/errors';
import { STATUS } from './errors';

/** What each error code means to a client, and what to do about it. */
const CODE_MEANING: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'The request is invalid: `details` lists each field and why. Fix it; do not retry as is.',
  UNAUTHENTICATED: 'No credential, or one that is wrong, expired or revoked.',
  FORBIDDEN: 'The credential is valid but lacks the permission, scope or plan the operation needs.',
  NOT_FOUND: 'Nothing with that id (or nothing you may see).',
  ROUTE_NOT_FOUND: 'No such operation: check the method and the path.',
  METHOD_NOT_ALLOWED: 'The path exists, with other methods.',
  CONFLICT: 'The request conflicts with the current state (a duplicate, a transition not allowed, the same Idempotency-Key still in flight).',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used before with another request: send a new key for a new request.',
  PAYLOAD_TOO_LARGE: 'The body is larger than the limit.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not of the media type the operation takes.',
  MESSAGE_REFUSED: "A mail delivered by a provider's webhook is refused for good (too large, not for this desk): the provider must not deliver it again.",
  RATE_LIMITED: 'A rate limit or quota is spent: wait `Retry-After` seconds.',
  INTERNAL: 'Our fault. Retry later, with the same Idempotency-Key on a creation; nothing is lost.',
  DEPENDENCY_UNAVAILABLE: 'A dependency (database, workflow engine, storage, a provider) is down: retry with backoff; nothing was changed.',
  TIMEOUT: 'The work did not finish in time: retry later.',
};

/** The table of error codes, their statuses and meanings. */
export const errorTable = (): string =>
  ['| Status | `code` | Meaning |', '|---|---|---|', ...ERROR_CODES.map((c) => `| ${STATUS[c]} | \`${c}\` | ${CODE_MEANING[c]} |`)].join('\n');

export interface ReferenceSections {
  /** The service's one-paragraph summary. */
  summary: string;
  /** How a client gets its credential (Markdown). */
  credential: string;
  /** A first request, in curl, TypeScript and Python (Markdown with code blocks). */
  firstRequest: string;
  /** How lists are paged (Markdown). */
  pagination: string;
  /** What the failure envelope looks like (a JSON example). */
  failureExample: string;
  /** The service's limits (Markdown). */
  limits: string;
}

/** The overview of a service's reference, in the order a newcomer needs it. */
export function overview(s: ReferenceSections): string {
  return [
    s.summary,
    'This reference is served at `/reference` (with the examples and code samples of every operation); `/docs` serves the same document in Swagger UI, to try requests with your own credential; the document itself is `/openapi.json`, from which the typed clients are generated.',
    '## Getting a credential',
    s.credential,
    '## A first request',
    s.firstRequest,
    '## Pagination',
    s.pagination,
    '## Errors',
    'Every answer is JSON in one envelope. A success is `{"success": true, "data": …}` (lists add `pagination`); a failure has the HTTP status, a stable machine-readable `code`, a message for people (never parse it) and, for a 400, the fields at fault in `details`:',
    `\`\`\`json\n${s.failureExample}\n\`\`\``,
    errorTable(),
    'Each operation lists the statuses it can answer, with an example of each.',
    '## Rate limits',
    s.limits,
    'Every answer to a counted request carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds since the epoch). Past the limit the answer is `429` with `Retry-After` in seconds: wait that long, then retry.',
    '## Retrying safely',
    'Operations that create something take an `Idempotency-Key` header (a new UUID per request, the same one on each retry of it): for 24 hours a retry gets the first answer again, marked `Idempotent-Replayed: true`, and nothing is created twice. Retry `429`, `503` and network failures with exponential backoff; do not retry other `4xx` as they are.',
    '## Versioning',
    'The version of this document is `info.version`. Within a major version, changes are additive only: new operations, new optional parameters, new fields in answers and new values of open lists. Clients must ignore fields they do not know. A change that would break a client (a field removed or retyped, a parameter made required) comes with a new major version under a new path prefix, announced in the changelog and served beside the old one for at least six months.',
  ].join('\n\n');
}

/** A first request in the three languages of the code samples. */
export function firstRequestBlocks(curl: string, typescript: string, python: string): string {
  return [`\`\`\`bash\n${curl}\n\`\`\``, `\`\`\`ts\n${typescript}\n\`\`\``, `\`\`\`python\n${python}\n\`\`\``].join('\n\n');
}
