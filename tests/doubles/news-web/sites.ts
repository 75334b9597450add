/**
 * The outlets of the news-web double and what each publishes, in order: the well-behaved sites the
 * platform polls (one per feed format, plus a second RSS site and a news agency), and the small
 * sites behind the slow, rate-limited, unavailable and oversized fault origins.
 *
 * A site's items follow a fixed list of slots. Slots that a scenario needs among the first items
 * (the agency's wire stories and their copies, the paywalled and private pages, the breaking news,
 * the pairs of stories about one company) are pinned to an index; the seed shuffles the others.
 * Item k takes slot k mod n; past the list the pool cycles, and a cycled item gets its own guid,
 * URL and an "(Nª edição)" headline. Each well-behaved site has 14 distinct stories: the 11
 * published at start and 3 more that `/__control/publish` brings out before anything repeats.
 * Pure: no clock, no I/O.
 */
import type { Sector } from '../../../models/news/article.rules';
import { BOLETIM_STORIES } from './stories-boletim';
import { DIARIO_STORIES } from './stories-diario';
import { FOLHA_STORIES } from './stories-folha';
import { PREGAO_STORIES } from './stories-pregao';
import { FAULT_STORIES, RADAR_STORIES } from './stories-radar';
import { SECTION_OF, type Story } from './story';

export type FeedFormat = 'rss' | 'atom' | 'json';

export interface Slot {
  story: Story;
  /** The index this slot keeps whatever the seed. */
  at?: number;
  /** The page shows the first paragraph and a subscribers-only notice. */
  paywalled?: boolean;
  /** The page lives under /privado/, which robots.txt forbids. */
  private?: boolean;
  /** A republished copy of another outlet's story (`story` is the original). */
  copy?: { agency: string; dropParagraph?: number };
}

/** The boilerplate around an article, different on each site (extraction must drop all of it). */
export interface SiteLook {
  tagline: string;
  nav: string[];
  relatedHeading: string;
  newsletter: string;
  footer: string[];
}

export interface SiteSpec {
  id: string;
  name: string;
  format: FeedFormat;
  tier: 1 | 2 | 3;
  defaultSector?: Sector;
  feedPath: string;
  description: string;
  /**
   * How the feed links to a page and what the page calls canonical: the same URL (`plain`), the
   * URL with utm tracking in the feed and without on the page (`utm`), or a dated path on the page
   * (`/mercados/yyyy/mm/slug`) that differs from the feed's `/noticias/slug` (`datedCanonical`).
   */
  links: 'plain' | 'utm' | 'datedCanonical';
  /** The feed item's id: the canonical URL, an opaque string with this prefix, or none (RSS only). */
  guid: { kind: 'permalink' } | { kind: 'opaque'; prefix: string } | { kind: 'none' };
  /** RSS dates in São Paulo time with its offset, or in GMT. */
  rssDates?: 'offset' | 'gmt';
  authors: string[];
  look: SiteLook;
  slots: Slot[];
  /** Fault origins' sites: one item, published at startAt, never more. */
  fixed?: boolean;
}

/** What item k of a site is (its URLs and date come with the origin and the clock, in render.ts). */
export interface CatalogItem {
  siteId: string;
  k: number;
  cycle: number;
  storyKey: string;
  title: string;
  subtitle: string;
  summary: string;
  /** The article's paragraphs (a copy's may miss one of the original's). */
  body: string[];
  /** A copy's credit line, "Com informações da …". */
  credit?: string;
  paywalled: boolean;
  private: boolean;
  breaking: boolean;
  sector: Sector;
  section: string;
  tickers: string[];
  author: string;
  slug: string;
  /** /noticias/<slug>, or /privado/<slug> for a private page. */
  pagePath: string;
}

const AGENCY = 'Agência Boletim Financeiro';
const byKey = (stories: Story[], key: string): Story => {
  const found = stories.find((s) => s.key === key);
  if (!found) throw new Error(`no story ${key}`);
  return found;
};

