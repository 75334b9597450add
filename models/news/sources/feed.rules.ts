/**
 * Feed documents (RSS 2.0 and 0.9x, Atom 1.0, RDF/RSS 1.0, JSON Feed 1.x) read into the items the
 * news sources turn into articles, plus the two helpers article pages share with feeds: dates as
 * publishers write them and HTML fragments as plain text. Pure: the body is already fetched and
 * decoded to a string; nothing here touches the network.
 *
 * Choices (what a feed item becomes):
 * - guid = the item's own id (RSS guid, Atom id, JSON Feed id, RDF rdf:about), else its resolved
 *   link: a guid is what tells a poll that an item was seen before, so it must not be empty.
 * - url = the item's page (RSS/RDF link, Atom rel="alternate" or unqualified link, JSON Feed url
 *   then external_url), resolved against the feed's URL, http(s) only and at most 2,048 characters
 *   (what an article's sourceUrl accepts); items without one, or without a title, are dropped:
 *   neither can become an article. Atom's xml:base is honoured (RFC 4287 §2, XML Base): an entry's
 *   link is resolved against the entry's xml:base, else the feed's, else the feed's URL, each base
 *   itself resolved against the one around it (feedsmith does not report a link element's own
 *   xml:base, which publishers rarely set). RSS and JSON Feed have none.
 * - title, summary and author are text: HTML is stripped (feeds put markup and entities in CDATA
 *   titles as often as in descriptions), entities decoded, whitespace collapsed, then cut at 500,
 *   5,000 and 200 characters. Atom text constructs of type "text" and JSON Feed's title and
 *   summary are plain text by their specs and are not read as HTML. The summary is the item's
 *   description/summary, else its full content read as text and cut.
 * - publishedAt: RSS pubDate, else dc:date; Atom published, else updated (required by Atom and
 *   usually the first publication); JSON Feed date_published, else date_modified. See parseDate.
 * - At most maxItems (default 200) entries of the feed are read, in the feed's order; an entry
 *   dropped for lack of a URL or title still counts, so the work is bounded by maxItems whatever
 *   the feed holds.
 */
import { MalformedError, parseFeed, type AnyFeed, type AtomFeed, type JsonFeed, type RdfFeed, type RssFeed } from 'feedsmith';
import { parseHTML } from 'linkedom';
import { fold } from '../text.rules';

export type FeedFormat = 'rss' | 'atom' | 'json' | 'rdf';

export interface FeedItem {
  guid: string;
  url: string;
  title: string;
  summary: string | null;
  publishedAt: Date | null;
  author: string | null;
}

export interface ParsedFeed {
  format: FeedFormat;
  title: string | null;
  items: FeedItem[];
}

/** Bounds on what a feed item carries (characters), matching what an article stores. */
export const FEED_LIMITS = { title: 500, summary: 5_000, guid: 2_048, url: 2_048, author: 200, maxItems: 200 } as const;

/** A body that is not a feed, or a feed too broken to read. The message says which. */
export class FeedParseError extends Error {
  override name = 'FeedParseError';
}

