/**
 * Text that goes into mail, whoever writes it (support's replies, readers' alerts and digests):
 * header values made safe, and text escaped for HTML. Pure.
 */

/** Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and bidi overrides. */
// eslint-disable-next-line no-control-regex -- control characters are what is removed
const UNSAFE_IN_HEADER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/**
 * A value safe in a header: every control character (CR and LF above all) and line separator made
 * a space, runs of spaces collapsed, trimmed, and at most `max` characters (cut with "…").
 */
export function headerSafe(value: string, max = 200): string {
  const flat = value.slice(0, max * 4).replace(UNSAFE_IN_HEADER, ' ').replace(/ {2,}/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** Text with `& < > " '` escaped, safe in an HTML element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
