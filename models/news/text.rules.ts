/**
 * Portuguese text for search: folding (case and accents), tokens and a light plural stemmer, used
 * the same way when articles are indexed and when queries are read, so "petrobras" finds
 * "Petrobrás", "acoes" finds "ações" and a singular finds its plural. Pure functions.
 */

/** Lower case without accents: "Ações da Petrobrás" → "acoes da petrobras". */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Words too common to say anything about an article (after folding). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a ao aos as at ate com como da das de do dos e ela ele em entre era essa esse esta este foi ha isso ' +
    'ja la mais mas na nas nem no nos o os ou para pela pelas pelo pelos por qual que se sem ser seu sua ' +
    'sao tem um uma umas uns the of and to in on for is'
  ).split(' '),
);

/**
 * Reduces a folded word to a stem shared by its singular and plural (after the plural step of
 * RSLP, the Portuguese stemmer of Orengo and Huyck, without its exception lists): acoes → acao,
 * jornais → jornal, papeis → papel, bens → bem, valores → valor, empresas → empresa.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  const rules: [string, string][] = [
    ['oes', 'ao'],
    ['aes', 'ao'],
    ['ais', 'al'],
    ['eis', 'el'],
    ['ois', 'ol'],
    ['ns', 'm'],
    ['res', 'r'],
    ['zes', 'z'],
    ['les', 'l'],
  ];
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 2) return word.slice(0, -suffix.length) + replacement;
  }
  return word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/** The words of a text, folded, without stopwords and one-letter words, in order (repeats kept). */
export function words(text: string): string[] {
  return fold(text)
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2 && !STOPWORDS.has(w));
}

/** Search terms of a text: the stems of its words, each once, in order of first appearance. */
export function terms(text: string): string[] {
  return [...new Set(words(text).map(stem))];
}

/**
 * The copy of a text search ranks by: its words folded and stemmed, in order, so that it holds
 * exactly the terms a query is read into: "Ações da Petrobrás" → "acao petrobras".
 */
export function searchCopy(text: string | null | undefined): string {
  return words(text ?? '').map(stem).join(' ');
}
