/**
 * The one place that reads process.env (GUIDE §7). Every process loads it once with loadConfig().
 *
 * Development and test: anything secret that is missing is generated once and kept in
 * `${DATA_DIR}/secrets.json`, so `npm start` needs no set-up. Production: secrets must be given;
 * a missing or invalid value stops start-up with one line naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PLAN_LIMITS, type Plan } from './shared/plan.rules';
import { validRelay } from './infra/relays';
import { isTimeZone } from './shared/calendar.rules';

const port = z.coerce.number().int().min(1).max(65535);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

/** `local+tag@domain` of `local@domain` (a sub-address the same mailbox receives). */
const plusAddress = (address: string, tag: string): string => {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}+${tag}${address.slice(at)}`;
};
const ianaTimeZone = z.string().refine(isTimeZone, 'must be an IANA time zone such as America/Sao_Paulo');

/** Documented variable by variable in .env.example; keep the two in step. */
/** The largest per-minute rate limit: what X-RateLimit-Limit is documented to hold at most. */
export const RATE_MAX = 1_000_000_000;

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),

  HOST: z.string().min(1).default('127.0.0.1'),
  NEWS_PORT: port.default(3001),
  SUPPORT_PORT: port.default(3002),
  QUIZ_PORT: port.default(3003),
  /** The customer dashboard (issue 26): its page and its session-signed-in API. */
  WEB_PORT: port.default(3000),
  /**
   * Each API's public address, as its customers call it: the `servers` of its OpenAPI document and
   * the address of its code samples. Unset, the service's own address on this host.
   */
  NEWS_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  SUPPORT_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  QUIZ_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  /** The dashboard's public address (links in sign-in mails, the same-origin check, billing's return page). */
  WEB_URL: z.url().default('http://127.0.0.1:3000'),
  /** Keys the stored hashes of sign-in codes; generated per data directory in development. */
  WEB_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, 'at least 32 characters').optional()),
  /** Where the built dashboard is (web/dist by default). */
  WEB_DIST_DIR: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  /** Sign-in codes asked for per address, and per client IP, in 15 minutes. */
  WEB_SIGN_IN_PER_ADDRESS: z.coerce.number().int().min(1).max(RATE_MAX).default(5),
  WEB_SIGN_IN_PER_IP: z.coerce.number().int().min(1).max(RATE_MAX).default(20),
  /** Codes tried per address, and per client IP, in 15 minutes. */
  WEB_VERIFY_PER_ADDRESS: z.coerce.number().int().min(1).max(RATE_MAX).default(10),
  WEB_VERIFY_PER_IP: z.coerce.number().int().min(1).max(RATE_MAX).default(50),
  /** Largest JSON/form body accepted by the APIs (bytes). Attachments have their own limit. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Seconds a stopping service waits for in-flight requests before it closes anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  /**
   * The proxies in front of the APIs, whose X-Forwarded-For entries are trusted: a number of hops
   * (`true` is one, `false` none). The client IP is the entry that many from the right, never one
   * the client wrote itself (Koa's maxIpsCount).
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .regex(/^(true|false|yes|no|[0-9]|10)$/, 'true, false or a number of proxy hops (0–10)')
    .transform((v) => (v === 'true' || v === 'yes' ? 1 : v === 'false' || v === 'no' ? 0 : Number(v)))
    .default(0),

  MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URI').optional(),
  MONGODB_DB: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and - only').default('newsletter'),

  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_UI_PORT: port.default(8233),
  /**
   * The Temporal Web UI's address as a staff member's browser reaches it: the staff console links
   * into it (workflows by business id, the quiz schedule). Unset, the dev server's UI on this host
   * (http://127.0.0.1:TEMPORAL_UI_PORT, which `npm start` runs).
   */
  TEMPORAL_UI_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).refine((u) => !/[?#]/.test(u), 'a base address, without a query or fragment').optional()),
  /** A prebundled workflow file (production images); bundled at start-up when unset. */
  TEMPORAL_WORKFLOW_BUNDLE: z.preprocess(emptyAsUndefined, z.string().optional()),
  /** Prefix of every task queue name (isolates deployments or test runs sharing a namespace). */
  TASK_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, . _ - only').default(''),
  /** Comma-separated task queues this worker process serves; all of them when empty. */
  WORKER_QUEUES: z.preprocess(emptyAsUndefined, csv.optional()),

  MINIO_ENDPOINT: z.url().default('http://127.0.0.1:9000'),
  MINIO_CONSOLE_PORT: port.default(9001),
  MINIO_ACCESS_KEY: z.string().min(3).optional(),
  MINIO_SECRET_KEY: z.string().min(8).optional(),
  MINIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('newsletter'),
  MINIO_REGION: z.string().min(1).default('us-east-1'),

  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** When set, tokens are verified against this JWKS (JWT_SECRET is then only used by the CLI). */
  JWT_JWKS_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  JWT_ISSUER: z.preprocess(emptyAsUndefined, z.string().optional()),
  JWT_AUDIENCE: z.preprocess(emptyAsUndefined, z.string().optional()),
  /** Longest lifetime (exp − iat) of a token signed with JWT_SECRET that the APIs accept. */
  JWT_MAX_LIFETIME_HOURS: z.coerce.number().positive().max(8_760).default(24),

  /** News API requests per minute per account (all its keys together), by plan (spec §2.6: 100, 500, 2,000). */
  NEWS_STARTER_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(PLAN_LIMITS.starter.perMinute),
  NEWS_PRO_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(PLAN_LIMITS.pro.perMinute),
  NEWS_BUSINESS_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(PLAN_LIMITS.business.perMinute),
  /**
   * Requests a day (UTC) an account's test keys may make together, on every plan: the sandbox is
   * for building an integration, not a second, free production (decisions.md, "The sandbox").
   */
  NEWS_SANDBOX_PER_DAY: z.coerce.number().int().min(1).max(RATE_MAX).default(1_000),

  // News sources and enrichment (issue 25).
  /** The User-Agent every feed and page request names the platform with. */
  NEWS_FETCH_USER_AGENT: z.string().min(8).max(200).default('NewsletterPlatformBot/0.1 (+https://newsletter.example/bot)'),
  /**
   * Hosts fetched even on loopback or private addresses: the development doubles, as host:port or
   * host:first-last (a host alone allows all its ports). Empty in production.
   */
  NEWS_FETCH_ALLOW_HOSTS: z.preprocess(emptyAsUndefined, csv.optional()),
  /** A feed or page request's whole time, body included. */
  NEWS_FETCH_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(15_000),
  /** The largest feed or page body read. */
  NEWS_FETCH_MAX_BYTES: z.coerce.number().int().min(64 * 1024).max(64 * 1024 * 1024).default(5 * 1024 * 1024),
  /** Requests at once to one site, across every worker process. */
  NEWS_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Days a fetched page is kept in MinIO (so extraction can run again). */
  NEWS_RAW_PAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** The model that enriches articles (default: AI_MODEL_MINI). */
  NEWS_ENRICH_MODEL: z.preprocess(emptyAsUndefined, z.string().min(1).max(100).optional()),
  /** Tokens (input and output) enrichment may spend per UTC day, per deployment; articles wait past it. */
  NEWS_ENRICH_DAILY_TOKENS: z.coerce.number().int().min(1_000).max(10_000_000_000).default(5_000_000),
  /** Model calls at once for enrichment, across every worker process. */
  NEWS_ENRICH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** The most input tokens one article's enrichment sends (the text is cut to fit). */
  NEWS_ENRICH_MAX_INPUT_TOKENS: z.coerce.number().int().min(500).max(100_000).default(4_000),
  /** The most output tokens one enrichment answer may take. */
  NEWS_ENRICH_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(500).max(16_000).default(2_500),
  /**
   * The news event stream (GET /api/stream, issue 40): how often each API process reads the event
   * log while streams are open, the keep-alive comment's interval, how long a stream lasts before
   * the server ends it (±10 %; the client reconnects and resumes), the most events a resume sends
   * again (more: a reset), and the streams one process serves.
   */
  NEWS_STREAM_POLL_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  NEWS_STREAM_KEEPALIVE_SECONDS: z.coerce.number().int().min(1).max(120).default(15),
  NEWS_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1_800),
  NEWS_STREAM_RESUME_MAX: z.coerce.number().int().min(1).max(100_000).default(5_000),
  NEWS_STREAM_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(2_000),
  /** Whether the worker creates (or updates) the webhook fan-out relay's schedule (every minute) when it starts (issue 40). */
  NEWS_WEBHOOK_RELAY_SCHEDULE_ENABLED: bool.default(true),

  /** Support API requests per minute per client IP (spec §8: 100), and ticket creations. */
  SUPPORT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(100),
  SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(10),
  /** Support reports: the time zone their days, hours and weeks are counted in, and how long one is cached. */
  SUPPORT_REPORT_TIME_ZONE: ianaTimeZone.default('America/Sao_Paulo'),
  SUPPORT_REPORT_CACHE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(7_200),
  /**
   * The support desk's live updates (issue 38): how often each service process reads the tickets
   * changed (while a stream is open), how far back each read looks again (clock skew between
   * processes, late commits), the keep-alive comment's interval, how old a Last-Event-ID may be and
   * still be resumed, the streams one process serves and one person holds, and how long a
   * presence heartbeat keeps someone on a ticket.
   */
  SUPPORT_LIVE_POLL_MS: z.coerce.number().int().min(100).max(10_000).default(1_000),
  SUPPORT_LIVE_LOOKBACK_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  SUPPORT_LIVE_KEEPALIVE_SECONDS: z.coerce.number().int().min(1).max(120).default(15),
  SUPPORT_LIVE_RESUME_SECONDS: z.coerce.number().int().min(0).max(3_600).default(300),
  SUPPORT_LIVE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  SUPPORT_LIVE_MAX_STREAMS_PER_PERSON: z.coerce.number().int().min(1).max(100).default(5),
  /** A stream ends after this long (±10 %): the client reconnects, and its credential is checked again. */
  SUPPORT_LIVE_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  SUPPORT_PRESENCE_TTL_SECONDS: z.coerce.number().int().min(5).max(600).default(30),

  // Support by e-mail (issue 39): the desk's address, the receiver of requesters' mail.
  /** The desk's address: the sender of staff replies, and the base of each ticket's reply address (local+token@domain). */
  SUPPORT_MAIL_ADDRESS: z.string().regex(/^[A-Za-z0-9._-]{1,48}@[A-Za-z0-9.-]{1,200}$/, 'must be a plain address (local@domain, no +)').default('support@localhost'),
  /** The name requesters see on the desk's mail. */
  SUPPORT_MAIL_NAME: z.string().regex(/^[^<>"\r\n]{1,64}$/).default('Newsletter Support'),
  /** Keys the desk's Message-IDs (a reply joins a ticket by one only if we sent it); 32+ characters, required in production. */
  SUPPORT_MAIL_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, 'at least 32 characters').optional()),
  /** Whether the worker creates (or updates) the support mail relay's schedule (every minute) when it starts. */
  SUPPORT_MAIL_RELAY_SCHEDULE_ENABLED: bool.default(true),
  /** A staff reply is mailed this long after it is written, so files uploaded with it go in the same mail. */
  SUPPORT_MAIL_SEND_DELAY_SECONDS: z.coerce.number().int().min(0).max(300).default(15),
  /** Attachments up to this size (each, and together) go with a staff reply; larger ones are linked. */
  SUPPORT_MAIL_ATTACH_MAX_BYTES: z.coerce.number().int().min(0).max(25 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Where the receiver of requesters' mail listens: SMTP (an MTA or a test forwards to it) and LMTP (an MTA in front). */
  SUPPORT_MAIL_INBOUND_HOST: z.string().min(1).default('127.0.0.1'),
  SUPPORT_MAIL_SMTP_PORT: port.default(2525),
  SUPPORT_MAIL_LMTP_PORT: port.default(2424),
  /** A message larger than this is refused at SMTP (552) and by Mailgun's webhook (406). Room for a 20 MB attachment in base64. */
  SUPPORT_MAIL_INBOUND_MAX_BYTES: z.coerce.number().int().min(64 * 1024).max(100 * 1024 * 1024).default(30 * 1024 * 1024),
  /**
   * The MTAs in front of the receiver (IPs or CIDRs, comma-separated): for mail one of them hands
   * over, SPF is checked for the client it names in its Received header, not for the MTA itself.
   */
  SUPPORT_MAIL_TRUSTED_RELAYS: z
    .string()
    .max(4_000)
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((list) => list.every(validRelay), 'each must be an IP address or a CIDR block (10.0.0.0/8, 2001:db8::/32)'),
  /** Mailgun's webhook signing key: the second entry point (POST /support/inbound/mailgun/mime) answers 503 without it. */
  MAILGUN_WEBHOOK_SIGNING_KEY: z.preprocess(emptyAsUndefined, z.string().min(16).optional()),
  /** How old the shared count behind a long list's pagination.total may be (0: count on every page). */
  LIST_TOTAL_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(10),
  /** How often a process adds its local rate-limit counts to the shared windows (0: every request). */
  RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(0).max(10_000).default(1_000),
  /** Requests per minute of a route without a limit of its own: per user behind a bearer token, per client IP when public. */
  RATE_LIMIT_PER_USER_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(300),
  RATE_LIMIT_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(300),
  /** Failed authentications (unknown key, bad token, no session) a client IP may make a minute; then 429 until the minute ends. */
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(30),
  /** Signed webhook deliveries per minute per sender IP (providers send bursts, and retry a 429). */
  RATE_LIMIT_WEBHOOK_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(6_000),
  /** How long a process reuses an API key's record and plan (0: read on every request). */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),

  // AI provider: any OpenAI-compatible endpoint. Without a key the AI features answer 503.
  OPENAI_BASE_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  OPENAI_API_KEY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  /** Provider model ids behind the spec's four model classes (quiz-ai-chat-api.md §2.4). */
  AI_MODEL_MINI: z.string().min(1).default('gpt-4o-mini'),
  AI_MODEL_ADVANCED: z.string().min(1).default('gpt-4o'),
  AI_MODEL_PREVIOUS: z.string().min(1).default('gpt-4-turbo'),
  AI_MODEL_LEGACY: z.string().min(1).default('gpt-3.5-turbo'),
  /** Largest maxTokens a request may ask for (spec §8: 4096, configurable). */
  AI_MAX_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /** Each provider request times out after this many ms (spec §8: 60 s). */
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** AI requests per minute per user (spec §8: 100). */
  AI_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(RATE_MAX).default(100),
  /**
   * Tokens (prompt + completion) one user's AI runs may spend per UTC day; a spent budget answers
   * 429 until the next UTC midnight (docs/decisions.md "AI spend").
   */
  AI_DAILY_TOKENS_PER_USER: z.coerce.number().int().min(1_000).max(10_000_000_000).default(500_000),
  /** Hosts registered HTTP tools may call (comma-separated; exact host names). Empty: none. */
  AI_TOOL_HOST_ALLOWLIST: z.preprocess(emptyAsUndefined, csv.optional()),
  /**
   * The stdio MCP servers context providers may start, named by the operator: a JSON object of
   * name → {command, args}, e.g. {"docs":{"command":"node","args":["docs-server.js"]}}. A
   * registration names one (`server`); the API never chooses a command or arguments. Empty: none.
   */
  AI_MCP_STDIO_PROVIDERS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((v, ctx) => {
        try {
          return JSON.parse(v) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object of name → {"command": "…", "args": ["…"]}' });
          return z.NEVER;
        }
      })
      .pipe(
        z.record(
          z.string().regex(/^[a-z][a-z0-9-]{1,63}$/),
          z.strictObject({ command: z.string().min(1), args: z.array(z.string()).default([]) }),
          { error: (issue) => (issue.code === 'invalid_key' ? 'names: lowercase letters, digits and -, 2 to 64 characters' : undefined) },
        ),
      )
      .optional(),
  ),
  /** PEM file of extra CAs trusted for HTTP tools (internal tools with a private CA). */
  AI_TOOL_CA_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),

  /** Quiz: the time zone whose calendar days editions, quizzes and streaks count in (an IANA name). */
  QUIZ_TIME_ZONE: ianaTimeZone.default('America/Sao_Paulo'),
  /** When the daily quiz generation runs (HH:MM in QUIZ_GENERATION_TIME_ZONE; docs/decisions.md "Quiz generation"). */
  QUIZ_GENERATION_TIME: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day written HH:MM (24 hours)')
    .default('07:00'),
  QUIZ_GENERATION_TIME_ZONE: ianaTimeZone.default('UTC'),
  /** Whether the worker creates (or updates) the daily generation schedule when it starts. */
  QUIZ_SCHEDULE_ENABLED: bool.default(true),
  /** The model that writes quizzes (default: AI_MODEL_ADVANCED). */
  QUIZ_MODEL: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),

  // Billing (Stripe). Without STRIPE_SECRET_KEY the billing endpoints answer 503; npm start and
  // npm test run stripe-mock and set it (with STRIPE_API_URL) unless a real key is given.
  STRIPE_SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_test_…, sk_live_… or a restricted rk_… key)').optional()),
  /** Where the Stripe API is (stripe-mock in development); Stripe's own when unset. */
  STRIPE_API_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  /** The webhook endpoint's signing secret (whsec_…); generated per data directory in development. */
  STRIPE_WEBHOOK_SECRET: z.preprocess(emptyAsUndefined, z.string().startsWith('whsec_', 'must be a webhook signing secret (whsec_…)').optional()),
  /** Monthly prices of the paid plans (Stripe price ids). */
  STRIPE_PRICE_PRO: z.string().regex(/^price_\w+$/, 'must be a Stripe price id (price_…)').default('price_pro_monthly'),
  STRIPE_PRICE_BUSINESS: z.string().regex(/^price_\w+$/, 'must be a Stripe price id (price_…)').default('price_business_monthly'),
  /** The dashboard page Checkout and the customer portal send the customer back to. */
  BILLING_RETURN_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  /** Days a past_due subscription keeps its paid plan before the account drops to Starter. */
  BILLING_GRACE_DAYS: z.coerce.number().min(0).max(60).default(7),
  /** Whether the worker creates (or updates) the billing event relay's schedule (every minute) when it starts. */
  BILLING_RELAY_SCHEDULE_ENABLED: bool.default(true),
  STRIPE_MOCK_PORT: port.default(12111),
  /** Where npm start runs the WhatsApp Cloud API double (without real WhatsApp credentials). */
  WHATSAPP_DOUBLE_PORT: port.default(12113),
  /** Where npm start runs the OpenAI double (without OPENAI_API_KEY): enrichment and quizzes work with no key. */
  OPENAI_DOUBLE_PORT: port.default(12114),
  /** Where npm start runs the Web Push double without VAPID keys (push is then on in development, against it). */
  PUSH_DOUBLE_PORT: port.default(12115),
  WEBHOOK_DOUBLE_PORT: port.default(12116),
  /** Where npm start runs the double of the news sites (its control API; its sites on the next ports). */
  NEWS_WEB_DOUBLE_PORT: port.default(12120),
  /** The news sites double's control API: `seed` registers its sources (set by npm start and npm test). */
  NEWS_WEB_DOUBLE_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  STRIPE_MOCK_BIN: z.string().min(1).optional(),

  // WhatsApp (issue 15), optional: without WHATSAPP_ACCESS_TOKEN and WHATSAPP_PHONE_NUMBER_ID the
  // channel is off (status says so, the webhook answers 503). npm start and npm test run the Cloud
  // API double and set them unless real ones are given.
  /** Graph API's base address with its version (the double in development). */
  WHATSAPP_API_URL: z.preprocess(emptyAsUndefined, z.url().default('https://graph.facebook.com/v21.0')),
  WHATSAPP_ACCESS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(20, 'must be a Graph API access token').optional()),
  WHATSAPP_PHONE_NUMBER_ID: z.preprocess(emptyAsUndefined, z.string().regex(/^\d{5,20}$/, 'must be the WhatsApp phone number id (digits)').optional()),
  /** The Meta app's secret: X-Hub-Signature-256 of every webhook delivery is checked with it. */
  WHATSAPP_APP_SECRET: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be the Meta app secret').optional()),
  /** The token Meta sends back when verifying the webhook (set in the app dashboard). */
  WHATSAPP_VERIFY_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'at least 16 characters').max(256, 'at most 256 characters (the webhook takes no longer hub.verify_token)').optional()),
  /** A published WhatsApp Flow for preferences (status reports flowConfigured). */
  WHATSAPP_FLOW_ID: z.preprocess(emptyAsUndefined, z.string().regex(/^\d{5,20}$/).optional()),
  /** Minutes a conversation workflow waits for the next message before it ends. */
  WHATSAPP_IDLE_MINUTES: z.coerce.number().min(1).max(7 * 24 * 60).default(30),
  /** Breaking-news alerts per reader and hour at most. */
  WHATSAPP_ALERTS_PER_HOUR: z.coerce.number().int().min(1).max(60).default(3),
  /** The approved template for alerts outside WhatsApp's 24-hour window (one body parameter: the headline). */
  WHATSAPP_ALERT_TEMPLATE: z.string().regex(/^[a-z0-9_]{1,512}$/).default('breaking_news_alert'),
  WHATSAPP_ALERT_TEMPLATE_LANGUAGE: z.string().regex(/^[a-z]{2}(_[A-Z]{2})?$/).default('pt_BR'),
  /** Whether the worker creates (or updates) the WhatsApp message relay's schedule (every minute) when it starts. */
  WHATSAPP_RELAY_SCHEDULE_ENABLED: bool.default(true),

  // Web Push (issue 40): breaking alerts to readers' browsers. Off unless the three VAPID values
  // are given (the dashboard then hides its push control); npm test runs the push double and sets them.
  /** The application server's contact (RFC 8292): a mailto: or https: address push services may write to. */
  WEB_PUSH_VAPID_SUBJECT: z.preprocess(emptyAsUndefined, z.string().max(200).regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/, 'must be a mailto: or https: contact').optional()),
  /** The VAPID key pair, base64url (npm run cli -- vapid-keys makes one): the public key is an uncompressed P-256 point. */
  WEB_PUSH_VAPID_PUBLIC_KEY: z.preprocess(emptyAsUndefined, z.string().regex(/^[A-Za-z0-9_-]{87}$/, 'must be an uncompressed P-256 public key in base64url (87 characters)').optional()),
  WEB_PUSH_VAPID_PRIVATE_KEY: z.preprocess(emptyAsUndefined, z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a P-256 private key in base64url (43 characters)').optional()),
  /** PEM file of extra CAs trusted for push services (the push double's certificate in development and tests). */
  WEB_PUSH_CA_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
  /**
   * Push endpoints allowed on loopback or private addresses (the push double), as host,
   * host:port or host:first-last. Empty in production, where only the known push services pass.
   */
  WEB_PUSH_ALLOW_HOSTS: z.preprocess(emptyAsUndefined, csv.optional()),
  /** How long a push service may stay silent before the push is retried. */
  WEB_PUSH_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),

  // Mail (sign-in codes). npm start runs Mailpit and sets SMTP_URL unless one is given; npm test always does.
  /** The SMTP server mail goes through: smtp://[user:password@]host:port (STARTTLS when offered) or smtps:// (TLS). */
  SMTP_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^smtps?$/, hostname: /^.+$/, error: 'must be an smtp:// or smtps:// URL with a host' }).optional()),
  /** The sender of every mail: an address, or a name and <address>. */
  MAIL_FROM: z
    .string()
    .regex(/^(?:[^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an address, or a name and <address>')
    .default('Newsletter Platform <no-reply@localhost>'),
  /**
   * The sender of readers' alerts and digests (issue 40), when not MAIL_FROM: providers ask that
   * list mail and transactional mail (sign-in codes) come from different addresses.
   */
  READER_MAIL_FROM: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^(?:[^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an address, or a name and <address>')
      .optional(),
  ),
  /**
   * Where readers' mail bounces go (its SMTP MAIL FROM): the inbound mailbox, so that a returned
   * alert or digest suppresses its address. Empty: the support desk's address with `+bounces`
   * (SUPPORT_MAIL_ADDRESS's receiver takes it).
   */
  READER_MAIL_RETURN_PATH: z.preprocess(emptyAsUndefined, z.string().regex(/^[^\s<>@]+@[^\s<>@]+$/, 'must be an address').optional()),
  /** Whether the worker keeps the daily digest's schedule (every 15 minutes: mails the readers whose hour it is). */
  NEWS_DIGEST_SCHEDULE_ENABLED: bool.default(true),

  // Dev services (ops/): binaries are found here, on PATH, or in the cache, else built from source.
  PLATFORM_CACHE_DIR: z.string().min(1).optional(),
  TEMPORAL_BIN: z.string().min(1).optional(),
  MINIO_BIN: z.string().min(1).optional(),
  FERRETDB_BIN: z.string().min(1).optional(),
  FERRETDB_PORT: port.default(27017),
  /** The PostgreSQL (with DocumentDB) behind the dev FerretDB; loopback only. */
  POSTGRES_PORT: port.default(5433),
  /** FerretDB's debug HTTP endpoint (pprof, metrics), e.g. 127.0.0.1:8089; off when unset. */
  FERRETDB_DEBUG_ADDR: z.string().min(1).optional(),
  MAILPIT_BIN: z.string().min(1).optional(),
  /** Where npm start runs Mailpit (without SMTP_URL): its SMTP server, and its web UI and REST API. */
  MAILPIT_SMTP_PORT: port.default(1025),
  MAILPIT_UI_PORT: port.default(8025),
  /** Mailpit's HTTP address (set by npm start and npm test): tests and dev tooling read the mail it caught. */
  MAILPIT_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  http: {
    host: string;
    ports: { news: number; support: number; quiz: number };
    publicUrls: { news: string; support: string; quiz: string; web: string };
    bodyLimitBytes: number;
    shutdownGraceMs: number;
    /** Proxy hops whose X-Forwarded-For entries are trusted; 0 trusts none. */
    proxyHops: number;
  };
  /** uri is undefined in development when the supervisor provides FerretDB. */
  mongo: { uri: string | undefined; db: string };
  /** Long lists' totals: exact counts shared for at most this long (models/infra/list-totals.ts). */
  lists: { totalMaxAgeMs: number };
  /** Rate limits: local counts are added to the shared windows every syncMs (api/shared/rate-limit.ts). */
  rateLimit: { syncMs: number; perUserPerMinute: number; perIpPerMinute: number; webhookPerMinute: number; authFailuresPerMinute: number };
  /** uiUrl: the Temporal Web UI's base address (no trailing slash), for links into it. */
  temporal: { address: string; namespace: string; uiPort: number; uiUrl: string; workerQueues: string[] | undefined; workflowBundle: string | undefined; taskQueuePrefix: string };
  minio: {
    endPoint: string;
    port: number;
    useSSL: boolean;
    accessKey: string;
    secretKey: string;
    bucket: string;
    region: string;
    consolePort: number;
  };
  web: {
    port: number;
    url: string;
    secret: string;
    distDir: string | undefined;
    signInPerAddress: number;
    signInPerIp: number;
    verifyPerAddress: number;
    verifyPerIp: number;
  };
  auth: { jwtSecret: string | undefined; jwksUrl: string | undefined; issuer: string | undefined; audience: string | undefined; maxLifetimeSeconds: number };
  support: {
    rateLimitPerMinute: number;
    createRateLimitPerMinute: number;
    reports: { timeZone: string; cacheTtlMs: number };
    /** Live updates and presence (issue 38; operations/support/live.ts). */
    live: { pollMs: number; lookbackMs: number; keepAliveMs: number; resumeWindowMs: number; maxStreams: number; maxStreamsPerPerson: number; streamMaxMs: number; presenceTtlMs: number };
    /** Support by e-mail (issue 39). */
    mail: {
      address: string;
      name: string;
      secret: string;
      sendDelayMs: number;
      attachMaxBytes: number;
      relayScheduled: boolean;
      inbound: { host: string; smtpPort: number; lmtpPort: number; maxBytes: number; trustedRelays: string[] };
      mailgunSigningKey: string | undefined;
    };
  };
  news: {
    perMinute: Record<Plan, number>;
    /** Requests a day of an account's test keys together. */
    sandboxPerDay: number;
    keyCacheMs: number;
    fetch: { userAgent: string; allowHosts: string[]; timeoutMs: number; maxBytes: number; hostConcurrency: number; rawPageRetentionDays: number };
    enrichment: { model: string; dailyTokens: number; concurrency: number; maxInputTokens: number; maxOutputTokens: number };
    /** Whether the worker keeps the daily digest's schedule (issue 40). */
    digestScheduled: boolean;
    /** The event stream (issue 40; operations/events/stream.ts). */
    stream: { pollMs: number; keepAliveMs: number; streamMaxMs: number; resumeMax: number; maxStreams: number };
    /** Webhooks to API customers (issue 40; operations/events/webhook-fanout.ts). */
    webhooks: { relayScheduled: boolean };
  };
  ai: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    models: { mini: string; advanced: string; previous: string; legacy: string };
    maxTokens: number;
    requestTimeoutMs: number;
    rateLimitPerMinute: number;
    dailyTokensPerUser: number;
    toolHostAllowlist: string[];
    toolCaFile: string | undefined;
    /** Stdio MCP servers by name (AI_MCP_STDIO_PROVIDERS): the only programs context providers start. */
    mcpStdioProviders: Record<string, { command: string; args: string[] }>;
  };
  billing: {
    /** Undefined when no Stripe key is configured (billing endpoints answer 503). */
    stripe: { secretKey: string; apiUrl: string | undefined } | undefined;
    webhookSecret: string | undefined;
    prices: { pro: string; business: string };
    returnUrl: string;
    graceMs: number;
    relayScheduled: boolean;
  };
  quiz: { timeZone: string; generation: { hour: number; minute: number; timeZone: string; scheduled: boolean }; model: string };
  /** Web Push (issue 40): vapid undefined when not configured (push is off). */
  webPush: {
    vapid: { subject: string; publicKey: string; privateKey: string } | undefined;
    caFile: string | undefined;
    allowHosts: string[];
    timeoutMs: number;
  };
  /** smtpUrl is undefined in development when the supervisor provides Mailpit ({@link smtpUrl}). */
  mail: { smtpUrl: string | undefined; from: string; readerFrom: string; readerReturnPath: string };
  whatsapp: {
    /** Undefined when the channel is not configured (no access token or phone number id). */
    api: { url: string; accessToken: string; phoneNumberId: string } | undefined;
    appSecret: string | undefined;
    verifyToken: string | undefined;
    flowId: string | undefined;
    idleMs: number;
    alertsPerHour: number;
    alertTemplate: { name: string; language: string };
    relayScheduled: boolean;
  };
  devServices: {
    cacheDir: string | undefined;
    bins: { temporal: string | undefined; minio: string | undefined; ferretdb: string | undefined; stripeMock: string | undefined; mailpit: string | undefined };
    ferretdbPort: number;
    stripeMockPort: number;
    whatsappDoublePort: number;
    openaiDoublePort: number;
    pushDoublePort: number;
    /** Where npm start runs the webhook receiver double (a customer's endpoint, issue 40). */
    webhookDoublePort: number;
    newsWebDoublePort: number;
    newsWebDoubleUrl: string | undefined;
    postgresPort: number;
    ferretdbDebugAddr: string | undefined;
    mailpitSmtpPort: number;
    mailpitUiPort: number;
    mailpitUrl: string | undefined;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface DevSecrets {
  JWT_SECRET: string;
  MINIO_ACCESS_KEY: string;
  MINIO_SECRET_KEY: string;
  STRIPE_WEBHOOK_SECRET: string;
  WHATSAPP_APP_SECRET: string;
  WHATSAPP_VERIFY_TOKEN: string;
  WEB_SECRET: string;
  SUPPORT_MAIL_SECRET: string;
}

/** Secrets a data directory made by an earlier release lacks, generated when first needed. */
const LATER_SECRETS: Partial<Record<keyof DevSecrets, () => string>> = {
  STRIPE_WEBHOOK_SECRET: () => `whsec_${randomBytes(24).toString('base64url')}`,
  WHATSAPP_APP_SECRET: () => randomBytes(16).toString('hex'),
  WHATSAPP_VERIFY_TOKEN: () => randomBytes(16).toString('hex'),
  WEB_SECRET: () => randomBytes(32).toString('base64url'),
  SUPPORT_MAIL_SECRET: () => randomBytes(32).toString('base64url'),
};

/**
 * Secrets for development, generated once per data directory. Written with O_EXCL so that two
 * processes starting together agree on one set.
 */
function devSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'secrets.json');
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>;
    // A data directory made before billing or WhatsApp existed: add their secrets once.
    const missing = (Object.keys(LATER_SECRETS) as (keyof DevSecrets)[]).filter((k) => !kept[k]);
    if (missing.length === 0) return kept as DevSecrets;
    const filled = { ...kept, ...Object.fromEntries(missing.map((k) => [k, LATER_SECRETS[k]!()])) } as DevSecrets;
    writeFileSync(file, JSON.stringify(filled, null, 2), { mode: 0o600 });
    return filled;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fresh: DevSecrets = {
    JWT_SECRET: randomBytes(32).toString('base64url'),
    MINIO_ACCESS_KEY: `dev-${randomBytes(6).toString('hex')}`,
    MINIO_SECRET_KEY: randomBytes(24).toString('base64url'),
    STRIPE_WEBHOOK_SECRET: LATER_SECRETS.STRIPE_WEBHOOK_SECRET!(),
    WHATSAPP_APP_SECRET: LATER_SECRETS.WHATSAPP_APP_SECRET!(),
    WHATSAPP_VERIFY_TOKEN: LATER_SECRETS.WHATSAPP_VERIFY_TOKEN!(),
    WEB_SECRET: LATER_SECRETS.WEB_SECRET!(),
    SUPPORT_MAIL_SECRET: LATER_SECRETS.SUPPORT_MAIL_SECRET!(),
  };
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, JSON.stringify(fresh, null, 2), { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid configuration';
  const name = issue.path.join('.') || 'environment';
  return `${name}: ${issue.message}`;
}

/** Parses an environment (process.env by default). Throws ConfigError whose message is one line. */
export function parseConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${firstIssue(parsed.error)}`);
  const e = parsed.data;
  const isProduction = e.NODE_ENV === 'production';
  const dataDir = path.resolve(e.DATA_DIR);

  if (isProduction) {
    const required: (keyof Env)[] = ['MONGODB_URI', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY', 'WEB_SECRET', 'SMTP_URL', 'SUPPORT_MAIL_SECRET'];
    // Under a JWKS every token of the identity provider verifies: its issuer and audience say
    // which were meant for this platform.
    if (e.JWT_JWKS_URL) required.push('JWT_ISSUER', 'JWT_AUDIENCE');
    else required.unshift('JWT_SECRET');
    for (const name of required) {
      if (e[name] === undefined) throw new ConfigError(`Invalid configuration: ${name} is required when NODE_ENV=production`);
    }
    // The dashboard's session cookie is Secure whenever its origin is HTTPS; only a trial on this
    // machine may go without.
    const web = new URL(e.WEB_URL);
    if (web.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(web.hostname)) {
      throw new ConfigError('Invalid configuration: WEB_URL must be an https:// address when NODE_ENV=production (the session cookie is Secure)');
    }
  }
  const vapidSet = [e.WEB_PUSH_VAPID_SUBJECT, e.WEB_PUSH_VAPID_PUBLIC_KEY, e.WEB_PUSH_VAPID_PRIVATE_KEY].filter((v) => v !== undefined).length;
  if (vapidSet !== 0 && vapidSet !== 3) {
    throw new ConfigError('Invalid configuration: WEB_PUSH_VAPID_SUBJECT, WEB_PUSH_VAPID_PUBLIC_KEY and WEB_PUSH_VAPID_PRIVATE_KEY go together (all three, or none: push off)');
  }
  const secrets = isProduction
    ? undefined
    : e.JWT_SECRET && e.MINIO_ACCESS_KEY && e.MINIO_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET && e.WEB_SECRET && e.SUPPORT_MAIL_SECRET
      ? undefined
      : devSecrets(dataDir);

  const minioUrl = new URL(e.MINIO_ENDPOINT);
  const useSSL = minioUrl.protocol === 'https:';
  return {
    env: e.NODE_ENV,
    isProduction,
    logLevel: e.LOG_LEVEL,
    dataDir,
    http: {
      host: e.HOST,
      ports: { news: e.NEWS_PORT, support: e.SUPPORT_PORT, quiz: e.QUIZ_PORT },
      publicUrls: {
        news: e.NEWS_PUBLIC_URL ?? `http://localhost:${e.NEWS_PORT}`,
        support: e.SUPPORT_PUBLIC_URL ?? `http://localhost:${e.SUPPORT_PORT}`,
        quiz: e.QUIZ_PUBLIC_URL ?? `http://localhost:${e.QUIZ_PORT}`,
        web: e.WEB_URL,
      },
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
      proxyHops: e.TRUST_PROXY,
    },
    mongo: { uri: e.MONGODB_URI, db: e.MONGODB_DB },
    web: {
      port: e.WEB_PORT,
      url: e.WEB_URL,
      secret: e.WEB_SECRET ?? secrets!.WEB_SECRET,
      distDir: e.WEB_DIST_DIR,
      signInPerAddress: e.WEB_SIGN_IN_PER_ADDRESS,
      signInPerIp: e.WEB_SIGN_IN_PER_IP,
      verifyPerAddress: e.WEB_VERIFY_PER_ADDRESS,
      verifyPerIp: e.WEB_VERIFY_PER_IP,
    },
    lists: { totalMaxAgeMs: e.LIST_TOTAL_MAX_AGE_SECONDS * 1000 },
    rateLimit: { syncMs: e.RATE_LIMIT_SYNC_MS, perUserPerMinute: e.RATE_LIMIT_PER_USER_PER_MINUTE, perIpPerMinute: e.RATE_LIMIT_PER_IP_PER_MINUTE, webhookPerMinute: e.RATE_LIMIT_WEBHOOK_PER_MINUTE, authFailuresPerMinute: e.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://127.0.0.1:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
      workerQueues: e.WORKER_QUEUES,
      workflowBundle: e.TEMPORAL_WORKFLOW_BUNDLE,
      taskQueuePrefix: e.TASK_QUEUE_PREFIX,
    },
    minio: {
      endPoint: minioUrl.hostname,
      port: minioUrl.port ? Number(minioUrl.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: e.MINIO_ACCESS_KEY ?? secrets!.MINIO_ACCESS_KEY,
      secretKey: e.MINIO_SECRET_KEY ?? secrets!.MINIO_SECRET_KEY,
      bucket: e.MINIO_BUCKET,
      region: e.MINIO_REGION,
      consolePort: e.MINIO_CONSOLE_PORT,
    },
    auth: {
      jwtSecret: e.JWT_SECRET ?? secrets?.JWT_SECRET,
      jwksUrl: e.JWT_JWKS_URL,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      maxLifetimeSeconds: Math.round(e.JWT_MAX_LIFETIME_HOURS * 3600),
    },
    support: {
      rateLimitPerMinute: e.SUPPORT_RATE_LIMIT_PER_MINUTE,
      createRateLimitPerMinute: e.SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE,
      reports: { timeZone: e.SUPPORT_REPORT_TIME_ZONE, cacheTtlMs: e.SUPPORT_REPORT_CACHE_SECONDS * 1000 },
      live: {
        pollMs: e.SUPPORT_LIVE_POLL_MS,
        lookbackMs: e.SUPPORT_LIVE_LOOKBACK_MS,
        keepAliveMs: e.SUPPORT_LIVE_KEEPALIVE_SECONDS * 1000,
        resumeWindowMs: e.SUPPORT_LIVE_RESUME_SECONDS * 1000,
        maxStreams: e.SUPPORT_LIVE_MAX_STREAMS,
        maxStreamsPerPerson: e.SUPPORT_LIVE_MAX_STREAMS_PER_PERSON,
        streamMaxMs: e.SUPPORT_LIVE_STREAM_MAX_SECONDS * 1000,
        presenceTtlMs: e.SUPPORT_PRESENCE_TTL_SECONDS * 1000,
      },
      mail: {
        address: e.SUPPORT_MAIL_ADDRESS.toLowerCase(),
        name: e.SUPPORT_MAIL_NAME,
        secret: e.SUPPORT_MAIL_SECRET ?? secrets!.SUPPORT_MAIL_SECRET,
        sendDelayMs: e.SUPPORT_MAIL_SEND_DELAY_SECONDS * 1000,
        relayScheduled: e.SUPPORT_MAIL_RELAY_SCHEDULE_ENABLED,
        attachMaxBytes: e.SUPPORT_MAIL_ATTACH_MAX_BYTES,
        inbound: { host: e.SUPPORT_MAIL_INBOUND_HOST, smtpPort: e.SUPPORT_MAIL_SMTP_PORT, lmtpPort: e.SUPPORT_MAIL_LMTP_PORT, maxBytes: e.SUPPORT_MAIL_INBOUND_MAX_BYTES, trustedRelays: e.SUPPORT_MAIL_TRUSTED_RELAYS },
        mailgunSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY,
      },
    },
    news: {
      perMinute: { starter: e.NEWS_STARTER_PER_MINUTE, pro: e.NEWS_PRO_PER_MINUTE, business: e.NEWS_BUSINESS_PER_MINUTE },
      sandboxPerDay: e.NEWS_SANDBOX_PER_DAY,
      keyCacheMs: e.API_KEY_CACHE_SECONDS * 1000,
      fetch: {
        userAgent: e.NEWS_FETCH_USER_AGENT,
        allowHosts: e.NEWS_FETCH_ALLOW_HOSTS ?? [],
        timeoutMs: e.NEWS_FETCH_TIMEOUT_MS,
        maxBytes: e.NEWS_FETCH_MAX_BYTES,
        hostConcurrency: e.NEWS_HOST_CONCURRENCY,
        rawPageRetentionDays: e.NEWS_RAW_PAGE_RETENTION_DAYS,
      },
      enrichment: {
        model: e.NEWS_ENRICH_MODEL ?? e.AI_MODEL_MINI,
        dailyTokens: e.NEWS_ENRICH_DAILY_TOKENS,
        concurrency: e.NEWS_ENRICH_CONCURRENCY,
        maxInputTokens: e.NEWS_ENRICH_MAX_INPUT_TOKENS,
        maxOutputTokens: e.NEWS_ENRICH_MAX_OUTPUT_TOKENS,
      },
      digestScheduled: e.NEWS_DIGEST_SCHEDULE_ENABLED,
      stream: {
        pollMs: e.NEWS_STREAM_POLL_MS,
        keepAliveMs: e.NEWS_STREAM_KEEPALIVE_SECONDS * 1000,
        streamMaxMs: e.NEWS_STREAM_MAX_SECONDS * 1000,
        resumeMax: e.NEWS_STREAM_RESUME_MAX,
        maxStreams: e.NEWS_STREAM_MAX_STREAMS,
      },
      webhooks: { relayScheduled: e.NEWS_WEBHOOK_RELAY_SCHEDULE_ENABLED },
    },
    ai: {
      baseUrl: e.OPENAI_BASE_URL,
      apiKey: e.OPENAI_API_KEY,
      models: { mini: e.AI_MODEL_MINI, advanced: e.AI_MODEL_ADVANCED, previous: e.AI_MODEL_PREVIOUS, legacy: e.AI_MODEL_LEGACY },
      maxTokens: e.AI_MAX_TOKENS,
      requestTimeoutMs: e.AI_REQUEST_TIMEOUT_MS,
      rateLimitPerMinute: e.AI_RATE_LIMIT_PER_MINUTE,
      dailyTokensPerUser: e.AI_DAILY_TOKENS_PER_USER,
      toolHostAllowlist: e.AI_TOOL_HOST_ALLOWLIST ?? [],
      toolCaFile: e.AI_TOOL_CA_FILE,
      mcpStdioProviders: e.AI_MCP_STDIO_PROVIDERS ?? {},
    },
    billing: {
      stripe: e.STRIPE_SECRET_KEY ? { secretKey: e.STRIPE_SECRET_KEY, apiUrl: e.STRIPE_API_URL } : undefined,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? secrets?.STRIPE_WEBHOOK_SECRET,
      prices: { pro: e.STRIPE_PRICE_PRO, business: e.STRIPE_PRICE_BUSINESS },
      returnUrl: e.BILLING_RETURN_URL ?? `${e.WEB_URL.replace(/\/$/, '')}/account/billing`,
      graceMs: Math.round(e.BILLING_GRACE_DAYS * 86_400_000),
      relayScheduled: e.BILLING_RELAY_SCHEDULE_ENABLED,
    },
    quiz: {
      timeZone: e.QUIZ_TIME_ZONE,
      generation: {
        hour: Number(e.QUIZ_GENERATION_TIME.slice(0, 2)),
        minute: Number(e.QUIZ_GENERATION_TIME.slice(3)),
        timeZone: e.QUIZ_GENERATION_TIME_ZONE,
        scheduled: e.QUIZ_SCHEDULE_ENABLED,
      },
      model: e.QUIZ_MODEL ?? e.AI_MODEL_ADVANCED,
    },
    whatsapp: {
      api: e.WHATSAPP_ACCESS_TOKEN && e.WHATSAPP_PHONE_NUMBER_ID ? { url: e.WHATSAPP_API_URL, accessToken: e.WHATSAPP_ACCESS_TOKEN, phoneNumberId: e.WHATSAPP_PHONE_NUMBER_ID } : undefined,
      appSecret: e.WHATSAPP_APP_SECRET ?? secrets?.WHATSAPP_APP_SECRET,
      verifyToken: e.WHATSAPP_VERIFY_TOKEN ?? secrets?.WHATSAPP_VERIFY_TOKEN,
      flowId: e.WHATSAPP_FLOW_ID,
      idleMs: Math.round(e.WHATSAPP_IDLE_MINUTES * 60_000),
      alertsPerHour: e.WHATSAPP_ALERTS_PER_HOUR,
      alertTemplate: { name: e.WHATSAPP_ALERT_TEMPLATE, language: e.WHATSAPP_ALERT_TEMPLATE_LANGUAGE },
      relayScheduled: e.WHATSAPP_RELAY_SCHEDULE_ENABLED,
    },
    webPush: {
      vapid: vapidSet === 3 ? { subject: e.WEB_PUSH_VAPID_SUBJECT!, publicKey: e.WEB_PUSH_VAPID_PUBLIC_KEY!, privateKey: e.WEB_PUSH_VAPID_PRIVATE_KEY! } : undefined,
      caFile: e.WEB_PUSH_CA_FILE,
      allowHosts: e.WEB_PUSH_ALLOW_HOSTS ?? [],
      timeoutMs: e.WEB_PUSH_TIMEOUT_MS,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, readerFrom: e.READER_MAIL_FROM ?? e.MAIL_FROM, readerReturnPath: e.READER_MAIL_RETURN_PATH ?? plusAddress(e.SUPPORT_MAIL_ADDRESS.toLowerCase(), 'bounces') },
    devServices: {
      cacheDir: e.PLATFORM_CACHE_DIR,
      bins: { temporal: e.TEMPORAL_BIN, minio: e.MINIO_BIN, ferretdb: e.FERRETDB_BIN, stripeMock: e.STRIPE_MOCK_BIN, mailpit: e.MAILPIT_BIN },
      ferretdbPort: e.FERRETDB_PORT,
      stripeMockPort: e.STRIPE_MOCK_PORT,
      whatsappDoublePort: e.WHATSAPP_DOUBLE_PORT,
      openaiDoublePort: e.OPENAI_DOUBLE_PORT,
      pushDoublePort: e.PUSH_DOUBLE_PORT,
      webhookDoublePort: e.WEBHOOK_DOUBLE_PORT,
      newsWebDoublePort: e.NEWS_WEB_DOUBLE_PORT,
      // In development the double runs where npm start puts it, so `npm run cli -- seed` in another shell finds it.
      newsWebDoubleUrl: e.NEWS_WEB_DOUBLE_URL ?? (e.NODE_ENV === 'development' ? `http://127.0.0.1:${e.NEWS_WEB_DOUBLE_PORT}` : undefined),
      postgresPort: e.POSTGRES_PORT,
      ferretdbDebugAddr: e.FERRETDB_DEBUG_ADDR,
      mailpitSmtpPort: e.MAILPIT_SMTP_PORT,
      mailpitUiPort: e.MAILPIT_UI_PORT,
      mailpitUrl: e.MAILPIT_URL,
    },
  };
}

/** The URI the services use: the configured one, else the FerretDB the dev supervisor runs. */
export function mongoUri(config: Config): string {
  return config.mongo.uri ?? `mongodb://127.0.0.1:${config.devServices.ferretdbPort}/`;
}

/** The SMTP server mail goes through: the configured one, else the Mailpit the dev supervisor runs. */
export function smtpUrl(config: Pick<Config, 'mail' | 'devServices'>): string {
  return config.mail.smtpUrl ?? `smtp://127.0.0.1:${config.devServices.mailpitSmtpPort}`;
}

let cached: Config | undefined;

/** Loads the process's configuration once. */
export function loadConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/**
 * For entry points: load the config, or print one line naming the bad variable and exit non-zero.
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}
