/**
 * Tools the model may call. Built-ins are defined here (pure: their descriptions and JSON-schema
 * parameters); registered HTTP tools come from MongoDB with the same shape. Arguments are
 * validated against the schema before a tool runs; an invalid call goes back to the model as a
 * tool error (never a 500).
 */
import type { ValidateFunction } from 'ajv';
import { callerSchemaAjv } from './json-schema.rules';
import { hasPermission } from '../auth/token.rules';
import { PLANS, quotePrice, type Plan } from '../shared/plan.rules';
import { SUPPORT_AGENT } from '../support/ticket.rules';

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset OpenAI accepts) of the arguments object. */
  parameters: Record<string, unknown>;
}

/** What a workflow carries for each tool it offers: enough to run it without another lookup. */
export type ToolSpec = ToolDefinition & ({ kind: 'builtin' } | { kind: 'http'; endpoint: string; timeoutMs: number });

export const TOOL_NAME = /^[a-z][a-z0-9_]{1,63}$/;

export const SEARCH_SOURCES = ['articles', 'tickets'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

export const BUILTIN_TOOLS: ToolDefinition[] = [
  {
    name: 'get_current_date',
    description: 'Current date and time in the São Paulo time zone (America/Sao_Paulo).',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'format_json',
    description: 'Validates a JSON string and returns it pretty-printed, or the parse error.',
    parameters: {
      type: 'object',
      properties: {
        json: { type: 'string', description: 'The JSON text to validate and format' },
        indent: { type: 'integer', minimum: 0, maximum: 8, description: 'Spaces per level (default 2)' },
      },
      required: ['json'],
      additionalProperties: false,
    },
  },
  {
    name: 'calculate_price',
    description: 'Price of the News Intelligence API plans (starter, pro, business) for a quantity and billing period, in BRL.',
    parameters: {
      type: 'object',
      properties: {
        plan: { type: 'string', enum: [...PLANS] },
        quantity: { type: 'integer', minimum: 1, maximum: 1000 },
        billingPeriod: { type: 'string', enum: ['monthly', 'yearly'] },
      },
      required: ['plan', 'quantity', 'billingPeriod'],
      additionalProperties: false,
    },
  },
  {
    name: 'search_database',
    description:
      'Read-only search over the platform data: news articles (title, subtitle, summary) or support tickets (category, subject, status): ' +
      "the user's own tickets, every requester's for support agents. Returns at most 20 items.",
    parameters: {
      type: 'object',
      properties: {
        source: { type: 'string', enum: [...SEARCH_SOURCES] },
        query: { type: 'string', minLength: 2, maxLength: 100 },
        limit: { type: 'integer', minimum: 1, maximum: 20 },
      },
      required: ['source', 'query'],
      additionalProperties: false,
    },
  },
];

export const BUILTIN_TOOL_NAMES = BUILTIN_TOOLS.map((t) => t.name);
export const isBuiltinTool = (name: string) => BUILTIN_TOOL_NAMES.includes(name);

/**
 * Who a tool runs for (the chat workflow carries it from the caller's token), so a tool reads only
 * what the caller may read through the APIs themselves.
 */
export interface ToolCaller {
  /** The token's e-mail: a ticket's requester is its e-mail. */
  email?: string;
  permissions: string[];
}

/**
 * The tickets search_database may read, as GET /support does: every requester's for a support
 * agent; anyone else only their own e-mail's, never a deleted one; nothing without an e-mail, or
 * without a caller at all (a run started before callers were carried: the narrowest scope).
 */
export type TicketScope = { kind: 'all' } | { kind: 'own'; email: string } | { kind: 'none' };

export function ticketScope(caller: ToolCaller | undefined): TicketScope {
  if (!caller) return { kind: 'none' };
  if (hasPermission({ sub: 'tool-caller', permissions: caller.permissions }, SUPPORT_AGENT)) return { kind: 'all' };
  return caller.email ? { kind: 'own', email: caller.email.toLowerCase() } : { kind: 'none' };
}

/** The MongoDB condition of a ticket scope (undefined: read nothing). */
export function ticketScopeFilter(scope: TicketScope): Record<string, unknown> | undefined {
  switch (scope.kind) {
    case 'all':
      return {};
    case 'own':
      // Not deleted: `deletedAt` is set exactly while a ticket is deleted (as the ticket list reads it).
      return { email: scope.email, deletedAt: null };
    default:
      return undefined;
  }
}

// Registered tools' parameters are their authors' schemas: patterns run on RE2 (json-schema.rules.ts).
const ajv = callerSchemaAjv();
const compiled = new Map<string, ValidateFunction>();

/** Compiles (and caches by content) a tool's parameter schema; throws when it is not a valid schema. */
export function argumentValidator(parameters: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(parameters);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(parameters);
    compiled.set(key, fn);
  }
  return fn;
}

export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Parses the model's raw argument text and validates it against the tool's schema. */
export function checkArguments(tool: ToolDefinition, raw: string): ArgumentCheck {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, error: 'arguments are not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'arguments must be a JSON object' };
  const validate = argumentValidator(tool.parameters);
  if (!validate(value)) {
    const detail = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
    return { ok: false, error: `invalid arguments: ${detail}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

// ---- Pure built-ins -----------------------------------------------------------------------------

export function currentDate(now: Date = new Date()): { formatted: string; iso: string; timestamp: number } {
  const tz = 'America/Sao_Paulo';
  const formatted = new Intl.DateTimeFormat('pt-BR', { timeZone: tz, dateStyle: 'full', timeStyle: 'medium' }).format(now);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts.timeZoneName ?? 'GMT-03:00').replace('GMT', '') || '+00:00';
  const ms = String(now.getMilliseconds()).padStart(3, '0');
  const iso = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${ms}${offset}`;
  return { formatted, iso, timestamp: now.getTime() };
}

export function formatJson(args: { json: string; indent?: number }): { valid: true; formatted: string } | { valid: false; error: string } {
  try {
    return { valid: true, formatted: JSON.stringify(JSON.parse(args.json), null, args.indent ?? 2) };
  } catch (err) {
    return { valid: false, error: (err as Error).message };
  }
}

export function calculatePrice(args: { plan: Plan; quantity: number; billingPeriod: 'monthly' | 'yearly' }) {
  return quotePrice(args.plan, args.quantity, args.billingPeriod);
}
