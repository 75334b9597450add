/**
 * What the news-web double's sites send: RSS 2.0, Atom 1.0 and JSON Feed 1.1 documents, article
 * pages in HTML5 with the metadata real news sites carry (title, description, Open Graph,
 * canonical link, article:published_time, a JSON-LD NewsArticle), each site's boilerplate around
 * the <article> (header, nav, related links, newsletter box, footer), paywall stubs, the home
 * page and robots.txt. Dates are written as the sites write them: São Paulo time (UTC−3, no
 * daylight saving since 2019) with its offset, or GMT. Pure: strings in, strings out.
 */
import type { CatalogItem, SiteSpec } from './sites';

/** An item with what publishing gave it: its date and its URLs on the site's origin. */
export interface PublishedItem extends CatalogItem {
  publishedAt: Date;
  /** The URL the feed gives (may carry utm tracking). */
  link: string;
  /** The URL the page declares canonical. */
  canonical: string;
  /** The feed item's id, when the site gives one. */
  guid?: string;
}

const escapeMarkup = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const cdata = (s: string) => `<![CDATA[${s.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
const pad = (n: number) => String(n).padStart(2, '0');

/** The wall-clock fields of a date in São Paulo. */
function saoPaulo(date: Date) {
  const d = new Date(date.getTime() - 3 * 3_600_000);
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(), wd: d.getUTCDay() };
}

/** 2025-05-14T10:32:00-03:00 */
export function isoSaoPaulo(date: Date): string {
  const p = saoPaulo(date);
  return `${p.y}-${pad(p.mo)}-${pad(p.d)}T${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}-03:00`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 822 with the São Paulo offset: Wed, 14 May 2025 10:32:00 -0300 */
function rfc822SaoPaulo(date: Date): string {
  const p = saoPaulo(date);
  return `${DAYS[p.wd]}, ${pad(p.d)} ${MONTHS[p.mo - 1]} ${p.y} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)} -0300`;
}

/** 14/05/2025 10h32, as Brazilian sites print a date. */
function displayDate(date: Date): string {
  const p = saoPaulo(date);
  return `${pad(p.d)}/${pad(p.mo)}/${p.y} ${pad(p.h)}h${pad(p.mi)}`;
}

/** The path of a page's dated canonical URL (Pregão Online's style). */
export function datedPath(date: Date, slug: string): string {
  const p = saoPaulo(date);
  return `/mercados/${p.y}/${pad(p.mo)}/${slug}`;
}

export const CONTENT_TYPES = {
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  json: 'application/feed+json; charset=utf-8',
} as const;

/** The site's feed over these items (newest first), updated at `updated`. */
export function renderFeed(site: SiteSpec, origin: string, feedUrl: string, items: PublishedItem[], updated: Date): string {
  if (site.format === 'atom') return atomFeed(site, origin, feedUrl, items, updated);
  if (site.format === 'json') return jsonFeed(site, origin, feedUrl, items);
  return rssFeed(site, origin, feedUrl, items, updated);
}

function rssFeed(site: SiteSpec, origin: string, feedUrl: string, items: PublishedItem[], updated: Date): string {
  const date = (d: Date) => (site.rssDates === 'offset' ? rfc822SaoPaulo(d) : d.toUTCString());
  const entries = items.map((item) => {
    const lines = [
      `      <title>${escapeMarkup(item.title)}</title>`,
      `      <link>${escapeMarkup(item.link)}</link>`,
      item.guid === undefined ? '' : `      <guid isPermaLink="${site.guid.kind === 'permalink'}">${escapeMarkup(item.guid)}</guid>`,
      `      <pubDate>${date(item.publishedAt)}</pubDate>`,
      `      <dc:creator>${escapeMarkup(item.author)}</dc:creator>`,
      `      <category>${escapeMarkup(item.section)}</category>`,
      ...item.tickers.map((t) => `      <category domain="${origin}/tags">${t}</category>`),
      `      <description>${escapeMarkup(item.summary)}</description>`,
      // The daily sends a teaser as HTML too, as many WordPress-era feeds do.
      site.rssDates === 'offset' ? `      <content:encoded>${cdata(`<p><strong>${escapeMarkup(item.subtitle)}</strong></p><p>${escapeMarkup(item.summary)}</p>`)}</content:encoded>` : '',
    ];
    return `    <item>\n${lines.filter(Boolean).join('\n')}\n    </item>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>${escapeMarkup(site.name)}</title>
    <link>${origin}/</link>
    <description>${escapeMarkup(site.description)}</description>
    <language>pt-BR</language>
    <lastBuildDate>${date(updated)}</lastBuildDate>
    <atom:link href="${escapeMarkup(feedUrl)}" rel="self" type="application/rss+xml"/>