/** Pinned slots first (by key), then the free stories in the file's order. */
function slotsOf(stories: Story[], pinned: Record<string, Omit<Slot, 'story'>>): Slot[] {
  return [
    ...Object.entries(pinned).map(([key, slot]) => ({ ...slot, story: byKey(stories, key) })),
    ...stories.filter((s) => !(s.key in pinned)).map((story) => ({ story })),
  ];
}

export const WELL_BEHAVED: SiteSpec[] = [
  {
    id: 'diario-do-mercado',
    name: 'Diário do Mercado',
    format: 'rss',
    tier: 1,
    feedPath: '/rss/ultimas.xml',
    description: 'Últimas notícias de mercados, empresas e economia do Diário do Mercado.',
    links: 'utm',
    guid: { kind: 'permalink' },
    rssDates: 'offset',
    authors: ['Mariana Albuquerque', 'Ricardo Tavares', 'Juliana Freitas', 'Paulo Henrique Sá'],
    look: {
      tagline: 'O jornal do investidor desde 1998',
      nav: ['Mercados', 'Empresas', 'Economia', 'Finanças Pessoais', 'Opinião', 'Podcasts'],
      relatedHeading: 'Leia também',
      newsletter: 'Receba o resumo do Diário do Mercado no seu e-mail toda manhã, antes da abertura do pregão. Cadastre-se gratuitamente.',
      footer: ['© Diário do Mercado. Todos os direitos reservados.', 'Política de privacidade', 'Termos de uso', 'Expediente', 'Anuncie'],
    },
    slots: slotsOf(DIARIO_STORIES, { 'petrobras-ceo-renuncia': { at: 10 }, 'vale-dividendos-extraordinarios': { at: 4 } }),
  },
  {
    id: 'pregao-online',
    name: 'Pregão Online',
    format: 'atom',
    tier: 2,
    defaultSector: 'FIN',
    feedPath: '/feed/atom',
    description: 'Cobertura em tempo real da bolsa brasileira.',
    links: 'datedCanonical',
    guid: { kind: 'opaque', prefix: 'tag:pregao-online.test,2025:noticia-' },
    authors: ['Camila Rezende', 'Thiago Monteiro', 'Fernanda Lopes'],
    look: {
      tagline: 'A bolsa em tempo real',
      nav: ['Ações', 'Câmbio', 'Juros', 'Commodities', 'Cripto', 'Carteiras'],
      relatedHeading: 'Mais lidas',
      newsletter: 'Alertas do Pregão Online: fatos relevantes e resultados no seu celular assim que saem. Ative as notificações.',
      footer: ['Pregão Online — conteúdo informativo, não constitui recomendação de investimento.', 'Fale conosco', 'Trabalhe conosco', 'Privacidade'],
    },
    slots: slotsOf(PREGAO_STORIES, { 'vale-mariana-parcela': { at: 1 }, 'petrobras-reduz-diesel': { at: 6 }, 'raizen-fato-relevante': { at: 9 } }),
  },
  {
    id: 'folha-economica',
    name: 'Folha Econômica',
    format: 'json',
    tier: 1,
    feedPath: '/feed.json',
    description: 'Economia, negócios e política econômica.',
    links: 'plain',
    guid: { kind: 'opaque', prefix: 'folha-economica-' },
    authors: ['Beatriz Nogueira', 'André Vasconcelos', 'Luísa Carvalho', 'Eduardo Pimentel'],
    look: {
      tagline: 'Jornalismo econômico independente',
      nav: ['Economia', 'Negócios', 'Política Econômica', 'Seu Dinheiro', 'Colunistas'],
      relatedHeading: 'Veja também',
      newsletter: 'Assinantes da Folha Econômica têm acesso ilimitado a análises exclusivas. Assine a partir de R$ 9,90 no primeiro mês.',
      footer: ['Copyright Folha Econômica. Proibida a reprodução sem autorização.', 'Central do assinante', 'Política de privacidade', 'Termos de uso'],
    },
    slots: slotsOf(FOLHA_STORIES, {
      'copom-surpreende-selic-15': { at: 8 },
      'analise-bancos-selic': { at: 1, paywalled: true },
      'tim-negocia-fibra': { at: 5, paywalled: true },
    }),
  },
  {
    id: 'radar-b3',
    name: 'Radar B3',
    format: 'rss',
    tier: 3,
    defaultSector: 'FIN',
    feedPath: '/feed/',
    description: 'Notícias rápidas sobre as empresas listadas na B3.',
    links: 'plain',
    guid: { kind: 'none' },
    rssDates: 'gmt',
    authors: ['Redação Radar B3', 'Gustavo Ramalho'],
    look: {
      tagline: 'Tudo sobre as empresas da bolsa',
      nav: ['Notícias', 'Dividendos', 'Agenda de resultados', 'Carteira Radar', 'Área do parceiro'],
      relatedHeading: 'Últimas do Radar',
      newsletter: 'Entre no grupo do Radar B3 e receba as notícias da bolsa pelo WhatsApp.',
      footer: ['Radar B3 não é afiliado à B3 S.A. — Brasil, Bolsa, Balcão.', 'Quem somos', 'Contato', 'Política de cookies'],
    },
    slots: [
      ...slotsOf(RADAR_STORIES, { 'carteira-radar-junho': { at: 3, private: true } }),
      { story: byKey(BOLETIM_STORIES, 'itau-lucro-trimestre'), at: 2, copy: { agency: AGENCY, dropParagraph: 5 } },
      { story: byKey(BOLETIM_STORIES, 'weg-aquisicao-eua'), at: 5, copy: { agency: AGENCY, dropParagraph: 3 } },
      { story: byKey(BOLETIM_STORIES, 'bb-inadimplencia-agro'), at: 8, copy: { agency: AGENCY } },
    ],
  },
  {
    id: 'boletim-financeiro',
    name: AGENCY,
    format: 'rss',
    tier: 2,
    feedPath: '/rss',
    description: 'Noticiário da Agência Boletim Financeiro para clientes e parceiros.',
    links: 'plain',
    guid: { kind: 'opaque', prefix: 'boletim-financeiro:noticia:' },
    rssDates: 'gmt',
    authors: ['Agência Boletim Financeiro', 'Helena Duarte', 'Marcos Vinícius Prado'],
    look: {
      tagline: 'Informação financeira desde 1987',
      nav: ['Últimas', 'Empresas', 'Macroeconomia', 'Mercados', 'Serviços para clientes'],
      relatedHeading: 'Outras notícias da agência',
      newsletter: 'Conheça o terminal da Agência Boletim Financeiro: notícias em tempo real para mesas de operação.',
      footer: ['Agência Boletim Financeiro. Reprodução permitida apenas a clientes licenciados.', 'Licenciamento', 'Contato comercial'],
    },
    slots: slotsOf(BOLETIM_STORIES, {
      'itau-lucro-trimestre': { at: 1 },
      'petrobras-producao-recorde': { at: 2 },
      'weg-aquisicao-eua': { at: 4 },
      'bb-inadimplencia-agro': { at: 7 },
    }),
  },
];

