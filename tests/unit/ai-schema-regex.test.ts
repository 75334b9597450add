/**
 * JSON Schemas that callers supply (a chat's responseFormat.schema, a registered tool's
 * parameters) run their patterns on a linear-time engine (RE2), never on the backtracking one
 * (issue 35): a pattern such as `^(a+)+$` cannot freeze the process that validates with it.
 */
import vm from 'node:vm';
import { compileCallerSchema } from '../../models/ai/json-schema.rules';
import { argumentValidator, checkArguments, type ToolDefinition } from '../../models/ai/tool.rules';

// `^(a+)+$` against 40 a's and a '!': 2^40 steps of backtracking, about an hour of one core.
const EVIL = '^(a+)+$';
const ATTACK = 'a'.repeat(40) + '!';

/**
 * Runs `fn` and gives its result, or throws when it has not returned within `ms`: the guard that
 * turns a frozen validation into a failed test instead of a hung one (V8 interrupts even a regular
 * expression that backtracks). A bound on hanging, not a timing assertion: the linear engine
 * answers in milliseconds.
 */
function settles<T>(fn: () => T, ms = 10_000): T {
  return vm.runInNewContext('fn()', { fn }, { timeout: ms }) as T;
}

describe("a registered tool's parameters (the worker checks the model's arguments against them)", () => {
  const tool: ToolDefinition = {
    name: 'lookup',
    description: 'x',
    parameters: { type: 'object', properties: { q: { type: 'string', pattern: EVIL } }, required: ['q'], additionalProperties: false },
  };

  it('refuses arguments that do not match a backtracking pattern without backtracking', () => {
    expect(settles(() => checkArguments(tool, JSON.stringify({ q: ATTACK })))).toEqual({ ok: false, error: `invalid arguments: /q must match pattern "${EVIL}"` });
    expect(settles(() => checkArguments(tool, JSON.stringify({ q: 'a'.repeat(100_000) })))).toMatchObject({ ok: true });
  });

  it('refuses, when the tool is registered, a pattern the linear engine cannot run', () => {
    for (const pattern of ['^(a)\\1$', '^(?<x>a)\\k<x>$', '^(?=a)a$', '(?<!a)b']) {
      expect(() => argumentValidator({ type: 'object', properties: { q: { type: 'string', pattern } } })).toThrow(`pattern "${pattern}" is not supported`);
    }
  });
});

describe("a chat's response schema (the API checks the model's reply against it)", () => {
  const word = (pattern: string) => compileCallerSchema({ type: 'object', properties: { word: { type: 'string', pattern } }, required: ['word'] });

  it('answers a backtracking pattern correctly without backtracking', () => {
    const validate = word(EVIL);
    expect(settles(() => validate({ word: ATTACK }))).toBe(false);
    expect(validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([`/word must match pattern "${EVIL}"`]);
    expect(settles(() => validate({ word: 'a'.repeat(100_000) }))).toBe(true);
    expect(settles(() => validate({ word: 'a'.repeat(100_000) + '!' }))).toBe(false);
    expect(validate({ word: '' })).toBe(false);
  });

  it('runs patternProperties (and the additionalProperties they bound) on the same engine', () => {
    const validate = compileCallerSchema({ type: 'object', patternProperties: { [EVIL]: { type: 'integer' } }, additionalProperties: false });
    expect(settles(() => validate({ [ATTACK]: 1 }))).toBe(false);
    expect(validate({ aaa: 1 })).toBe(true);
    expect(validate({ aaa: 'x' })).toBe(false);
  });

  it('keeps each pattern of a schema apart', () => {
    const validate = compileCallerSchema({
      type: 'object',
      properties: { digits: { type: 'string', pattern: '^[0-9]+$' }, letters: { type: 'string', pattern: '^[a-z]+$' } },
    });
    expect(validate({ digits: '123', letters: 'abc' })).toBe(true);
    expect(validate({ digits: 'abc' })).toBe(false);
    expect(validate({ letters: '123' })).toBe(false);
  });

  it('reads patterns as ECMAScript regular expressions (unanchored, with the u flag)', () => {
    const cases: [string, string, boolean][] = [
      ['b', 'abc', true],
      ['^b', 'abc', false],
      ['^\\d{4}-\\d{2}$', '2026-11', true],
      ['^(?<year>\\d{4})$', '2026', true],
      ['^\\p{Lu}\\p{Ll}+$', 'Ávila', true],
      ['^\\p{Lu}\\p{Ll}+$', 'ávila', false],
      ['^.$', '😀', true],
      ['^\\u{1F600}$', '😀', true],
      ['^\\uD83D\\uDE00$', '😀', true],
      ['^[^]+$', 'a\nb', true],
      ['^a/b$', 'a/b', true],
      ['^\\\\k$', '\\k', true],
      ['^\\cJ$', '\n', true],
      ['^[\\-a]+$', '-a-', true],
    ];
    for (const [pattern, text, expected] of cases) expect([pattern, text, word(pattern)({ word: text })]).toEqual([pattern, text, expected]);
  });

  it('refuses what is not ECMAScript, and what RE2 cannot run, naming the pattern', () => {
    for (const pattern of ['(?i)abc', '\\z', 'a{,3}', '(']) expect(() => word(pattern)).toThrow(`pattern "${pattern}" is not a valid regular expression`);
    for (const pattern of ['^(a)\\1$', '^(?<x>a)\\k<x>$', '^(?=a)a$', '^(?!a)b$', '(?<=a)b', '(?<!a)b', '\\p{Script=Greek}']) {
      expect(() => word(pattern)).toThrow(`pattern "${pattern}" is not supported`);
    }
    expect(() => word('^(a)\\1$')).toThrow(/linear-time engine, RE2, which has no backreferences or lookaround/);
  });
});