${entries.join('\n')}
  </channel>
</rss>
`;
}

function atomFeed(site: SiteSpec, origin: string, feedUrl: string, items: PublishedItem[], updated: Date): string {
  const entries = items.map(
    (item) => `  <entry>
    <id>${escapeMarkup(item.guid ?? item.canonical)}</id>
    <title type="text">${escapeMarkup(item.title)}</title>
    <link rel="alternate" type="text/html" href="${escapeMarkup(item.link)}"/>
    <published>${isoSaoPaulo(item.publishedAt)}</published>
    <updated>${isoSaoPaulo(item.publishedAt)}</updated>
    <author><name>${escapeMarkup(item.author)}</name></author>
    <category term="${escapeMarkup(item.section)}"/>
${item.tickers.map((t) => `    <category term="${t}" scheme="${origin}/tags"/>`).join('\n')}
    <summary type="text">${escapeMarkup(item.summary)}</summary>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="pt-BR">
  <id>${origin}/</id>
  <title>${escapeMarkup(site.name)}</title>
  <subtitle>${escapeMarkup(site.description)}</subtitle>
  <updated>${isoSaoPaulo(updated)}</updated>
  <link rel="self" type="application/atom+xml" href="${escapeMarkup(feedUrl)}"/>
  <link rel="alternate" type="text/html" href="${origin}/"/>
  <author><name>Redação ${escapeMarkup(site.name)}</name></author>
${entries.join('\n')}
</feed>
`;
}

function jsonFeed(site: SiteSpec, origin: string, feedUrl: string, items: PublishedItem[]): string {
  return `${JSON.stringify(
    {
      version: 'https://jsonfeed.org/version/1.1',
      title: site.name,
      home_page_url: `${origin}/`,
      feed_url: feedUrl,
      description: site.description,
      language: 'pt-BR',
      authors: [{ name: site.name }],
      items: items.map((item) => ({
        id: item.guid ?? item.canonical,
        url: item.link,
        title: item.title,
        summary: item.summary,
        content_text: item.summary,
        date_published: item.publishedAt.toISOString(),
        authors: [{ name: item.author }],
        tags: [item.section, ...item.tickers],
        // A JSON Feed extension (names starting with "_" are the publisher's own).
        ...(item.paywalled ? { _folha_economica: { exclusivo_assinantes: true } } : {}),
      })),
    },
    null,
    2,
  )}\n`;
}

/** A JSON-LD block safe inside <script> (no "</script>" can close it early). */
const jsonLd = (value: unknown) => JSON.stringify(value, null, 2).replace(/</g, '\\u003c');

function shell(site: SiteSpec, origin: string, feedUrl: string, head: string, main: string): string {
  const nav = site.look.nav.map((label) => `<li><a href="/${label.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-')}">${escapeMarkup(label)}</a></li>`).join('');
  return `<!DOCTYPE html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
