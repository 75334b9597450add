/**
 * One news story of the news-web double's pool: the text an outlet publishes (headline, linha fina,
 * the feed's summary and the body's paragraphs) and what the platform's enrichment should find in
 * it (sector, tickers, whether it is breaking news). The stories are written by hand, one by one,
 * so that two different stories never share sentences (text-similarity dedupe must keep them
 * apart), and they read as Brazilian financial news. Names of outlets and people are invented.
 */
import type { Sector } from '../../../models/news/article.rules';

export interface Story {
  /** Stable key, unique in the pool (scenarios and tests name stories by it). */
  key: string;
  sector: Sector;
  /** B3 tickers (or the market's usual code) of the companies the story is about. */
  tickers: string[];
  title: string;
  /** The linha fina: the line under the headline. */
  subtitle: string;
  /** One or two sentences, what the feed carries. */
  summary: string;
  /** 4 to 8 paragraphs, at least 250 words together (so Readability keeps them). */
  body: string[];
  breaking?: boolean;
  /** Stories another outlet republishes: the lightly edited headline the copy carries. */
  wireTitle?: string;
}

/** The editoria a page shows above the headline, by sector. */
export const SECTION_OF: Partial<Record<Sector, string>> = {
  FIN: 'Finanças',
  TEC: 'Tecnologia',
  SAU: 'Saúde',
  ENE: 'Energia',
  MAT: 'Commodities',
  IND: 'Indústria',
  CON: 'Consumo',
  IMO: 'Imóveis',
  AGR: 'Agronegócio',
  TRA: 'Transportes',
  COM: 'Varejo',
  SER: 'Infraestrutura',
  GOV: 'Economia',
  CRY: 'Cripto',
  FIP: 'Investimentos',
  SOC: 'Economia',
};
