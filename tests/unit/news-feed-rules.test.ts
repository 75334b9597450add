/**
 * Feed documents read into feed items (models/news/sources/feed.rules.ts): the four formats from
 * fixtures written the way real publishers write them, the rules that drop or bound items, errors
 * for bodies that are not feeds, and the date parser pages share.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clip, FeedParseError, htmlToText, parseDate, parseFeedDocument } from '../../models/news/sources/feed.rules';

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/news-pages/feeds', name), 'utf8');

describe('parseFeedDocument', () => {
  it('reads RSS 2.0: text titles and summaries, relative links resolved, guids, dates, authors, unusable items dropped', () => {
    const feed = parseFeedDocument(fixture('rss2.xml'), 'application/rss+xml; charset=utf-8', 'https://www.jornaldomercado.com.br/empresas/feed');
    expect(feed.format).toBe('rss');
    expect(feed.title).toBe('Jornal do Mercado – Empresas');
    expect(feed.items).toEqual([
      {
        guid: 'jm-48213',
        url: 'https://www.jornaldomercado.com.br/empresas/2025/06/10/petrobras-lucro-dividendos.ghtml',
        title: 'Petrobras tem lucro de R$ 35,2 bi & anuncia dividendos',
        summary: 'A estatal informou lucro líquido de R$ 35,2 bilhões no trimestre. O conselho aprovou dividendos.',
        publishedAt: new Date('2025-06-10T17:30:00Z'),
        author: 'Ana Souza',
      },
      {
        // No guid: the link stands in for it.
        guid: 'https://www.jornaldomercado.com.br/empresas/vale-bhp-acordo?utm_source=rss',
        url: 'https://www.jornaldomercado.com.br/empresas/vale-bhp-acordo?utm_source=rss',
        title: 'Vale & BHP fecham acordo em Mariana',
        summary: 'As mineradoras assinaram o acordo nesta segunda.',
        publishedAt: new Date('2025-06-09T21:05:10Z'),
        author: 'Redação',
      },
      {
        // No link: a permalink guid is the page; "ontem à tarde" is no date; content:encoded stands in for the description.
        guid: 'https://www.jornaldomercado.com.br/empresas/itau-consignado',
        url: 'https://www.jornaldomercado.com.br/empresas/itau-consignado',
        title: 'Itaú amplia crédito consignado',
        summary: 'Crédito O banco ampliou a linha.',
        publishedAt: null,
        author: null,
      },
      {
        guid: 'https://www.jornaldomercado.com.br/empresas/magalu-dividas',
        url: 'https://www.jornaldomercado.com.br/empresas/magalu-dividas',
        title: 'Magazine Luiza renegocia dívidas',
        summary: null,
        publishedAt: new Date('2025-06-10T11:00:00Z'),
        author: null,
      },
    ]);
  });

  it('reads Atom 1.0: the alternate link, HTML titles as text, published else updated', () => {
    const feed = parseFeedDocument(fixture('atom.xml'), 'application/atom+xml', 'https://economia.example.org/atom.xml');
    expect(feed.format).toBe('atom');
    expect(feed.title).toBe('Blog de Economia');
    expect(feed.items.map((i) => [i.guid, i.url, i.title, i.summary, i.publishedAt?.toISOString(), i.author])).toEqual([
      ['tag:economia.example.org,2025:post-77', 'https://economia.example.org/2025/06/selic-15', 'Selic em 15% (análise)', 'O Copom manteve a taxa.', '2025-06-10T12:15:00.000Z', 'Carlos Lima'],
      ['tag:economia.example.org,2025:post-76', 'https://economia.example.org/2025/06/ipca-maio', 'Inflação < 4% em maio', 'O IPCA subiu 0,26%. Serviços desaceleraram.', '2025-06-09T18:00:00.000Z', null],
    ]);
  });

  const atomWith = (feedBase: string | null, entries: string) =>
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"${feedBase === null ? '' : ` xml:base="${feedBase}"`}><title>T</title><id>tag:f</id><updated>2025-06-10T12:00:00Z</updated>${entries}</feed>`;
  const entry = (n: number, href: string, base: string | null = null) =>
    `<entry${base === null ? '' : ` xml:base="${base}"`}><title>Notícia ${n}</title><id>tag:f:${n}</id><updated>2025-06-10T12:00:00Z</updated><link rel="alternate" href="${href}"/></entry>`;

  it("resolves Atom links against xml:base: the entry's, else the feed's, else the feed's URL; each base against the one around it", () => {
    const body = atomWith(
      'https://cdn.example.net/noticias/',
      entry(1, '2025/06/selic.html', '../mercados/') + // entry base relative to the feed's: https://cdn.example.net/mercados/
        entry(2, 'ipca.html') + // the feed's base
        entry(3, '/raiz.html', 'https://outro.example.org/a/b/') + // an absolute entry base; a path from its root
        entry(4, 'https://absoluta.example.com/x', 'https://ignorada.example/') + // an absolute link needs no base
        entry(5, '?id=5', ''), // an empty xml:base is no base: the feed's
    );
    const feed = parseFeedDocument(body, 'application/atom+xml', 'https://f.example/feeds/atom.xml');
    expect(feed.items.map((i) => [i.guid, i.url])).toEqual([
      ['tag:f:1', 'https://cdn.example.net/mercados/2025/06/selic.html'],
      ['tag:f:2', 'https://cdn.example.net/noticias/ipca.html'],
      ['tag:f:3', 'https://outro.example.org/raiz.html'],
      ['tag:f:4', 'https://absoluta.example.com/x'],
      ['tag:f:5', 'https://cdn.example.net/noticias/?id=5'],
    ]);
  });

  it('resolves a relative feed xml:base against the feed URL, and reads a feed without one against its URL', () => {
    const relative = parseFeedDocument(atomWith('/arquivo/', entry(1, 'n1.html') + entry(2, 'n2.html', 'extra/')), null, 'https://f.example/feeds/atom.xml');
    expect(relative.items.map((i) => i.url)).toEqual(['https://f.example/arquivo/n1.html', 'https://f.example/arquivo/extra/n2.html']);
    const none = parseFeedDocument(atomWith(null, entry(1, 'n1.html') + entry(2, 'n2.html', 'sub/')), null, 'https://f.example/feeds/atom.xml');
    expect(none.items.map((i) => i.url)).toEqual(['https://f.example/feeds/n1.html', 'https://f.example/feeds/sub/n2.html']);
  });

  it('drops an Atom entry whose link resolves, through xml:base, to something other than http(s)', () => {
    const body = atomWith('ftp://arquivos.example/pub/', entry(1, 'n1.html') + entry(2, 'n2.html', 'https://f.example/ok/') + entry(3, 'n3.html', 'urn:isbn:123'));
    expect(parseFeedDocument(body, null, 'https://f.example/atom.xml').items.map((i) => i.url)).toEqual(['https://f.example/ok/n2.html']);
  });

  it('reads JSON Feed 1.1: plain-text titles and summaries kept as written, content_html as text, external_url', () => {
    const feed = parseFeedDocument(fixture('feed.json'), 'application/feed+json', 'https://agencia.example.com/feed.json');
    expect(feed.format).toBe('json');
    expect(feed.items.map((i) => [i.guid, i.url, i.title, i.summary, i.publishedAt?.toISOString() ?? null, i.author])).toEqual([
      ['https://agencia.example.com/n/1001', 'https://agencia.example.com/n/1001', 'Embraer recebe pedido de 40 jatos <E2>', 'A fabricante anunciou o pedido nesta terça.', '2025-06-10T13:00:00.000Z', 'Agência Exemplo'],
      ['1000', 'https://outro.example.com/materia', 'Gol conclui reestruturação', 'Resumo em texto simples com <sinais> que não são HTML.', '2025-06-09T20:00:00.000Z', null],
    ]);
  });

  it('reads RSS 1.0 (RDF) with Dublin Core dates and creators', () => {
    const feed = parseFeedDocument(fixture('rdf.xml'), 'application/rdf+xml', 'https://www.bcb.example.gov.br/rss');
    expect(feed.format).toBe('rdf');
    expect(feed.title).toBe('Notas do Banco Central');
    expect(feed.items.map((i) => [i.guid, i.title, i.publishedAt?.toISOString() ?? null, i.author])).toEqual([
      ['https://www.bcb.example.gov.br/nota/1', 'Nota sobre o câmbio', '2025-06-10T20:30:00.000Z', 'Departamento de Comunicação'],
      ['https://www.bcb.example.gov.br/nota/2', 'Relatório de crédito', null, null],
    ]);
  });

  const rssWith = (items: string) => `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://f.example/</link>${items}</channel></rss>`;
  const item = (n: number, extra = '') => `<item><title>Notícia ${n}</title><link>https://f.example/n/${n}</link>${extra}</item>`;

  it('keeps the feed order and reads at most maxItems entries (default 200)', () => {
    const body = rssWith(Array.from({ length: 250 }, (_, n) => item(n)).join(''));
    const all = parseFeedDocument(body, null, 'https://f.example/rss');
    expect(all.items).toHaveLength(200);
    expect(all.items.slice(0, 3).map((i) => i.title)).toEqual(['Notícia 0', 'Notícia 1', 'Notícia 2']);
    expect(all.items.at(-1)!.title).toBe('Notícia 199');
    expect(parseFeedDocument(body, null, 'https://f.example/rss', { maxItems: 5 }).items.map((i) => i.url)).toEqual([0, 1, 2, 3, 4].map((n) => `https://f.example/n/${n}`));
  });

  it('bounds titles (500), summaries (5,000) and guids (2,048) and drops URLs longer than 2,048', () => {
    const long = 'palavra '.repeat(2_000);
    const body = rssWith(
      `<item><title>${long}</title><link>https://f.example/a</link><guid isPermaLink="false">${'g'.repeat(3_000)}</guid><description>${long}</description></item>` +
        `<item><title>URL longa</title><link>https://f.example/${'x'.repeat(2_100)}</link></item>`,
    );
    const [only, ...rest] = parseFeedDocument(body, null, 'https://f.example/rss').items;
    expect(rest).toEqual([]);
    expect(only!.title.length).toBeLessThanOrEqual(500);
    expect(only!.title.length).toBeGreaterThan(400);
    expect(only!.title.endsWith('palavra…')).toBe(true);
    expect(only!.summary!.length).toBeLessThanOrEqual(5_000);
    expect(only!.guid.length).toBeLessThanOrEqual(2_048);
  });

  it('drops items whose link is not http(s), even after resolving it', () => {
    const body = rssWith(
      item(1) + '<item><title>ftp</title><link>ftp://f.example/x</link></item><item><title>data</title><link>data:text/html,oi</link></item><item><title>mail</title><link>mailto:a@b.c</link></item>',
    );
    expect(parseFeedDocument(body, null, 'https://f.example/rss').items.map((i) => i.title)).toEqual(['Notícia 1']);
  });

  it.each([
    ['an empty body', '', /is empty/],
    ['an HTML page', '<!DOCTYPE html><html><head><title>Portal</title></head><body>Oi</body></html>', /is an HTML page, not a feed \(served as text\/html\)/],
    ['plain text', 'Service Unavailable', /is not RSS, Atom, RDF or JSON Feed/],
    ['JSON that is not a feed', '{"error":"not found"}', /is not RSS, Atom, RDF or JSON Feed/],
    ['truncated RSS', '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title><item><title>a</item>', /is malformed XML/],
  ])('throws FeedParseError for %s', (_what, body, message) => {
    const read = () => parseFeedDocument(body, 'text/html; charset=utf-8', 'https://f.example/rss');
    expect(read).toThrow(FeedParseError);
    expect(read).toThrow(message);
  });

  it('accepts a byte-order mark before the XML declaration', () => {
    expect(parseFeedDocument('\uFEFF' + rssWith(item(1)), null, 'https://f.example/rss').items).toHaveLength(1);
  });
});

describe('parseDate', () => {
  it.each([
    ['Tue, 10 Jun 2025 14:30:00 -0300', '2025-06-10T17:30:00.000Z'],
    ['Tue, 10 Jun 2025 14:30:00 GMT', '2025-06-10T14:30:00.000Z'],
    ['10 Jun 2025 14:30 EDT', '2025-06-10T18:30:00.000Z'],
    ['Ter, 10 jun 2025 08:00:00 BRT', '2025-06-10T11:00:00.000Z'],
    ['Sex, 3 Out 2025 09:00:00 -0300', '2025-10-03T12:00:00.000Z'],
    ['Wed, 02 Oct 02 08:00:00 +0000', '2002-10-02T08:00:00.000Z'],
    ['Tue, 10 Jun 2025 14:30:00 Q', '2025-06-10T14:30:00.000Z'],
    ['2025-06-10T14:30:00Z', '2025-06-10T14:30:00.000Z'],
    ['2025-06-10T14:30:00.123456-03:00', '2025-06-10T17:30:00.123Z'],
    ['2025-06-10T14:30:00+0530', '2025-06-10T09:00:00.000Z'],
    ['2025-06-10 14:30:00', '2025-06-10T14:30:00.000Z'],
    ['2025-06-10', '2025-06-10T00:00:00.000Z'],
  ])('reads %s', (raw, iso) => {
    expect(parseDate(raw)?.toISOString()).toBe(iso);
  });

  it.each([['ontem'], [''], ['2025-02-30T10:00:00Z'], ['2025-06-10T25:00:00Z'], ['31 Abc 2025 10:00:00 GMT'], ['0001-01-01T00:00:00Z'], ['1718030000'], [null], [undefined]])(
    'gives null for %p',
    (raw) => {
      expect(parseDate(raw)).toBeNull();
    },
  );
});

describe('text helpers', () => {
  it('reads HTML fragments as one line of text with entities decoded and blocks separated', () => {
    expect(htmlToText('<p>Lucro&nbsp;de R$ 1&nbsp;bi</p><ul><li>a &amp; b</li><li>c</li></ul><script>x()</script>fim')).toBe('Lucro de R$ 1 bi a & b c fim');
    expect(htmlToText('  sem   marcação \n aqui ')).toBe('sem marcação aqui');
  });

  it('clips at a word boundary without splitting a surrogate pair', () => {
    expect(clip('abc def ghi', 9)).toBe('abc def…');
    expect(clip('abc', 9)).toBe('abc');
    const emoji = clip('a'.repeat(8) + '😀😀', 10);
    expect(emoji.length).toBeLessThanOrEqual(10);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