<link rel="alternate" type="${CONTENT_TYPES[site.format].split(';')[0]}" title="${escapeMarkup(site.name)}" href="${escapeMarkup(feedUrl)}">
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<div id="cookie-banner" class="cookie-banner" role="dialog">Usamos cookies para melhorar sua experiência. Ao continuar navegando, você concorda com a nossa política de privacidade. <button type="button">Aceitar</button></div>
<header class="site-header">
<a class="logo" href="${origin}/">${escapeMarkup(site.name)}</a>
<p class="tagline">${escapeMarkup(site.look.tagline)}</p>
<nav class="menu-principal" aria-label="Menu principal"><ul>${nav}</ul></nav>
<div class="barra-cotacoes">Ibovespa 140.312 pts ▲ 1,6% · Dólar R$ 5,52 ▼ 0,7% · Euro R$ 6,24 · Bitcoin US$ 98.104</div>
</header>
${main}
<footer class="site-footer">
${site.look.footer.map((line, i) => (i === 0 ? `<p>${escapeMarkup(line)}</p>` : `<a href="/institucional/${i}">${escapeMarkup(line)}</a>`)).join('\n')}
</footer>
</body>
</html>
`;
}

/** The article page of an item; `related` are other recent items of the site (the sidebar). */
export function renderPage(site: SiteSpec, origin: string, feedUrl: string, item: PublishedItem, related: PublishedItem[]): string {
  const published = isoSaoPaulo(item.publishedAt);
  const title = `${item.title} | ${site.name}`;
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    headline: item.title,
    alternativeHeadline: item.subtitle,
    description: item.summary,
    datePublished: published,
    dateModified: published,
    inLanguage: 'pt-BR',
    articleSection: item.section,
    keywords: item.tickers,
    author: [{ '@type': item.author === site.name || item.credit ? 'Organization' : 'Person', name: item.author }],
    publisher: { '@type': 'Organization', name: site.name, logo: { '@type': 'ImageObject', url: `${origin}/static/logo.png` } },
    mainEntityOfPage: { '@type': 'WebPage', '@id': item.canonical },
    isAccessibleForFree: !item.paywalled,
    ...(item.paywalled ? { hasPart: { '@type': 'WebPageElement', isAccessibleForFree: false, cssSelector: '.paywall' } } : {}),
  };
  const head = [
    `<title>${escapeMarkup(title)}</title>`,
    `<meta name="description" content="${escapeMarkup(item.summary)}">`,
    `<meta name="author" content="${escapeMarkup(item.author)}">`,
    `<meta property="og:type" content="article">`,
    `<meta property="og:site_name" content="${escapeMarkup(site.name)}">`,
    `<meta property="og:locale" content="pt_BR">`,
    `<meta property="og:title" content="${escapeMarkup(item.title)}">`,
    `<meta property="og:description" content="${escapeMarkup(item.subtitle)}">`,
    `<meta property="og:url" content="${escapeMarkup(item.canonical)}">`,
    `<meta property="og:image" content="${origin}/static/capa.jpg">`,
    `<meta property="article:published_time" content="${published}">`,
    `<meta property="article:section" content="${escapeMarkup(item.section)}">`,
    ...item.tickers.map((t) => `<meta property="article:tag" content="${t}">`),
    `<link rel="canonical" href="${escapeMarkup(item.canonical)}">`,
    `<script type="application/ld+json">\n${jsonLd(ld)}\n</script>`,
  ].join('\n');
  const paragraphs = item.paywalled ? item.body.slice(0, 1) : item.body;
  const paywall = item.paywalled
    ? `<div class="paywall">
<p><strong>Conteúdo exclusivo para assinantes</strong></p>
<p>Para continuar lendo, assine a ${escapeMarkup(site.name)} ou faça login com a sua conta.</p>
<a class="botao-assine" href="/assine">Assine agora</a> <a href="/login">Já sou assinante</a>
</div>`
    : '';
  const main = `<main class="conteudo">
