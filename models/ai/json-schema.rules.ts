/**
 * JSON Schemas that callers supply (a chat's responseFormat.schema, a registered tool's
 * parameters) are compiled by Ajv in the API and checked against model output in the API and the
 * worker. Their `pattern` and `patternProperties` run on RE2 (re2js, pure JavaScript), whose
 * matching is linear in the input: a pattern such as `^(a+)+$`, which makes the backtracking
 * engine spend hours on 40 characters, cannot freeze the process (issue 35; docs/decisions.md).
 *
 * A pattern is read as JSON Schema says, an ECMAScript regular expression (with the u flag, as Ajv
 * does): one that is not one is refused, as before. RE2 then runs it; what RE2 has no linear-time
 * way to run (backreferences, lookahead, lookbehind) is refused while the schema is compiled, so the
 * request that brought it is a 400 before anything starts. Known differences: `\s` is ASCII
 * whitespace and `.` excludes only `\n` (ECMAScript adds the Unicode spaces and line separators).
 */
import Ajv, { type CodeOptions, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;

export class UnsupportedPatternError extends Error {
  override name = 'UnsupportedPatternError';
}

const unsupported = (pattern: string, why: string) =>
  new UnsupportedPatternError(`pattern "${pattern}" is not supported: ${why} (patterns run on a linear-time engine, RE2, which has no backreferences or lookaround)`);

/**
 * The pattern as RE2 reads it. Escapes are walked one by one so that an escaped backslash is never
 * taken for the start of another escape: `\k<name>` (a named backreference, which RE2's translation
 * would make the literal `k<name>`) is refused, and an escaped surrogate pair becomes the one code
 * point it stands for under the u flag (RE2 matches code points, never lone surrogates).
 */
function forRe2(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = pattern[i + 1] ?? '';
    if (next === 'k') throw unsupported(pattern, 'a named backreference (\\k<…>)');
    const pair = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i.exec(pattern.slice(i));
    if (pair) {
      const high = Number.parseInt(pair[1]!, 16);
      const low = Number.parseInt(pair[2]!, 16);
      out += `\\u{${(((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000).toString(16)}}`;
      i += pair[0].length - 1;
      continue;
    }
    out += c + next;
    i += 1;
  }
  return RE2JS.translateRegExp(out);
}

/** Ajv's `code.regExp`: compiles a schema's pattern for RE2, or throws (the schema does not compile). */
export const re2RegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      // Only parsed, never run: the pattern must be ECMAScript's, as JSON Schema says.
      new RegExp(pattern, flags);
    } catch (err) {
      throw new UnsupportedPatternError(`pattern "${pattern}" is not a valid regular expression: ${(err as Error).message}`);
    }
    let re: RE2JS;
    try {
      re = RE2JS.compile(forRe2(pattern));
    } catch (err) {
      if (err instanceof UnsupportedPatternError) throw err;
      throw unsupported(pattern, (err as Error).message);
    }
    // toString is Ajv's key for reusing a compiled pattern within a schema: one per pattern.
    return { test: (s: string) => re.test(s), toString: () => `re2:/${pattern}/${flags}` };
  },
  { code: 'RE2JS' },
);

/** An Ajv for caller-supplied schemas: every pattern on RE2. */
export function callerSchemaAjv(): Ajv {
  return new Ajv({ allErrors: true, strict: false, code: { regExp: re2RegExp } });
}

const ajv = callerSchemaAjv();

/**
 * A caller's schema compiled for one use: Ajv keeps every schema it compiles in its cache (keyed by
 * the object), so a long-lived instance would grow with every request. Throws when it is not a
 * valid schema, or holds a pattern RE2 cannot run.
 */
export function compileCallerSchema(schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    try {
      ajv.removeSchema(schema);
    } catch {
      // a schema with an unusable $id was never stored
    }
  }
}
