/**
 * Mail to readers (issue 40): breaking alerts, and the headers mailbox providers' bulk-sender
 * rules expect of a list. Pure: text and HTML in the reader's language, everything the article
 * holds escaped in the HTML and flattened in headers.
 *
 * Each list's mail carries (RFC 2369, RFC 2919, RFC 8058, RFC 3834; Gmail's and Yahoo's sender
 * guidelines):
 * - `List-Id` naming the list (`alerts.<domain>`, `digest.<domain>`);
 * - `List-Unsubscribe: <https://…/unsubscribe/<token>>` and `List-Unsubscribe-Post:
 *   List-Unsubscribe=One-Click`: a provider's POST to that address switches the list off, no
 *   sign-in, no cookie (the token says who and which list);
 * - `Precedence: bulk` and `Auto-Submitted: auto-generated`, so autoresponders stay quiet;
 * - `Feedback-ID` (Gmail's feedback loop groups complaints by it).
 */
import { escapeHtml, headerSafe } from '../shared/mail-text.rules';
import type { ReaderLanguage } from './preferences.rules';

/** The lists a reader is on: a setting each, which one-click unsubscribe switches off. */
export const READER_LISTS = ['alerts', 'digest'] as const;
export type ReaderList = (typeof READER_LISTS)[number];

/** The setting of notificationSettings a list's unsubscribe turns off. */
export const SETTING_OF_LIST: Record<ReaderList, 'email' | 'digest'> = { alerts: 'email', digest: 'digest' };

export interface ListHeadersInput {
  list: ReaderList;
  /** The domain of the sender's address: lists are named under it. */
  domain: string;
  unsubscribeUrl: string;
}

const LIST_NAMES: Record<ReaderList, string> = { alerts: 'Breaking alerts', digest: 'Daily digest' };