const faultLook = (name: string): SiteLook => ({
  tagline: 'Notícias regionais de economia',
  nav: ['Início', 'Economia', 'Regional'],
  relatedHeading: 'Mais notícias',
  newsletter: `Siga o ${name} nas redes sociais.`,
  footer: [`© ${name}`, 'Contato'],
});

const faultSite = (id: string, name: string, story: Story): SiteSpec => ({
  id,
  name,
  format: 'rss',
  tier: 3,
  feedPath: '/feed.xml',
  description: `Últimas notícias do ${name}.`,
  links: 'plain',
  guid: { kind: 'opaque', prefix: `${id}:` },
  rssDates: 'gmt',
  authors: [`Redação ${name}`],
  look: faultLook(name),
  slots: [{ story }],
  fixed: true,
});

/** The sites behind the slow, rate-limited and unavailable origins (what they serve once they answer). */
export const FAULT_SITES = {
  slow: faultSite('correio-do-cerrado', 'Correio do Cerrado', byKey(FAULT_STORIES, 'rumo-volume-recorde')),
  rateLimited: faultSite('monitor-de-commodities', 'Monitor de Commodities', byKey(FAULT_STORIES, 'klabin-retoma-projeto')),
  unavailable: faultSite('painel-eletrico', 'Painel Elétrico', byKey(FAULT_STORIES, 'equatorial-leilao-transmissao')),
};