export function parseFeedDocument(body: string, contentType: string | null, feedUrl: string, opts: { maxItems?: number } = {}): ParsedFeed {
  const maxItems = Math.max(0, Math.floor(opts.maxItems ?? FEED_LIMITS.maxItems));
  const text = body.replace(/^\uFEFF/, '').trim();
  const served = contentType ? ` (served as ${contentType.split(';')[0]!.trim()})` : '';
  if (!text) throw new FeedParseError(`The feed at ${feedUrl} is empty${served}`);
  if (/^(?:<!doctype\s+html|<html[\s>])/i.test(text)) throw new FeedParseError(`The feed at ${feedUrl} is an HTML page, not a feed${served}`);
  let parsed: AnyFeed<string>;
  try {
    parsed = parseFeed<string>(text, { maxItems });
  } catch (err) {
    const reason = err instanceof MalformedError ? 'is malformed XML' : 'is not RSS, Atom, RDF or JSON Feed';
    throw new FeedParseError(`The feed at ${feedUrl} ${reason}${served}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const candidates = entriesOf(parsed, feedUrl);
  const items: FeedItem[] = [];
  for (const c of candidates.slice(0, maxItems)) {
    const url = httpUrl(c.link, c.base ?? feedUrl);
    const title = clip(c.titleIsHtml ? htmlToText(c.title) : collapse(c.title), FEED_LIMITS.title);
    if (!url || !title) continue;
    // Full-content items can carry a whole article: the first 100,000 characters give 5,000 of text.
    const rawSummary = c.summary.slice(0, 100_000);
    const summaryText = rawSummary ? (c.summaryIsHtml ? htmlToText(rawSummary) : collapse(rawSummary)) : '';
    const guid = clip(collapse(c.guid) || url, FEED_LIMITS.guid);
    items.push({
      guid,
      url,
      title,
      summary: clip(summaryText, FEED_LIMITS.summary) || null,
      publishedAt: c.dates.map(parseDate).find((d) => d !== null) ?? null,
      author: clip(htmlToText(c.author), FEED_LIMITS.author) || null,
    });
  }
  const feedTitle = parsed.format === 'atom' ? atomText(parsed.feed.title) : parsed.format === 'json' ? collapse(str(parsed.feed.title)) : htmlToText(str(parsed.feed.title));
  return { format: parsed.format, title: clip(feedTitle, FEED_LIMITS.title) || null, items };
}

/** One feed entry, format differences settled, before validation. */
interface Candidate {
  guid: string;
  link: string;
  title: string;
  titleIsHtml: boolean;
  summary: string;
  summaryIsHtml: boolean;
  author: string;
  dates: string[];
  /** What `link` is relative to, when the entry says (Atom's xml:base); else the feed's URL. */
  base?: string;
}

function entriesOf(parsed: AnyFeed<string>, feedUrl: string): Candidate[] {
  switch (parsed.format) {
    case 'rss':
      return (parsed.feed.items ?? []).map(rssEntry);
    case 'rdf':
      return (parsed.feed.items ?? []).map(rdfEntry);
    case 'atom': {
      const feedBase = xmlBase(parsed.feed.xml?.base, feedUrl);
      return (parsed.feed.entries ?? []).map((entry) => atomEntry(entry, feedBase));
    }
    case 'json':
      return (Array.isArray(parsed.feed.items) ? parsed.feed.items : []).map(jsonEntry);
  }
}

function rssEntry(item: RssFeed.Item<string>): Candidate {
  // A guid is the page's address unless it says otherwise; only an absolute one is taken as a link.
  const permalink = item.guid?.isPermaLink !== false && /^https?:\/\//i.test(str(item.guid?.value).trim()) ? str(item.guid?.value) : '';
  const link = str(item.link) || permalink;
  const person = item.authors?.[0];
  return {
    guid: str(item.guid?.value),
    link,
    title: str(item.title),
    titleIsHtml: true,
    summary: str(item.description) || str(item.content?.encoded),
    summaryIsHtml: true,
    author: str(person?.name) || str(item.dc?.creators?.[0]) || str(person?.email),
    dates: [str(item.pubDate), str(item.dc?.dates?.[0]), str(item.dcterms?.created)],
  };
}

function rdfEntry(item: RdfFeed.Item<string>): Candidate {
  return {
    guid: str(item.rdf?.about),
    link: str(item.link) || str(item.rdf?.about),
    title: str(item.title),
    titleIsHtml: true,
    summary: str(item.description) || str(item.content?.encoded),
    summaryIsHtml: true,
    author: str(item.dc?.creators?.[0]),
    dates: [str(item.dc?.dates?.[0])],
  };
}

function atomEntry(entry: AtomFeed.Entry<string>, feedBase: string): Candidate {
  const links = entry.links ?? [];
  const page = links.find((l) => (l.rel ?? 'alternate') === 'alternate' && (!l.type || /html/i.test(l.type))) ?? links.find((l) => (l.rel ?? 'alternate') === 'alternate');
  const summary = entry.summary ?? (entry.content?.src ? undefined : entry.content);
  return {
    guid: str(entry.id),
    link: str(page?.href),
    base: xmlBase(entry.xml?.base, feedBase),
    title: str(entry.title?.value),
    titleIsHtml: isAtomHtml(entry.title?.type),
    summary: str(summary?.value),
    summaryIsHtml: isAtomHtml(summary?.type),
    author: str(entry.authors?.[0]?.name) || str(entry.dc?.creators?.[0]),
    dates: [str(entry.published), str(entry.updated), str(entry.dc?.dates?.[0])],
  };
}

function jsonEntry(item: JsonFeed.Item<string>): Candidate {
  const plain = str(item.summary) || str(item.content_text);
  return {
    guid: str(item.id),
    link: str(item.url) || str(item.external_url),
    title: str(item.title),
    titleIsHtml: false,
    summary: plain || str(item.content_html),
    summaryIsHtml: !plain,
    author: str(item.authors?.[0]?.name) || str((item as { author?: { name?: unknown } }).author?.name),
    dates: [str(item.date_published), str(item.date_modified)],
  };
}

/** Atom text constructs: "html" is escaped HTML, "xhtml" inline markup, "text" (the default) plain. */
const isAtomHtml = (type: string | undefined) => type === 'html' || type === 'xhtml' || (type !== undefined && /html/i.test(type));
const atomText = (t: AtomFeed.Text | undefined) => (isAtomHtml(t?.type) ? htmlToText(str(t?.value)) : collapse(str(t?.value)));

/** Feeds parsed from JSON can hold anything where a string is expected. */
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/**
 * The base URI an element's xml:base sets: the attribute resolved against the base around it
 * (XML Base: a relative xml:base is relative to its parent's). The outer base when the attribute
 * is absent or cannot be read as a URL.
 */
function xmlBase(attribute: unknown, outer: string): string {
  const raw = str(attribute).trim();
  if (!raw) return outer;
  try {
    return new URL(raw, outer).href;
  } catch {
    return outer;
  }
}

/** Absolute http(s) URL of a link, resolved against its base; null when it is not one. */
function httpUrl(link: string, base: string): string | null {
  const raw = link.trim();
  if (!raw) return null;
  try {
    const u = new URL(raw, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.href.length <= FEED_LIMITS.url ? u.href : null;
  } catch {
    return null;
  }
}

/** Whitespace (including non-breaking spaces) collapsed to single spaces, trimmed. */
export const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * At most `max` characters: cut at the last space in the final fifth if there is one (no half
 * words), never inside a surrogate pair, with "…" to show the cut.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--;
  const space = text.lastIndexOf(' ', cut);
  if (space > max * 0.8) cut = space;
  return text.slice(0, cut).trimEnd() + '…';
}

// ---------------------------------------------------------------------------------------------
// HTML as text

/** Elements whose text is never read: code, styles and embedded documents. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'svg', 'math', 'head', 'select', 'button']);

/** Elements that start and end a block of text (a paragraph once read). */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary',
  'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'br',
]);

/** What the block walker needs of a DOM node (linkedom's nodes, or any DOM's). */
export interface TextNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<TextNode>;
}

/**
 * The text of a DOM subtree as paragraphs: each block element (p, li, h2, div, br…) ends one,
 * inline elements run together, whitespace in each is collapsed and empty ones are dropped.
 * Iterative (deeply nested pages do not overflow the stack).
 */
export function textBlocksOf(root: TextNode): string[] {
  const blocks: string[] = [];
  let current = '';
  const flush = () => {
    const b = collapse(current);
    if (b) blocks.push(b);
    current = '';
  };
  // A stack of nodes to visit; `null` marks the end of a block element.
  const stack: (TextNode | null)[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (node === null) {
      flush();
      continue;
    }
    if (!node) continue;
    if (node.nodeType === 3) {
      current += node.nodeValue ?? '';
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = node.nodeName.toLowerCase();
    if (SKIPPED.has(name)) continue;
    const block = BLOCKS.has(name);
    if (block) {
      flush();
      stack.push(null);
    }
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  flush();
  return blocks;
}

/** One scratch document for fragments: making a document costs more than parsing a summary into one. */
let scratch: ReturnType<typeof parseHTML>['document'] | null = null;

/** An HTML fragment as one line of text: tags stripped, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return collapse(html);
  scratch ??= parseHTML('<!doctype html><html><head></head><body></body></html>').document;
  const body = scratch.body;
  body.innerHTML = html;
  const text = textBlocksOf(body as unknown as TextNode).join(' ');
  body.innerHTML = '';
  return text;
}

// ---------------------------------------------------------------------------------------------
// Dates

/** RFC 3339 / ISO 8601: date, optional time (T or space), optional fraction and offset. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** RFC 822 / 1123 ("Tue, 10 Jun 2025 14:30:00 -0300"), weekday optional, seconds optional. */
const RFC822_DATE = /^(?:[^\s\d,]+\.?,?\s+)?(\d{1,2})\s+([^\s\d.,]+)\.?,?\s+(\d{4}|\d{2})(?:,?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s*([+-]\d{2}:?\d{2}|[a-z]{1,5}))?$/i;

/** Months by the first three letters of their English or Portuguese names, folded. */
const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, fev: 2, mar: 3, apr: 4, abr: 4, may: 5, mai: 5, jun: 6, jul: 7, aug: 8, ago: 8, sep: 9, set: 9, oct: 10, out: 10, nov: 11, dec: 12, dez: 12,
};

/** Zone names feeds use, in minutes east of UTC (RFC 822's, and Brazil's and Europe's common ones). */
const ZONES: Record<string, number> = {
  ut: 0, utc: 0, gmt: 0, z: 0, wet: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420,
  brt: -180, brst: -120, bst: 60, cet: 60, cest: 120, west: 60,
};

/**
 * A date as feeds and pages write it: RFC 3339/ISO 8601 or RFC 822/1123 (English or Portuguese
 * month names). Deterministic: a time without an offset is read as UTC (never the machine's zone),
 * as is an unknown zone name (RFC 1123 §5.2.14 says to treat military and other unreliable zones
 * as -0000). Invalid dates (30 February, hour 25, text) and years before 1970 (zero dates such as
 * 0001-01-01 that CMSs emit for "unknown") give null.
 */
export function parseDate(raw: string | null | undefined): Date | null {
  const text = collapse(raw ?? '');
  if (!text || text.length > 64) return null;
  const iso = ISO_DATE.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, zone] = iso;
    const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
    return utcDate(+y!, +mo!, +d!, +(h ?? 0), +(mi ?? 0), +(s ?? 0), Math.min(ms, 999), offsetMinutes(zone));
  }
  const rfc = RFC822_DATE.exec(text);
  if (rfc) {
    const [, d, monthName, y, h, mi, s, zone] = rfc;
    const month = MONTHS[fold(monthName!).slice(0, 3)];
    if (!month) return null;
    const year = y!.length === 2 ? (+y! < 50 ? 2000 + +y! : 1900 + +y!) : +y!;
    return utcDate(year, month, +d!, +(h ?? 0), +(mi ?? 0), +(s ?? 0), 0, offsetMinutes(zone));
  }
  return null;
}

/** Minutes east of UTC for "+hh:mm", "-hhmm", "+hh" or a zone name; 0 when absent or unknown. */
function offsetMinutes(zone: string | undefined): number {
  if (!zone) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (m) return (m[1] === '-' ? -1 : 1) * (+m[2]! * 60 + +(m[3] ?? 0));
  return ZONES[zone.toLowerCase()] ?? 0;
}

function utcDate(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, offset: number): Date | null {
  if (year < 1970 || year > 9999 || hour > 23 || minute > 59 || second > 60 || Math.abs(offset) > 18 * 60) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), ms);
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return new Date(local - offset * 60_000);
}
