/**
 * Article pages read into what an article stores: the main text (Mozilla's Readability, the
 * engine of Firefox's reader view, over linkedom's DOM), title, subtitle, canonical URL,
 * publication date, language and whether the text is behind a paywall. Pure: the HTML is already
 * fetched and decoded; nothing here touches the network.
 *
 * Choices:
 * - Metadata is read before Readability runs, because Readability strips scripts (JSON-LD) and
 *   rewrites the document.
 * - canonicalUrl: <link rel="canonical">, else og:url; resolved against the page's URL, http(s)
 *   only, at most 2,048 characters.
 * - publishedAt: article:published_time (property or name), else the first datePublished of a
 *   JSON-LD article (NewsArticle, ReportageNewsArticle, BlogPosting…, also inside @graph, arrays
 *   and mainEntity), else a <time datetime> inside <article>, else one inside the text Readability
 *   kept. Dates are read by parseDate (feed.rules.ts): UTC when a time has no zone.
 * - subtitle: the first element, outside nav/aside/footer, with a class such as linha-fina,
 *   subtitle, standfirst or dek (BEM forms like content-head__subtitle included), else
 *   og:description, else the meta (or twitter:) description, else Readability's excerpt if it has 8 words or
 *   more (without a description it is the first paragraph, often a byline); any candidate equal to
 *   the title (case, accents and punctuation aside) is skipped. At most 1,000 characters.
 * - text: Readability's content as paragraphs (block elements end one) joined by blank lines,
 *   whitespace collapsed in each, ad labels left in the text by ad slots ("Publicidade",
 *   "Continua depois da publicidade", "Advertisement") dropped, at most 100,000 characters (cut at
 *   a paragraph end when one is near). wordCount counts the words of that text;
 *   readingTimeMinutes = max(1, ⌈words / 200⌉).
 * - paywalled: a JSON-LD node says isAccessibleForFree false (or "False"/"false"), or the text
 *   has fewer than minWords words (default 120: a teaser, not an article), or the text or a
 *   paywall box (class or id with paywall, regwall, piano, subscriber or assinante) carries a
 *   marker such as "exclusivo para assinantes", "assine para ler" or "subscribe to continue".
 *   Markers elsewhere on the page (a "most read" list) do not count. A paywall box of at most 80
 *   words that carries a marker is removed before Readability runs, so its message is not text.
 * - language: <html lang> if it looks like a language tag ("pt-BR", "pt_BR" → "pt-BR"), else null.
 * - The HTML is read up to 5,000,000 characters, which bounds the work whatever a server sends.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { fold } from '../text.rules';
import { clip, collapse, parseDate, textBlocksOf, type TextNode } from './feed.rules';

export interface ExtractedPage {
  title: string | null;
  subtitle: string | null;
  text: string;
  wordCount: number;
  canonicalUrl: string | null;
  publishedAt: Date | null;
  language: string | null;
  paywalled: boolean;
  readingTimeMinutes: number;
}

export const PAGE_LIMITS = { html: 5_000_000, text: 100_000, title: 500, subtitle: 1_000, url: 2_048, minWords: 120 } as const;

/** Phrases of paywall boxes and teasers, folded and without punctuation. */
export const PAYWALL_MARKERS: readonly string[] = [
  'exclusivo para assinantes',
  'exclusiva para assinantes',
  'assine para ler',
  'assine para continuar lendo',
  'para continuar lendo assine',
  'ja e assinante',
  'subscribe to continue',
  'subscribe to read',
  'for subscribers only',
];

/** Paragraphs that are only an ad slot's label, folded and without punctuation. */
const AD_LABELS = new Set(['publicidade', 'continua depois da publicidade', 'continua apos a publicidade', 'advertisement', 'anuncio']);

/** Class or id of the boxes publishers put paywall messages in. */
const PAYWALL_BOX = /paywall|regwall|piano|subscriber|assinante/i;
/** A paywall box with a marker and at most this many words is a message, removed from the text. */
const PAYWALL_BOX_MAX_WORDS = 80;
/** Readability's excerpt is a subtitle only with at least this many words (shorter ones are bylines and labels). */
const EXCERPT_MIN_WORDS = 8;
/** Class names of subtitles: linha-fina, subtitle, standfirst, dek, alone or as a BEM/prefixed suffix. */
const SUBTITLE_CLASS = /^(?:.*[-_])?(?:linha-fina|linhafina|subtitle|sub-title|standfirst|dek)$/i;
/** JSON-LD types that describe an article (schema.org Article and its news subtypes). */
const ARTICLE_TYPE = /^(?:Article|NewsArticle|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle|BackgroundNewsArticle|ReviewNewsArticle|AskPublicNewsArticle|BlogPosting|LiveBlogPosting|Report)$/;

