import { cnpjFromBase, isValidCnpj } from '../../models/news/cnpj.rules';
import { articleIdFor, buildArticle, buildDictionary, findMentions, ImportLine, normaliseUrl, type KnownEntity } from '../../models/news/ingest.rules';
import { corpusArticle, corpusEntities, corpusPools } from '../../ops/news-corpus';

const entities: KnownEntity[] = [
  { _id: 'bb', entityType: 'COMPANY', canonicalName: 'Banco do Brasil', aliases: ['BB'], ticker: 'BBAS3' },
  { _id: 'br', entityType: 'LOCATION', canonicalName: 'Brasil', aliases: [], ticker: null },
  { _id: 'vale', entityType: 'COMPANY', canonicalName: 'Vale', aliases: ['Vale S.A.'], ticker: 'VALE3' },
  { _id: 'petro', entityType: 'COMPANY', canonicalName: 'Petrobras', aliases: ['Petróleo Brasileiro'], ticker: 'PETR4' },
  { _id: 'bc', entityType: 'INSTITUTION', canonicalName: 'Banco Central do Brasil', aliases: ['Bacen', 'BC'], ticker: null },
];
const dict = buildDictionary(entities);

const line = (over: Record<string, unknown> = {}) =>
  ImportLine.parse({
    title: 'Petrobrás e Banco do Brasil fecham acordo',
    subtitle: 'Ações PETR4 sobem',
    summary: 'O Bacen acompanha. A Petrobras confirmou.',
    sourceName: 'Valor',
    sourceUrl: 'https://valor.example/a',
    publishedAt: '2026-11-20T10:00:00Z',
    primarySector: 'ENE',
    primaryTopic: 'CONTRACT',
    ...over,
  });

describe('entity linking', () => {
  it('finds names and aliases (accents folded, longest first), and tickers', () => {
    const found = findMentions('Petrobrás e Banco do Brasil; Petrobras (PETR4) e o Bacen', dict);
    expect(Object.fromEntries(found)).toEqual({ petro: 3, bb: 1, bc: 1 });
  });

  it('ignores lower-case words that spell a name and aliases under 3 characters', () => {
    expect(findMentions('o projeto vale a pena, diz o BC', dict).size).toBe(0);
    expect(Object.fromEntries(findMentions('A Vale subiu', dict))).toEqual({ vale: 1 });
  });

  it('builds the article: mentions with title flag and prominence, explicit mentions by name or ticker, unknown ones counted', () => {
    const { doc, unlinked } = buildArticle('id-1', line({ entities: [{ ticker: 'vale3' }, { name: 'Empresa Desconhecida' }] }), dict, new Date());
    expect(unlinked).toBe(1);
    const byId = Object.fromEntries(doc.modules.entities!.map((m) => [m.entityId, m]));
    expect(byId.petro).toMatchObject({ isInTitle: true, mentionCount: 3, ticker: 'PETR4' });
    expect(byId.bc).toMatchObject({ isInTitle: false, mentionCount: 1 });
    expect(byId.vale).toMatchObject({ mentionCount: 1 });
    expect(byId.petro!.prominenceScore).toBeGreaterThan(byId.bc!.prominenceScore);
    expect(doc.entityIds.sort()).toEqual(['bb', 'bc', 'petro', 'vale']);
    expect(doc.tickers.sort()).toEqual(['BBAS3', 'PETR4', 'VALE3']);
    expect(doc.baseScore).toBe(50);
    expect(doc.modules.meta).toMatchObject({ sourceTier: 2, paywall: false, readingTimeMinutes: 1 });
  });

  it('takes baseScore from scoring.overall', () => {
    const scoring = { relevance: 90, credibility: 80, depth: 70, timeliness: 60, originality: 50, overall: 77 };
    expect(buildArticle('x', line({ baseScore: 10, modules: { scoring } }), dict, new Date()).doc.baseScore).toBe(77);
  });

  it('rejects lines with unknown codes or fields', () => {
    expect(() => line({ primarySector: 'XXX' })).toThrow();
    expect(() => line({ sourceUrl: 'ftp://x.example/a' })).toThrow();
    expect(() => line({ surprise: true })).toThrow();
  });
});

