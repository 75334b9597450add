/**
 * A realistic, deterministic News API corpus of any size (`npm run cli -- seed --articles N`):
 * Portuguese business news across the 23 sectors, B3-listed companies with tickers and valid
 * CNPJs, people and institutions with aliases. Articles are written as import lines, so the seed
 * goes through the same path as real imports (dedupe by URL, entity linking, the index writer);
 * entities are written directly. The same N gives the same corpus (ids, URLs, texts).
 */
import { v5 as uuidv5 } from 'uuid';
import { SECTORS, sentimentLabel, TOPICS, type EntityType, type Sector, type Topic } from '../models/news/article.rules';
import { cnpjFromBase } from '../models/news/cnpj.rules';
import type { EntityDoc } from '../models/news/entity.model';
import type { ImportLine } from '../models/news/ingest.rules';
import { fold } from '../models/news/text.rules';

const NS = '3b0e8f8e-6a55-4f63-9a44-2f5b8f0c1d77';
export const entityIdFor = (key: string) => uuidv5(`entity:${key}`, NS);

/** mulberry32: small, fast, deterministic. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
  };
}

export const SECTOR_NAMES: Record<Sector, string> = {
  FIN: 'financeiro', TEC: 'tecnologia', SAU: 'saúde', ENE: 'energia', MAT: 'materiais básicos', IND: 'indústria', CON: 'consumo', IMO: 'imobiliário',
  AGR: 'agronegócio', TRA: 'transportes', COM: 'comunicações', SER: 'serviços', GOV: 'governo', ESP: 'esportes', CRY: 'criptoativos', FIP: 'finanças pessoais',
  CIE: 'ciência', DEF: 'defesa', CUL: 'cultura', EDU: 'educação', AMB: 'meio ambiente', SOC: 'sociedade', TUR: 'turismo',
};

/** Companies listed on B3 (names and tickers as traded), by sector. CNPJs are generated. */
const LISTED: [string, string, Sector, string[]][] = [
  ['Petrobras', 'PETR4', 'ENE', ['Petróleo Brasileiro', 'Petrobrás']],
  ['Vale', 'VALE3', 'MAT', ['Vale S.A.']],
  ['Itaú Unibanco', 'ITUB4', 'FIN', ['Itaú']],
  ['Bradesco', 'BBDC4', 'FIN', ['Banco Bradesco']],
  ['Banco do Brasil', 'BBAS3', 'FIN', ['BB']],
  ['Santander Brasil', 'SANB11', 'FIN', ['Santander']],
  ['BTG Pactual', 'BPAC11', 'FIN', ['BTG']],
  ['B3 S.A.', 'B3SA3', 'FIN', ['Brasil Bolsa Balcão']],
  ['Ambev', 'ABEV3', 'CON', ['Companhia de Bebidas das Américas']],
  ['Magazine Luiza', 'MGLU3', 'CON', ['Magalu']],
  ['Lojas Renner', 'LREN3', 'CON', ['Renner']],
  ['Natura', 'NTCO3', 'CON', ['Natura &Co']],
  ['WEG', 'WEGE3', 'IND', ['WEG S.A.']],
  ['Embraer', 'EMBR3', 'DEF', ['Empresa Brasileira de Aeronáutica']],
  ['Gerdau', 'GGBR4', 'MAT', ['Gerdau S.A.']],
  ['Suzano', 'SUZB3', 'MAT', ['Suzano Papel e Celulose']],
  ['JBS', 'JBSS3', 'AGR', ['JBS S.A.']],
  ['BRF', 'BRFS3', 'AGR', ['Brasil Foods']],
  ['SLC Agrícola', 'SLCE3', 'AGR', ['SLC']],
  ['Rumo', 'RAIL3', 'TRA', ['Rumo Logística']],
  ['Azul', 'AZUL4', 'TUR', ['Azul Linhas Aéreas']],
  ['CCR', 'CCRO3', 'TRA', ['Grupo CCR']],
  ['Vivo', 'VIVT3', 'COM', ['Telefônica Brasil']],
  ['TIM Brasil', 'TIMS3', 'COM', ['TIM']],
  ['Totvs', 'TOTS3', 'TEC', ['TOTVS']],
  ['Locaweb', 'LWSA3', 'TEC', ['Locaweb Serviços de Internet']],
  ['Rede D’Or', 'RDOR3', 'SAU', ['Rede D’Or São Luiz']],
  ['Hapvida', 'HAPV3', 'SAU', ['Hapvida NotreDame Intermédica']],
  ['Raia Drogasil', 'RADL3', 'SAU', ['RD Saúde']],
  ['Eletrobras', 'ELET3', 'ENE', ['Centrais Elétricas Brasileiras']],
  ['Equatorial', 'EQTL3', 'ENE', ['Equatorial Energia']],
  ['Cyrela', 'CYRE3', 'IMO', ['Cyrela Brazil Realty']],
  ['MRV', 'MRVE3', 'IMO', ['MRV Engenharia']],
  ['Localiza', 'RENT3', 'SER', ['Localiza Rent a Car']],
  ['Cogna', 'COGN3', 'EDU', ['Cogna Educação']],
  ['Yduqs', 'YDUQ3', 'EDU', ['Estácio']],
  ['Sabesp', 'SBSP3', 'AMB', ['Companhia de Saneamento Básico do Estado de São Paulo']],
  ['CVC Brasil', 'CVCB3', 'TUR', ['CVC']],
];