/** The minimal DOM surface read here (linkedom's elements provide it). */
interface El extends TextNode {
  remove(): void;
  getAttribute(name: string): string | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
  closest(selector: string): El | null;
  textContent: string | null;
}

export function extractPage(html: string, pageUrl: string, opts: { minWords?: number } = {}): ExtractedPage {
  const minWords = opts.minWords ?? PAGE_LIMITS.minWords;
  const document = documentOf(html.length > PAGE_LIMITS.html ? html.slice(0, PAGE_LIMITS.html) : html);
  const doc = document as unknown as El & { documentElement: El | null };

  const jsonLd = readJsonLd(doc);
  const language = languageTag(doc.documentElement?.getAttribute('lang') ?? null);
  const canonicalUrl = canonicalOf(doc, pageUrl);
  const metaDate = parseDate(meta(doc, 'article:published_time'));
  const articleTimeDate = timeDate(doc.querySelector('article'));
  const subtitleCandidates = [...subtitleElements(doc), meta(doc, 'og:description'), meta(doc, 'description'), meta(doc, 'twitter:description')];
  // Paywall boxes are read for markers, then the short ones (a message, not a hidden article
  // section, which Google's markup also names .paywall) are removed so their text is not the article's.
  let paywallBoxText = '';
  for (const el of Array.from(doc.querySelectorAll('[class], [id]'))) {
    if (!PAYWALL_BOX.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`)) continue;
    const boxText = textBlocksOf(el).join(' ');
    paywallBoxText += ` ${boxText}`;
    if (countWords(boxText) <= PAYWALL_BOX_MAX_WORDS && hasMarker(boxText)) el.remove();
  }
  const fallbackTitle = meta(doc, 'og:title') ?? doc.querySelector('title')?.textContent ?? null;

  const article = readabilityOf(document);
  const content = (article?.content ?? null) as El | null;
  const paragraphs = content ? textBlocksOf(content).filter((p) => p.length > 40 || !AD_LABELS.has(comparable(p).trim())) : [];
  const text = capText(paragraphs.join('\n\n'), PAGE_LIMITS.text);
  const wordCount = countWords(text);

  const title = clip(collapse(article?.title ?? '') || collapse(fallbackTitle ?? ''), PAGE_LIMITS.title) || null;
  // Readability's excerpt is the first paragraph when a page has no description: a byline then.
  const excerpt = countWords(article?.excerpt ?? '') >= EXCERPT_MIN_WORDS ? (article?.excerpt ?? null) : null;
  const subtitle = pickSubtitle([...subtitleCandidates, excerpt], title);
  const publishedAt = metaDate ?? jsonLd.datePublished ?? articleTimeDate ?? timeDate(content) ?? parseDate(article?.publishedTime);
  const paywalled = jsonLd.notFree || wordCount < minWords || hasMarker(`${text} ${paywallBoxText}`);

  return { title, subtitle, text, wordCount, canonicalUrl, publishedAt, language, paywalled, readingTimeMinutes: Math.max(1, Math.ceil(wordCount / 200)) };
}

/** Readability's article, its content left as a DOM node; null when it finds none or cannot walk the document. */
function readabilityOf(document: ReturnType<typeof documentOf>) {
  try {
    return new Readability<TextNode>(document as unknown as ConstructorParameters<typeof Readability>[0], { serializer: (node) => node as unknown as TextNode }).parse();
  } catch {
    return null;
  }
}

/**
 * linkedom makes the first element the root: a page without <html> (optional in HTML5), a
 * fragment or junk would have no <body> for Readability, or no root at all. Those are wrapped.
 */
function documentOf(source: string) {
  const { document } = parseHTML(source);
  if (document.documentElement?.localName === 'html') return document;
  return parseHTML(`<!doctype html><html><head></head><body>${source}</body></html>`).document;
}

/** Words: runs of non-space characters holding a letter or digit ("R$" and "—" are not words). */
export const countWords = (text: string): number => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

const hasMarker = (text: string) => {
  const folded = comparable(text);
  return PAYWALL_MARKERS.some((m) => folded.includes(` ${m} `));
};

/** Folded, punctuation as spaces, padded: phrases compare whole-word with includes(` ${phrase} `). */
const comparable = (text: string) => ` ${fold(text).replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;

/** Content of <meta property=…> or <meta name=…>, trimmed; null when absent or empty. */
function meta(doc: El, key: string): string | null {
  for (const el of Array.from(doc.querySelectorAll('meta'))) {
    const k = (el.getAttribute('property') ?? el.getAttribute('name') ?? el.getAttribute('itemprop') ?? '').trim().toLowerCase();
    if (k === key) {
      const v = collapse(el.getAttribute('content') ?? '');
      if (v) return v;
    }
  }
  return null;
}

function canonicalOf(doc: El, pageUrl: string): string | null {
  const link = Array.from(doc.querySelectorAll('link[rel][href]')).find((el) => (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical'));
  return httpUrl(link?.getAttribute('href') ?? '', pageUrl) ?? httpUrl(meta(doc, 'og:url') ?? '', pageUrl);
}

function httpUrl(raw: string, base: string): string | null {
  if (!raw.trim()) return null;
  try {
    const u = new URL(raw.trim(), base);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.href.length <= PAGE_LIMITS.url ? u.href : null;
  } catch {
    return null;
  }
}

/** The first <time datetime> (or itemprop=datePublished) under an element that reads as a date. */
function timeDate(root: El | null): Date | null {
  if (!root) return null;
  for (const el of Array.from(root.querySelectorAll('time[datetime], [itemprop="datePublished"]'))) {
    const d = parseDate(el.getAttribute('datetime') ?? el.getAttribute('content'));
    if (d) return d;
  }
  return null;
}

function subtitleElements(doc: El): string[] {
  const found: string[] = [];
  for (const el of Array.from(doc.querySelectorAll('[class]'))) {
    if (!(el.getAttribute('class') ?? '').split(/\s+/).some((c) => SUBTITLE_CLASS.test(c))) continue;
    if (el.closest('nav, aside, footer')) continue;
    const text = textBlocksOf(el).join(' ');
    if (text) found.push(text);
    if (found.length >= 5) break;
  }
  return found;
}

function pickSubtitle(candidates: (string | null)[], title: string | null): string | null {
  const titleKey = comparable(title ?? '');
  for (const c of candidates) {
    const text = collapse(c ?? '');
    if (text && comparable(text) !== titleKey) return clip(text, PAGE_LIMITS.subtitle);
  }
  return null;
}

/** "pt-BR", "pt_br", "en" → a BCP 47-looking tag with "-"; anything else → null. */
function languageTag(raw: string | null): string | null {
  const tag = (raw ?? '').trim().replace(/_/g, '-');
  return /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i.test(tag) && tag.length <= 35 ? tag : null;
}

/** At most max characters: at the last paragraph end if it keeps 80% of the budget, else at a word. */
function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.lastIndexOf('\n\n', max);
  return end >= max * 0.8 ? text.slice(0, end) : clip(text, max);
}

// ---------------------------------------------------------------------------------------------
// JSON-LD

interface JsonLdFacts {
  datePublished: Date | null;
  notFree: boolean;
}

/** Nodes visited per page, and nesting followed: enough for real pages, bounded for hostile ones. */
const JSON_LD_MAX_NODES = 2_000;
const JSON_LD_MAX_DEPTH = 8;

/** datePublished of the first article node that has a readable one; whether any node is not free to read. */
function readJsonLd(doc: El): JsonLdFacts {
  const facts: JsonLdFacts = { datePublished: null, notFree: false };
  let visited = 0;
  const visit = (value: unknown, depth: number): void => {
    if (depth > JSON_LD_MAX_DEPTH || visited >= JSON_LD_MAX_NODES || value === null || typeof value !== 'object') return;
    visited++;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const node = value as Record<string, unknown>;
    const free = node.isAccessibleForFree;
    if (free === false || (typeof free === 'string' && free.trim().toLowerCase() === 'false')) facts.notFree = true;
    if (!facts.datePublished && isArticle(node['@type']) && typeof node.datePublished === 'string') facts.datePublished = parseDate(node.datePublished);
    for (const key of ['@graph', 'mainEntity', 'mainEntityOfPage', 'hasPart']) visit(node[key], depth + 1);
  };
  for (const script of Array.from(doc.querySelectorAll('script'))) {
    if (!/^application\/ld\+json\b/i.test((script.getAttribute('type') ?? '').trim())) continue;
    visit(parseJson(script.textContent ?? ''), 0);
  }
  return facts;
}

const isArticle = (type: unknown): boolean =>
  (Array.isArray(type) ? type : [type]).some((t) => typeof t === 'string' && ARTICLE_TYPE.test(t.replace(/^.*[/:#]/, '')));

/** JSON-LD as CMSs write it: sometimes in a CDATA or comment wrapper, sometimes with raw newlines in strings. */
function parseJson(raw: string): unknown {
  const text = raw
    .trim()
    .replace(/^(?:\/\/\s*)?<!\[CDATA\[|(?:\/\/\s*)?\]\]>$/g, '')
    .replace(/^<!--|-->$/g, '')
    .trim();
  try {
    return JSON.parse(text);
  } catch {
    try {
      // eslint-disable-next-line no-control-regex -- raw control characters inside strings are what breaks these documents
      return JSON.parse(text.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return null;
    }
  }
}