/** Every story written for the double, each once (the pool the similarity checks run over). */
export const ALL_STORIES: Story[] = [...BOLETIM_STORIES, ...DIARIO_STORIES, ...PREGAO_STORIES, ...FOLHA_STORIES, ...RADAR_STORIES, ...FAULT_STORIES];

/** mulberry32: a small seeded generator, enough for a deterministic shuffle. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

/** The site's slots in publication order for this seed: pinned ones at their index, the rest shuffled. */
export function sequence(site: SiteSpec, seed: number): Slot[] {
  const order: (Slot | undefined)[] = new Array<Slot | undefined>(site.slots.length);
  for (const slot of site.slots) {
    if (slot.at === undefined) continue;
    if (slot.at >= order.length || order[slot.at]) throw new Error(`${site.id}: slot ${slot.at} pinned twice or out of range`);
    order[slot.at] = slot;
  }
  const free = site.slots.filter((s) => s.at === undefined);
  const next = random(seed ^ hash(site.id));
  for (let i = free.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [free[i], free[j]] = [free[j]!, free[i]!];
  }
  // Array.from, not order.map: map skips the holes the free slots fill.
  return Array.from(order, (slot) => slot ?? free.shift()!);
}

/** A URL path segment from a headline: lower case, no accents, words joined by hyphens, at most ~80 characters. */
export function slugify(title: string): string {
  const words = title
    .replace(/^URGENTE:\s*/i, '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ');
  let slug = '';
  for (const w of words) {
    if (slug && slug.length + 1 + w.length > 80) break;
    slug = slug ? `${slug}-${w}` : w;
  }
  return slug;
}

/** Item k of a site, given its sequence (from `sequence`). */
export function itemAt(site: SiteSpec, order: Slot[], k: number): CatalogItem {
  const slot = order[k % order.length]!;
  const cycle = Math.floor(k / order.length);
  const { story } = slot;
  const baseTitle = slot.copy ? (story.wireTitle ?? story.title) : story.title;
  const body = slot.copy?.dropParagraph === undefined ? story.body : story.body.filter((_, i) => i !== slot.copy!.dropParagraph);
  const slug = slugify(baseTitle) + (cycle > 0 ? `-${cycle + 1}a-edicao` : '');
  return {
    siteId: site.id,
    k,
    cycle,
    storyKey: story.key,
    title: cycle > 0 ? `${baseTitle} (${cycle + 1}ª edição)` : baseTitle,
    subtitle: story.subtitle,
    summary: story.summary,
    body,
    credit: slot.copy ? `Com informações da ${slot.copy.agency}` : undefined,
    paywalled: slot.paywalled ?? false,
    private: slot.private ?? false,
    breaking: story.breaking ?? false,
    sector: story.sector,
    section: SECTION_OF[story.sector] ?? 'Economia',
    tickers: story.tickers,
    author: slot.copy ? slot.copy.agency : site.authors[k % site.authors.length]!,
    slug,
    pagePath: `${slot.private ? '/privado' : '/noticias'}/${slug}`,
  };
}