const INSTITUTIONS: [string, string[]][] = [
  ['Banco Central do Brasil', ['Banco Central', 'Bacen', 'BC']],
  ['Comissão de Valores Mobiliários', ['CVM']],
  ['Comitê de Política Monetária', ['Copom']],
  ['Tesouro Nacional', ['Tesouro']],
  ['Banco Nacional de Desenvolvimento Econômico e Social', ['BNDES']],
  ['Ministério da Fazenda', ['Fazenda']],
  ['Instituto Brasileiro de Geografia e Estatística', ['IBGE']],
  ['Receita Federal', ['Receita']],
  ['Agência Nacional do Petróleo', ['ANP']],
  ['Agência Nacional de Energia Elétrica', ['Aneel']],
  ['Agência Nacional de Telecomunicações', ['Anatel']],
  ['Supremo Tribunal Federal', ['STF', 'Supremo']],
  ['Conselho Administrativo de Defesa Econômica', ['Cade']],
  ['Fundo Monetário Internacional', ['FMI']],
  ['Federal Reserve', ['Fed']],
];

const FIRST = ['Ana', 'Bruno', 'Carla', 'Daniel', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João', 'Karina', 'Lucas', 'Mariana', 'Nelson', 'Olívia', 'Paulo', 'Renata', 'Sérgio', 'Tatiana', 'Vinícius'];
const LAST = ['Almeida', 'Barbosa', 'Cardoso', 'Duarte', 'Esteves', 'Fagundes', 'Guimarães', 'Hoffmann', 'Igarashi', 'Junqueira', 'Kowalski', 'Lacerda', 'Monteiro', 'Nogueira', 'Oliveira', 'Pimenta', 'Queiroz', 'Rezende', 'Siqueira', 'Teixeira', 'Uchoa', 'Vasconcelos'];
const ROOTS = ['Aurora', 'Horizonte', 'Atlântico', 'Cerrado', 'Pampa', 'Serra', 'Litoral', 'Planalto', 'Cruzeiro', 'Ipê', 'Jacarandá', 'Araucária', 'Tocantins', 'Paraná', 'Mantiqueira', 'Guanabara', 'Sertão', 'Pantanal', 'Amazônia', 'Caatinga', 'Borborema', 'Itatiaia', 'Xingu', 'Tapajós'];
const KINDS: Record<Sector, string[]> = {
  FIN: ['Banco', 'Seguros', 'Investimentos'], TEC: ['Tecnologia', 'Software', 'Digital'], SAU: ['Saúde', 'Farma', 'Diagnósticos'], ENE: ['Energia', 'Petróleo', 'Renováveis'],
  MAT: ['Mineração', 'Siderurgia', 'Química'], IND: ['Industrial', 'Máquinas', 'Metalúrgica'], CON: ['Varejo', 'Alimentos', 'Bebidas'], IMO: ['Incorporadora', 'Imóveis', 'Realty'],
  AGR: ['Agro', 'Grãos', 'Proteínas'], TRA: ['Logística', 'Transportes', 'Ferrovias'], COM: ['Telecom', 'Mídia', 'Comunicações'], SER: ['Serviços', 'Locação', 'Facilities'],
  GOV: ['Participações', 'Concessões', 'Infraestrutura'], ESP: ['Esportes', 'Arenas', 'Entretenimento'], CRY: ['Cripto', 'Blockchain', 'Ativos Digitais'], FIP: ['Crédito', 'Pagamentos', 'Fintech'],
  CIE: ['Biotecnologia', 'Pesquisa', 'Inovação'], DEF: ['Defesa', 'Aeroespacial', 'Segurança'], CUL: ['Cultura', 'Editora', 'Produções'], EDU: ['Educação', 'Ensino', 'Escolas'],
  AMB: ['Saneamento', 'Ambiental', 'Resíduos'], SOC: ['Cooperativa', 'Habitação Social', 'Impacto'], TUR: ['Turismo', 'Hotéis', 'Viagens'],
};

export interface CorpusEntity extends EntityDoc {
  sector: Sector | null;
}

/** `count` entities (at least the listed companies and institutions), the same for the same count. */
export function corpusEntities(count: number, now = new Date()): CorpusEntity[] {
  const r = rng(7);
  const out: CorpusEntity[] = [];
  const tickers = new Set<string>();
  const make = (key: string, entityType: EntityType, canonicalName: string, aliases: string[], ticker: string | null, sector: Sector | null): CorpusEntity => ({
    _id: entityIdFor(key),
    entityType,
    canonicalName,
    aliases,
    ticker,
    cnpj: entityType === 'COMPANY' ? cnpjFromBase(String(10_000_000 + out.length * 7_919).padStart(8, '0') + '0001') : null,
    nameKeys: [canonicalName, ...aliases].map(fold),
    createdAt: now,
    sector,
  });
  for (const [name, ticker, sector, aliases] of LISTED) {
    tickers.add(ticker);
    out.push(make(`company:${ticker}`, 'COMPANY', name, aliases, ticker, sector));
  }
  for (const [name, aliases] of INSTITUTIONS) out.push(make(`institution:${name}`, 'INSTITUTION', name, aliases, null, 'GOV'));
  for (let i = 0; out.length < count; i++) {
    if (i % 4 === 3) {
      const first = FIRST[i % FIRST.length]!;
      const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
      const middle = LAST[Math.floor(i / (FIRST.length * LAST.length)) % LAST.length]!;
      const name = i < FIRST.length * LAST.length ? `${first} ${last}` : `${first} ${middle} ${last}`;
      out.push(make(`person:${i}`, 'PERSON', name, [`${first[0]}. ${last}`], null, null));
      continue;
    }
    const sector = SECTORS[i % SECTORS.length]!;
    const root = ROOTS[Math.floor(i / SECTORS.length) % ROOTS.length]!;
    const kind = KINDS[sector][Math.floor(i / (SECTORS.length * ROOTS.length)) % 3]!;
    const generation = Math.floor(i / (SECTORS.length * ROOTS.length * 3));
    const name = `${root} ${kind}${generation ? ` ${['Norte', 'Sul', 'Leste', 'Oeste', 'Centro', 'Brasil', 'Nacional'][generation % 7]}${generation >= 7 ? ` ${generation}` : ''}` : ''}`;
    let ticker = '';
    for (let k = 0; !ticker || tickers.has(ticker); k++) {
      const letters = fold(`${root}${kind}`).replace(/[^a-z]/g, '').toUpperCase();
      ticker = `${letters[0]}${letters[(1 + k) % letters.length]}${letters[(3 + k * 3) % letters.length]}${String.fromCharCode(65 + ((generation + k) % 26))}${r.pick(['3', '4', '11'])}`;
    }
    tickers.add(ticker);
    out.push(make(`company:${i}`, 'COMPANY', name, [`${root} ${kind} S.A.`], ticker, sector));
  }
  return out;
}

type Slots = { e: string; t: string; e2: string; p: string; i: string; v: string; pct: string; s: string; q: string };
const T = (pt: [string, string, string], en: [string, string, string], topic: Topic) => ({ pt, en, topic });
/** Title, subtitle and summary per topic, in Portuguese and English. */
const TEMPLATES = [
  T(['{e} registra lucro de R$ {v} bilhões no {q}', 'Resultado supera estimativas; ações {t} sobem {pct}%', 'A {e} informou lucro líquido de R$ {v} bilhões no {q}, alta de {pct}% sobre um ano antes. Segundo {p}, diretor financeiro, a companhia mantém a política de dividendos.'],
    ['{e} posts R$ {v} billion profit in {q}', 'Result beats estimates; {t} shares rise {pct}%', '{e} reported net income of R$ {v} billion in {q}, up {pct}% from a year earlier.'], 'EARN'),
  T(['{e} aprova dividendos de R$ {v} por ação', 'Pagamento aos acionistas de {t} ocorre no próximo mês', 'O conselho da {e} aprovou a distribuição de dividendos e juros sobre capital próprio. Analistas veem retorno de {pct}% em dividendos no ano.'],
    ['{e} approves R$ {v} per share dividend', 'Payment to {t} holders next month', "{e}'s board approved dividends and interest on equity."], 'DIV'),
  T(['{e} negocia compra da {e2} por R$ {v} bilhões', 'Aquisição ampliaria presença no setor de {s}', 'A {e} confirmou negociações para adquirir a {e2}. A operação depende de aprovação do Cade e pode gerar sinergias de {pct}% nos custos.'],
    ['{e} in talks to buy {e2} for R$ {v} billion', 'Deal would expand its {s} presence', '{e} confirmed talks to acquire {e2}, subject to antitrust approval.'], 'M&A'),
  T(['{e} protocola pedido de IPO na B3', 'Oferta pode movimentar R$ {v} bilhões', 'A {e} pediu registro de oferta pública inicial de ações à CVM. Bancos coordenadores estimam demanda {pct}% acima da oferta.'],
    ['{e} files for IPO on B3', 'Offering could raise R$ {v} billion', '{e} filed for an initial public offering with the securities regulator.'], 'IPO'),
  T(['{i} publica novas regras para o setor de {s}', 'Normas entram em vigor em {pct} dias', 'O {i} divulgou novas exigências regulatórias para empresas de {s}. Companhias como a {e} terão de adaptar seus processos.'],
    ['{i} issues new rules for the {s} sector', 'Rules take effect in {pct} days', '{i} released new regulatory requirements for {s} companies.'], 'REG'),
  T(['Copom mantém Selic em {pct}% ao ano', 'Decisão era esperada pelo mercado', 'O Comitê de Política Monetária do Banco Central manteve a taxa básica de juros. Para {p}, economista-chefe, cortes podem começar no próximo trimestre.'],
    ['Copom holds Selic at {pct}%', 'Decision was expected by the market', 'The central bank kept the benchmark rate unchanged.'], 'RATES'),
  T(['Inflação desacelera para {pct}% em doze meses, diz IBGE', 'Preços de alimentos e energia puxam a queda', 'O IPCA, índice oficial de inflação medido pelo IBGE, recuou no mês. Setores de {s} sentiram alívio nos custos.'],
    ['Inflation slows to {pct}% over twelve months', 'Food and energy prices lead the drop', 'The official inflation index fell in the month.'], 'MACRO'),
  T(['{e} capta R$ {v} bilhões em debêntures', 'Recursos vão alongar dívida e financiar investimentos', 'A {e} concluiu emissão de debêntures com demanda {pct}% acima do ofertado, segundo {p}.'],
    ['{e} raises R$ {v} billion in debentures', 'Proceeds to extend debt and fund investment', '{e} completed a debenture issue.'], 'DEBT'),
  T(['{e} anuncia programa de recompra de ações', 'Plano prevê até {pct}% das ações em circulação', 'A {e} aprovou a recompra de ações {t}. A diretoria avalia que os papéis estão descontados.'],
    ['{e} announces share buyback', 'Plan covers up to {pct}% of free float', '{e} approved a buyback of {t} shares.'], 'BUYBACK'),
  T(['{e} revisa projeções e prevê crescimento de {pct}%', 'Companhia eleva investimentos para R$ {v} bilhões', 'A {e} atualizou seu guidance para o ano. {p} afirmou que a demanda no setor de {s} segue forte.'],
    ['{e} revises guidance, sees {pct}% growth', 'Company raises capex to R$ {v} billion', '{e} updated its full-year guidance.'], 'GUIDANCE'),
  T(['Justiça suspende contrato da {e} com a {e2}', 'Decisão liminar pode ser revertida no STF', 'Uma decisão judicial suspendeu o contrato entre a {e} e a {e2}. Advogados estimam impacto de R$ {v} bilhões.'],
    ['Court suspends {e} contract with {e2}', 'Injunction may be overturned', 'A court suspended the contract between {e} and {e2}.'], 'LEGAL'),
  T(['{e} divulga metas de redução de emissões até 2030', 'Plano prevê corte de {pct}% nas emissões de carbono', 'A {e} apresentou compromissos ambientais e sociais. O relatório de sustentabilidade detalha investimentos de R$ {v} bilhões.'],
    ['{e} sets emission cuts through 2030', 'Plan targets a {pct}% carbon reduction', '{e} presented its sustainability commitments.'], 'ESG'),
  T(['Funcionários da {e} aprovam greve', 'Sindicato pede reajuste de {pct}%', 'Trabalhadores da {e} decidiram paralisar as atividades. A empresa diz que mantém negociações.'],
    ['{e} workers approve strike', 'Union seeks {pct}% raise', '{e} employees voted to strike.'], 'LABOR'),
  T(['{e} assina contrato de R$ {v} bilhões com a {e2}', 'Acordo tem duração de {pct} anos', 'A {e} fechou contrato de fornecimento com a {e2}, reforçando sua posição no setor de {s}.'],
    ['{e} signs R$ {v} billion contract with {e2}', 'Agreement runs for {pct} years', '{e} signed a supply contract with {e2}.'], 'CONTRACT'),
  T(['{e} lança nova plataforma para clientes', 'Produto mira crescimento de {pct}% na receita digital', 'A {e} apresentou seu novo produto. Segundo {p}, a meta é ampliar a participação no mercado de {s}.'],
    ['{e} launches new customer platform', 'Product targets {pct}% digital revenue growth', '{e} presented its new product.'], 'PRODUCT'),
  T(['{e} anuncia {p} como novo presidente', 'Troca no comando ocorre após {pct} anos', 'O conselho de administração da {e} aprovou a nomeação de {p} para a presidência. As ações {t} reagiram em alta.'],
    ['{e} names {p} as new CEO', 'Leadership change after {pct} years', "{e}'s board appointed {p} as chief executive."], 'MGMT'),
];

const QUARTERS = ['primeiro trimestre', 'segundo trimestre', 'terceiro trimestre', 'quarto trimestre'];
const QUARTERS_EN = ['the first quarter', 'the second quarter', 'the third quarter', 'the fourth quarter'];
const SOURCES = [
  ['Valor Econômico', 1], ['InfoMoney', 2], ['Exame', 2], ['Estadão', 1], ['Folha de S.Paulo', 1], ['Reuters Brasil', 1], ['Money Times', 3], ['Bloomberg Línea', 1], ['Brazil Journal', 2], ['O Globo', 1],
] as const;

const fill = (s: string, v: Slots) => s.replace(/\{(\w+)\}/g, (_, k: keyof Slots) => v[k]);

export interface CorpusPools {
  companies: CorpusEntity[];
  people: CorpusEntity[];
  institutions: CorpusEntity[];
  bySector: Map<Sector, CorpusEntity[]>;
}

export function corpusPools(entities: readonly CorpusEntity[]): CorpusPools {
  const companies = entities.filter((e) => e.entityType === 'COMPANY');
  return {
    companies,
    people: entities.filter((e) => e.entityType === 'PERSON'),
    institutions: entities.filter((e) => e.entityType === 'INSTITUTION'),
    bySector: new Map(SECTORS.map((s) => [s, companies.filter((c) => c.sector === s)])),
  };
}

/** Article `n` of a corpus of `total` (published over the `days` before `now`, newest last). */
export function corpusArticle(n: number, total: number, pools: CorpusPools, now: Date, days = 60): ImportLine {
  const r = rng(1_000_003 * (n + 1));
  const { companies, people, institutions } = pools;
  const template = TEMPLATES[(n * 7 + r.int(3)) % TEMPLATES.length]!;
  // Central-bank and statistics news is filed under finance or government; the rest under the company's sector.
  const sector: Sector = template.topic === 'RATES' || template.topic === 'MACRO' ? r.pick(['FIN', 'GOV'] as const) : SECTORS[n % SECTORS.length]!;
  const inSector = pools.bySector.get(sector)!;
  const company = inSector.length ? r.pick(inSector) : r.pick(companies);
  let other = r.pick(companies);
  if (other._id === company._id) other = companies[(companies.indexOf(company) + 1) % companies.length]!;
  const quarter = r.int(4);
  const slots: Slots = {
    e: company.canonicalName,
    t: company.ticker ?? '',
    e2: other.canonicalName,
    p: people.length ? r.pick(people).canonicalName : 'Ana Almeida',
    i: r.pick(institutions).aliases[0] ?? r.pick(institutions).canonicalName,
    v: (1 + r.int(400) / 10).toFixed(1).replace('.', ','),
    pct: String(2 + r.int(30)),
    s: SECTOR_NAMES[sector],
    q: QUARTERS[quarter]!,
  };
  const slotsEn = { ...slots, q: QUARTERS_EN[quarter]!, v: slots.v.replace(',', '.') };
  const [title, subtitle, summary] = template.pt.map((s) => fill(s, slots)) as [string, string, string];
  const [titleEn, subtitleEn, summaryEn] = template.en.map((s) => fill(s, slotsEn)) as [string, string, string];
  const sentiment = Math.round((r.next() * 2 - 1) * 100) / 100;
  const dims = Array.from({ length: 5 }, () => 30 + r.int(71));
  const overall = Math.round(dims.reduce((a, b) => a + b, 0) / 5);
  const isBreaking = r.chance(0.03);
  const [sourceName, sourceTier] = r.pick(SOURCES);
  const step = (days * 86_400_000) / Math.max(1, total);
  const publishedAt = new Date(now.getTime() - (total - n) * step - r.int(Math.max(1, Math.floor(step))));
  const words = `${title} ${subtitle} ${summary}`.split(/\s+/).length * 12;
  return {
    enrich: false,
    title,
    subtitle,
    summary,
    sourceName,
    sourceUrl: `https://noticias.demo.newsletter.dev/artigo/${n}`,
    publishedAt: publishedAt.toISOString(),
    primarySector: sector,
    primaryTopic: template.topic,
    contentType: isBreaking ? 'BREAKING' : r.pick(['NEWS', 'NEWS', 'NEWS', 'ANALYSIS', 'OPINION', 'INTERVIEW', 'REPORT', 'PRESS_RELEASE'] as const),
    urgencyLevel: isBreaking ? r.pick(['CRITICAL', 'HIGH'] as const) : r.pick(['HIGH', 'MEDIUM', 'MEDIUM', 'LOW', 'LOW'] as const),
    isBreaking,
    isExclusive: r.chance(0.05),
    language: 'pt',
    modules: {
      sentiment: { score: sentiment, label: sentimentLabel(sentiment), confidence: Math.round((0.5 + r.next() / 2) * 100) / 100 },
      market_impact: {
        level: r.pick(['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const),
        horizon: r.pick(['INTRADAY', 'SHORT_TERM', 'MEDIUM_TERM', 'LONG_TERM'] as const),
        scope: r.pick(['COMPANY', 'SECTOR', 'MARKET', 'ECONOMY'] as const),
        confidence: Math.round(r.next() * 100) / 100,
        affectedTickers: company.ticker ? [company.ticker] : [],
      },
      translations: { pt: { title, subtitle, summary }, en: { title: titleEn, subtitle: subtitleEn, summary: summaryEn } },
      scoring: { relevance: dims[0]!, credibility: dims[1]!, depth: dims[2]!, timeliness: dims[3]!, originality: dims[4]!, overall },
      classification: { secondarySectors: [SECTORS[(n + 5) % SECTORS.length]!], secondaryTopics: [TOPICS[(n + 3) % TOPICS.length]!], keywords: [SECTOR_NAMES[sector], template.topic.toLowerCase()] },
      meta: { sourceTier, paywall: sourceTier === 1 && r.chance(0.5), wordCount: words, readingTimeMinutes: Math.max(1, Math.ceil(words / 200)) },
    },
    entities: [],
  };
}

/** The corpus as JSON lines (a stream, never held whole). */
export async function* corpusLines(total: number, entities: readonly CorpusEntity[], now: Date): AsyncGenerator<string> {
  const pools = corpusPools(entities);
  for (let n = 0; n < total; n++) yield `${JSON.stringify(corpusArticle(n, total, pools, now))}\n`;
}
