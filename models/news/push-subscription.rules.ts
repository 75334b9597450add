/**
 * Readers' Web Push subscriptions (issue 40): how many browsers a reader may subscribe, the short
 * label a browser is listed by, and what one alert's push carries. Pure.
 */
import type { ReaderLanguage } from './preferences.rules';

/** Browsers one reader may subscribe at once (a phone, a laptop, a work computer… with room to spare). */
export const PUSH_SUBSCRIPTIONS_PER_READER = 10;

/** A push service keeps an alert this long for a browser that is offline: later, it is old news (the digest has it). */
export const PUSH_ALERT_TTL_SECONDS = 4 * 3600;

/** The longest notification body: what a phone shows in two or three lines. */
export const PUSH_BODY_MAX = 140;

/** A browser's label from its User-Agent, as the dashboard lists it in either language: "Firefox · Android". Never the raw header. */
export function browserLabel(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrom(e|ium)\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : 'Browser';
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad|iPod/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /CrOS/.test(ua)
            ? 'ChromeOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : null;
  return os ? `${browser} · ${os}` : browser;
}

/** What the service worker (web/public/sw.js) reads from a push: the notification's title, body and the page a click opens. */
export interface PushAlertPayload {
  title: string;
  body: string;
  url: string;
  /** Replaces an earlier notification of the same article on the device (Notification.tag). */
  tag: string;
  lang: ReaderLanguage;
}

const PREFIX: Record<ReaderLanguage, string> = { pt: 'Urgente', en: 'Breaking' };

/** One breaking article's push, in the reader's language: the headline, the start of its summary and its source, its address. */
export function pushAlertPayload(article: { id: string; title: string; summary: string | null; sourceName: string; url: string }, language: ReaderLanguage): PushAlertPayload {
  const summary = (article.summary ?? '').replace(/\s+/g, ' ').trim();
  const room = PUSH_BODY_MAX - article.sourceName.length - 3;
  const short = summary.length <= room ? summary : `${summary.slice(0, Math.max(0, room - 1)).trimEnd()}…`;
  return {
    title: `${PREFIX[language]}: ${article.title}`.slice(0, 200),
    body: short ? `${short} — ${article.sourceName}` : article.sourceName,
    url: article.url,
    tag: `article-${article.id}`,
    lang: language,
  };
}