/** The headers of a list's mail (values hold no CR or LF: every part is ours or checked). */
export function listHeaders({ list, domain, unsubscribeUrl }: ListHeadersInput): Record<string, string> {
  return {
    'List-Id': `"${LIST_NAMES[list]}" <${list}.${domain}>`,
    'List-Unsubscribe': `<${unsubscribeUrl}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    Precedence: 'bulk',
    'Auto-Submitted': 'auto-generated',
    'Feedback-ID': `${list}:news:newsletter-platform`,
  };
}

/** What a breaking alert says of its article. */
export interface AlertArticle {
  title: string;
  summary: string | null;
  sourceName: string;
  url: string;
  publishedAt: Date;
}

export interface ReaderMailLinks {
  unsubscribeUrl: string;
  preferencesUrl: string;
}

const WORDS = {
  pt: {
    breaking: 'Urgente',
    from: 'Fonte',
    read: 'Ler a notícia',
    why: 'Você recebe este alerta porque segue este assunto e ligou os alertas urgentes por e-mail.',
    manage: 'Ajustar notificações',
    unsubscribe: 'Parar os alertas por e-mail',
    at: (d: Date) => d.toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }),
  },
  en: {
    breaking: 'Breaking',
    from: 'Source',
    read: 'Read the article',
    why: 'You get this alert because you follow this subject and turned on breaking alerts by e-mail.',
    manage: 'Notification settings',
    unsubscribe: 'Stop alerts by e-mail',
    at: (d: Date) => d.toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC',
  },
} as const;

/** What every reader mail ends with: why it came, where to change it, and the way out. */
interface FooterWords {
  why: string;
  manage: string;
  unsubscribe: string;
}
const footerLines = (w: FooterWords, links: ReaderMailLinks): string[] => ['-- ', w.why, `${w.manage}: ${links.preferencesUrl}`, `${w.unsubscribe}: ${links.unsubscribeUrl}`, ''];
const footerHtml = (w: FooterWords, links: ReaderMailLinks): string =>
  `<hr style="border:none;border-top:1px solid #d0d7de">
<p style="font-size:12px;color:#57606a">${escapeHtml(w.why)}<br><a href="${escapeHtml(links.preferencesUrl)}" style="color:#1d4ed8">${escapeHtml(w.manage)}</a> · <a href="${escapeHtml(links.unsubscribeUrl)}" style="color:#1d4ed8">${escapeHtml(w.unsubscribe)}</a></p>`;

/** A breaking alert's subject, text and HTML. */
export function composeAlertMail(article: AlertArticle, language: ReaderLanguage, links: ReaderMailLinks): { subject: string; text: string; html: string } {
  const w = WORDS[language];
  const title = headerSafe(article.title, 180);
  const summary = article.summary?.trim() ?? '';
  const text = [
    `${w.breaking}: ${article.title}`,
    '',
    ...(summary ? [summary, ''] : []),
    `${w.from}: ${article.sourceName} — ${w.at(article.publishedAt)}`,
    `${w.read}: ${article.url}`,
    '',
    ...footerLines(w, links),
  ].join('\n');
  const html = `<!doctype html>
<html lang="${language === 'pt' ? 'pt-BR' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;color:#1b1f24;background:#ffffff">
<p style="margin:0 0 8px;font-size:13px;font-weight:bold;color:#b42318;text-transform:uppercase">${escapeHtml(w.breaking)}</p>
<h1 style="margin:0 0 12px;font-size:20px;line-height:1.3">${escapeHtml(article.title)}</h1>
${summary ? `<p style="margin:0 0 12px;font-size:15px;line-height:1.5">${escapeHtml(summary)}</p>` : ''}
<p style="margin:0 0 16px;font-size:13px;color:#57606a">${escapeHtml(w.from)}: ${escapeHtml(article.sourceName)} — ${escapeHtml(w.at(article.publishedAt))}</p>
<p style="margin:0 0 24px"><a href="${escapeHtml(article.url)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(w.read)}</a></p>
${footerHtml(w, links)}
</body></html>
`;
  return { subject: `${w.breaking}: ${title}`, text, html };
}

/** One article of a digest, as the mail shows it. */
export interface DigestLine {
  title: string;
  summary: string | null;
  sourceName: string;
  url: string;
  isBreaking: boolean;
}

const DIGEST_WORDS = {
  pt: {
    subject: (day: string, n: number) => `Seu resumo de ${day}: ${n} ${n === 1 ? 'notícia' : 'notícias'}`,
    intro: 'As notícias mais relevantes para você nas últimas 24 horas, pelo que você segue.',
    breaking: 'Urgente',
    read: 'Ler',
    why: 'Você recebe este resumo porque ligou o resumo diário por e-mail.',
    manage: 'Ajustar notificações',
    unsubscribe: 'Parar o resumo diário',
  },
  en: {
    subject: (day: string, n: number) => `Your digest for ${day}: ${n} ${n === 1 ? 'article' : 'articles'}`,
    intro: 'The most relevant articles for you in the last 24 hours, by what you follow.',
    breaking: 'Breaking',
    read: 'Read',
    why: 'You get this digest because you turned on the daily digest by e-mail.',
    manage: 'Notification settings',
    unsubscribe: 'Stop the daily digest',
  },
} as const;

/** A daily digest's subject, text and HTML: its articles in order, each with a link to read it. */
export function composeDigestMail(lines: readonly DigestLine[], day: string, language: ReaderLanguage, links: ReaderMailLinks): { subject: string; text: string; html: string } {
  const w = DIGEST_WORDS[language];
  const subject = w.subject(day, lines.length);
  const label = (l: DigestLine) => (l.isBreaking ? `[${w.breaking}] ` : '');
  const text = [
    w.intro,
    '',
    ...lines.flatMap((l, i) => [`${i + 1}. ${label(l)}${l.title}`, ...(l.summary?.trim() ? [`   ${l.summary.trim()}`] : []), `   ${l.sourceName} — ${l.url}`, '']),
    ...footerLines(w, links),
  ].join('\n');
  const items = lines
    .map(
      (l) => `<li style="margin:0 0 16px">
${l.isBreaking ? `<span style="font-size:12px;font-weight:bold;color:#b42318;text-transform:uppercase">${escapeHtml(w.breaking)}</span><br>` : ''}<a href="${escapeHtml(l.url)}" style="font-size:16px;font-weight:bold;color:#1d4ed8;text-decoration:none">${escapeHtml(l.title)}</a>
${l.summary?.trim() ? `<p style="margin:4px 0;font-size:14px;line-height:1.5">${escapeHtml(l.summary.trim())}</p>` : ''}<p style="margin:2px 0;font-size:12px;color:#57606a">${escapeHtml(l.sourceName)}</p>
</li>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html lang="${language === 'pt' ? 'pt-BR' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;color:#1b1f24;background:#ffffff">
<h1 style="margin:0 0 8px;font-size:20px;line-height:1.3">${escapeHtml(subject)}</h1>
<p style="margin:0 0 16px;font-size:14px;color:#57606a">${escapeHtml(w.intro)}</p>
<ol style="padding-left:20px;margin:0 0 24px">
${items}
</ol>
${footerHtml(w, links)}
</body></html>
`;
  return { subject, text, html };
}
