/** The fuzzing run's bookkeeping (ops/fuzz.ts): counts read from schemathesis' JUnit report. */
import { junitCounts } from '../../ops/fuzz';
import { wholeNumber, emailAddress } from '../../models/params.rules';

describe('junitCounts', () => {
  it('adds tests, failures and errors over every suite', () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="a" tests="31" failures="2" errors="1" skipped="0"><testcase/></testsuite>
      <testsuite name="b" tests="4" failures="0" errors="0"></testsuite></testsuites>`;
    expect(junitCounts(xml)).toEqual({ tests: 35, failed: 3 });
  });

  it('reads nothing from a report without suites', () => {
    expect(junitCounts('<testsuites/>')).toEqual({ tests: 0, failed: 0 });
  });
});

describe('text parameters', () => {
  it('wholeNumber refuses an empty value instead of reading it as 0, and fills only an absent one', () => {
    const offset = wholeNumber((n) => n.min(0)).default(0);
    expect(offset.safeParse('').success).toBe(false);
    expect(offset.safeParse(' ').success).toBe(false);
    expect(offset.safeParse('1.5').success).toBe(false);
    expect(offset.safeParse('-1').success).toBe(false);
    expect(offset.parse('7')).toBe(7);
    expect(offset.parse(undefined)).toBe(0);
  });

  it('emailAddress keeps to RFC 5321 lengths', () => {
    expect(emailAddress.safeParse(`${'a'.repeat(64)}@example.com`).success).toBe(true);
    expect(emailAddress.safeParse(`${'a'.repeat(65)}@example.com`).success).toBe(false);
    expect(emailAddress.safeParse('not an address').success).toBe(false);
  });
});