<article class="materia">
<p class="editoria"><a href="/${item.section.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')}">${escapeMarkup(item.section)}</a>${item.breaking ? ' <span class="selo-urgente">Urgente</span>' : ''}</p>
<h1>${escapeMarkup(item.title)}</h1>
<p class="linha-fina">${escapeMarkup(item.subtitle)}</p>
<div class="assinatura">Por <span class="autor">${escapeMarkup(item.author)}</span> — <time datetime="${published}">${displayDate(item.publishedAt)}</time></div>
<div class="corpo-materia">
${paragraphs.map((p) => `<p>${escapeMarkup(p)}</p>`).join('\n')}
${item.credit ? `<p class="credito"><em>${escapeMarkup(item.credit)}</em></p>` : ''}
</div>
${paywall}
<div class="compartilhar">Compartilhe: <a href="#whatsapp">WhatsApp</a> <a href="#x">X</a> <a href="#linkedin">LinkedIn</a> <a href="#email">E-mail</a></div>
</article>
<aside class="relacionadas">
<h2>${escapeMarkup(site.look.relatedHeading)}</h2>
<ul>
${related.map((r) => `<li><a href="${escapeMarkup(r.canonical)}">${escapeMarkup(r.title)}</a></li>`).join('\n')}
</ul>
</aside>
<aside class="newsletter"><p>${escapeMarkup(site.look.newsletter)}</p><form action="/newsletter" method="post"><input type="email" name="email" placeholder="Seu e-mail"><button type="submit">Quero receber</button></form></aside>
</main>`;
  return shell(site, origin, feedUrl, head, main);
}

/** The home page: the latest headlines and the feed's address (for discovery). */
export function renderHome(site: SiteSpec, origin: string, feedUrl: string, items: PublishedItem[]): string {
  const head = `<title>${escapeMarkup(site.name)} — ${escapeMarkup(site.look.tagline)}</title>\n<meta name="description" content="${escapeMarkup(site.description)}">`;
  const main = `<main class="capa"><h1>Últimas notícias</h1><ul class="manchetes">
${items.map((i) => `<li><a href="${escapeMarkup(i.canonical)}">${escapeMarkup(i.title)}</a> <time datetime="${isoSaoPaulo(i.publishedAt)}">${displayDate(i.publishedAt)}</time></li>`).join('\n')}
</ul></main>`;
  return shell(site, origin, feedUrl, head, main);
}

/** Every origin's robots.txt: everything allowed but /privado/. */
export const robotsTxt = (name: string) => `# robots.txt — ${name}
User-agent: *
Disallow: /privado/
Allow: /
`;

export const notFoundPage = (name: string) => `<!DOCTYPE html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Página não encontrada | ${escapeMarkup(name)}</title></head>
<body><h1>Página não encontrada</h1><p>O endereço que você procurou não existe ou foi removido.</p><p><a href="/">Voltar para a página inicial</a></p></body></html>
`;

/** An RSS document cut off in the middle of an item (what a crashed CMS or a dropped connection leaves). */
export function truncatedRss(origin: string, at: Date): string {
  const whole = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Tribuna dos Negócios</title>
    <link>${origin}/</link>
    <description>Notícias de negócios.</description>
    <language>pt-BR</language>
    <lastBuildDate>${at.toUTCString()}</lastBuildDate>
    <item>
      <title>Boletim de abertura: Ibovespa futuro sobe 0,4% com exterior positivo</title>
      <link>${origin}/noticias/boletim-de-abertura</link>
      <pubDate>${at.toUTCString()}</pubDate>
      <description>Os contratos futuros do Ibovespa operam em alta na manhã de hoje, acompanhando as bolsas de Nova York.</description>
    </item>
    <item>
      <title>Agenda do dia: resultados de bancos e dados de inflação</title>
      <link>${origin}/noticias/agenda-do-dia</link>
      <pubDate>${at.toUTCString()}</pubDate>
      <description>Investidores acompanham hoje a divulgação de balanços de três bancos médios e a prévia da inflação.</description>
    </item>
  </channel>
</rss>
`;
  // Cut inside the second item's description: not well-formed XML, and no closing tags.
  return whole.slice(0, whole.indexOf('Investidores acompanham') + 'Investidores acomp'.length);
}
