/**
 * Linking the entity mentions the enrichment model names to the curated catalogue: by B3 ticker,
 * by CNPJ, then by canonical name or alias (folded). A mention the catalogue lacks is returned
 * apart, for the curation queue: nothing is added to the catalogue here. Pure.
 */
import type { EntityType, ModuleData } from './article.rules';
import { nameKey, type EntityDictionary } from './ingest.rules';

export interface ModelMention {
  name: string;
  type: EntityType;
  ticker: string | null;
  cnpj: string | null;
  mentionCount: number;
  inTitle: boolean;
  sentiment: number;
}

/** Mentions whose type names no catalogue entry worth queueing (amounts, metrics, places…). */
const NOT_CURATED: ReadonlySet<EntityType> = new Set(['MONETARY', 'METRIC', 'LOCATION', 'EVENT', 'LAW']);

const digits = (s: string | null) => (s ? s.replace(/\D/g, '') : '');

export function linkMentions(
  mentions: readonly ModelMention[],
  dict: EntityDictionary,
  byCnpj: ReadonlyMap<string, string>,
): { entities: ModuleData['entities']; unknown: ModelMention[] } {
  const linked = new Map<string, ModuleData['entities'][number]>();
  const unknown: ModelMention[] = [];
  for (const m of mentions) {
    const cnpjId = byCnpj.get(digits(m.cnpj));
    const e = (m.ticker && dict.byTicker.get(m.ticker.toUpperCase())) || (cnpjId && dict.byId.get(cnpjId)) || dict.byName.get(nameKey(m.name));
    if (!e) {
      if (!NOT_CURATED.has(m.type) && nameKey(m.name).length >= 3) unknown.push(m);
      continue;
    }
    const count = Math.max(1, Math.round(m.mentionCount));
    const prior = linked.get(e._id);
    const mentionCount = (prior?.mentionCount ?? 0) + count;
    const isInTitle = (prior?.isInTitle ?? false) || m.inTitle;
    linked.set(e._id, {
      entityId: e._id,
      entityType: e.entityType,
      canonicalName: e.canonicalName,
      ...(e.ticker ? { ticker: e.ticker } : {}),
      mentionCount,
      // The same scale imports use (ingest.rules buildArticle): the title counts most.
      prominenceScore: Math.min(1, Math.round(((isInTitle ? 0.5 : 0.2) + 0.1 * Math.min(mentionCount, 5)) * 100) / 100),
      isInTitle,
      sentiment: Math.max(-1, Math.min(1, m.sentiment)),
    });
  }
  const entities = [...linked.values()].sort((a, b) => b.prominenceScore - a.prominenceScore || a.canonicalName.localeCompare(b.canonicalName));
  return { entities, unknown };
}
