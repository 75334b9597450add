/**
 * Editing the curated entity catalogue (issue 38, PATCH /api/admin/entities/{id}): aliases, the B3
 * ticker and the CNPJ. Pure: the request's schema and how aliases are kept (bounded, each folded
 * spelling once, never the canonical name again).
 */
import { z } from 'zod';
import { formattedCnpj } from './cnpj.rules';
import { nameKey } from './ingest.rules';
import { TICKER } from './preferences.rules';

/** Aliases one entity keeps at most (the Entity view's bound). */
export const ALIASES_MAX = 100;
/** An alias is at most as long as a name (Entity view). */
export const ALIAS_MAX_LENGTH = 200;

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

const Alias = z
  .string()
  .max(ALIAS_MAX_LENGTH)
  .trim()
  .min(1)
  .regex(NO_CONTROL, 'must not contain control characters')
  .refine((a) => nameKey(a).length > 0, 'must contain a letter or a digit');

export const Cnpj = z
  .string()
  .max(18)
  .regex(/^(\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}|\d{14})$/, 'a CNPJ: 00.000.000/0000-00 or its 14 digits')
  .refine((v) => formattedCnpj(v) !== null, 'a CNPJ with valid check digits: 00.000.000/0000-00 or its 14 digits')
  .transform((v) => formattedCnpj(v)!);

/** A change to an entity: any of these, at least one; null clears the ticker or the CNPJ. */
export const EntityPatch = z
  .strictObject({
    aliases: z
      .array(Alias)
      .max(ALIASES_MAX)
      .describe(`Every alias, replacing the list (at most ${ALIASES_MAX}; each folded spelling kept once, the first written; the canonical name is left out). Linking reads aliases of 3 characters or more`),
    ticker: TICKER.nullable().describe('Its B3 ticker (PETR4, SANB11), or null'),
    cnpj: Cnpj.nullable().describe('Its CNPJ, with valid check digits (stored as 00.000.000/0000-00), or null'),
  })
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'change at least one field');
export type EntityPatch = z.output<typeof EntityPatch>;

/** The aliases kept: each folded spelling once (the first written), none the canonical name's. */
export function keptAliases(canonicalName: string, aliases: readonly string[]): string[] {
  const seen = new Set([nameKey(canonicalName)]);
  const kept: string[] = [];
  for (const a of aliases) {
    const key = nameKey(a);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    kept.push(a);
  }
  return kept.slice(0, ALIASES_MAX);
}

/** What linking finds an entity by: its folded canonical name and aliases (entity.model.ts nameKeys). */
export const nameKeysOf = (canonicalName: string, aliases: readonly string[]): string[] => [...new Set([canonicalName, ...aliases].map(nameKey).filter(Boolean))];
