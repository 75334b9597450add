/** Which quick replies fit a ticket: shared meaningful words, accents and case ignored (pure). */
const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
const STOP = new Set(['a', 'o', 'e', 'de', 'da', 'do', 'que', 'nao', 'em', 'um', 'uma', 'para', 'com', 'meu', 'minha', 'meus', 'os', 'as', 'no', 'na', 'se', 'por', 'estou', 'esta', 'mas']);
const words = (s: string) => new Set(fold(s).split(/[^a-z0-9]+/).filter((w) => w.length > 2 && !STOP.has(w)));

export function rankQuickReplies<T extends { title: string; content: string; usageCount: number }>(text: string, replies: T[]): T[] {
  const wanted = words(text);
  return replies
    .map((r) => ({ r, score: [...words(`${r.title} ${r.content}`)].filter((w) => wanted.has(w)).length }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || b.r.usageCount - a.r.usageCount)
    .map((x) => x.r);
}