describe('stored keys', () => {
  it('keeps folded, stemmed copies of title, subtitle and summary, and every term once', () => {
    const { doc } = buildArticle('id-1', line({ title: 'Ações da Petrobrás', subtitle: 'ação sobe', summary: 'Petrobras e os jornais' }), dict, new Date());
    expect(doc.search).toEqual({ title: 'acao petrobra', subtitle: 'acao sobe', summary: 'petrobra jornal' });
    expect(doc.terms.sort()).toEqual(['acao', 'jornal', 'petrobra', 'sobe']);
    const bare = buildArticle('id-2', line({ subtitle: null, summary: null }), dict, new Date()).doc;
    expect(bare.search).toMatchObject({ subtitle: '', summary: '' });
  });

  it('stores the sort keys and the normalised source URL', () => {
    const { doc } = buildArticle('id-3', line({ urgencyLevel: 'CRITICAL', baseScore: 70, sourceUrl: 'https://Valor.example/a/?utm_medium=x' }), dict, new Date());
    expect(doc).toMatchObject({ urgencyRank: 4, sourceKey: 'https://valor.example/a', sourceUrl: 'https://Valor.example/a/?utm_medium=x' });
    expect(doc.relevance).toBeCloseTo(Date.parse('2026-11-20T10:00:00Z') / 3_600_000 + 70 * 0.24, 6);
  });

  it('refuses source URLs over 2,048 characters (they are indexed)', () => {
    expect(() => line({ sourceUrl: `https://valor.example/${'a'.repeat(2_030)}` })).toThrow();
    expect(() => line({ sourceUrl: `https://valor.example/${'a'.repeat(2_000)}` })).not.toThrow();
  });

  it('derives article ids from the import and line, so a retried batch rewrites the same articles', () => {
    expect(articleIdFor('imp', 3)).toBe(articleIdFor('imp', 3));
    expect(articleIdFor('imp', 3)).not.toBe(articleIdFor('imp', 4));
    expect(articleIdFor('imp', 3)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('deduplicates URLs spelled differently', () => {
    expect(normaliseUrl('HTTPS://Valor.Example/a/?utm_source=x&b=2&a=1#top')).toBe('https://valor.example/a?a=1&b=2');
    expect(normaliseUrl('https://valor.example/a/')).toBe(normaliseUrl('https://valor.example/a'));
    expect(normaliseUrl('https://valor.example/a')).not.toBe(normaliseUrl('https://valor.example/b'));
  });
});

describe('CNPJ', () => {
  it('computes and checks the two check digits', () => {
    expect(cnpjFromBase('112223330001')).toBe('11.222.333/0001-81');
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('11.222.333/0001-82')).toBe(false);
    expect(isValidCnpj('11.111.111/1111-11')).toBe(false);
  });
});

describe('seed corpus', () => {
  const ents = corpusEntities(400, new Date('2026-11-21T00:00:00Z'));

  it('has companies with B3 tickers and valid CNPJs, people and institutions with aliases, unique ids and tickers', () => {
    const companies = ents.filter((e) => e.entityType === 'COMPANY');
    expect(ents).toHaveLength(400);
    expect(new Set(ents.map((e) => e._id)).size).toBe(400);
    expect(companies.every((c) => /^[A-Z][A-Z0-9]{3}\d{1,2}$/.test(c.ticker!) && isValidCnpj(c.cnpj!))).toBe(true);
    expect(new Set(companies.map((c) => c.ticker)).size).toBe(companies.length);
    expect(ents.filter((e) => e.entityType === 'PERSON').every((p) => p.aliases.length > 0)).toBe(true);
    expect(ents.find((e) => e.canonicalName === 'Banco Central do Brasil')?.aliases).toContain('Bacen');
  });

  it('writes valid import lines across all 23 sectors, the same for the same n', () => {
    const pools = corpusPools(ents);
    const now = new Date('2026-11-21T00:00:00Z');
    const lines = Array.from({ length: 230 }, (_, n) => corpusArticle(n, 230, pools, now));
    for (const l of lines) expect(() => ImportLine.parse(l)).not.toThrow();
    expect(new Set(lines.map((l) => l.primarySector)).size).toBe(23);
    expect(corpusArticle(17, 230, pools, now)).toEqual(lines[17]);
    // Texts name corpus entities, so imports link them.
    const linked = lines.filter((l) => findMentions(l.title, buildDictionary(ents)).size > 0).length;
    expect(linked).toBeGreaterThan(200);
  });
});
