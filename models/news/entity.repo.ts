import type { Connection } from 'mongoose';
import type { EntityType } from './article.rules';
import { entityModel, type EntityDoc } from './entity.model';
import type { PageQuery } from './pagination.rules';
import { nameKey } from './ingest.rules';
import { fold } from './text.rules';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface EntityFilters {
  type?: EntityType | undefined;
  ticker?: string | undefined;
}

/** The editors' list: the filters of the public one and a name or ticker prefix. */
export interface CatalogueFilters extends EntityFilters {
  /** The start of a name, an alias or a ticker (case and accents aside). */
  q?: string | undefined;
}

/** What another entity may already hold that an edit would give this one. */
export interface Holdings {
  ticker?: string | undefined;
  cnpj?: string | undefined;
  nameKeys?: readonly string[] | undefined;
}

/** Above every character a folded name or a ticker holds: the end of a prefix's range. */
const PREFIX_END = '\uffff';

export function createEntityRepo(conn: Connection) {
  const Entities = entityModel(conn);
  const query = (f: EntityFilters) => ({ ...(f.type ? { entityType: f.type } : {}), ...(f.ticker ? { ticker: f.ticker } : {}) });
  return {
    findById: (id: string) => Entities.findById(id).lean<EntityDoc>().exec(),
    findByIds: (ids: string[]) => Entities.find({ _id: { $in: ids } }).sort({ canonicalName: 1, _id: 1 }).lean<EntityDoc[]>().exec(),
    async list(f: EntityFilters, page: PageQuery): Promise<{ items: EntityDoc[]; total: number }> {
      const q = query(f);
      const [items, total] = await Promise.all([
        Entities.find(q).sort({ canonicalName: 1, _id: 1 }).skip(page.offset).limit(page.limit).lean<EntityDoc[]>(),
        Entities.countDocuments(q),
      ]);
      return { items, total };
    },
    /**
     * Companies and others whose name, an alias or ticker starts with `text` (case and accents
     * aside): the dashboard's watchlist picker. The catalogue is curated and small.
     */
    search: (text: string, limit: number) => {
      const prefix = new RegExp(`^${escapeRegex(fold(text))}`);
      const ticker = new RegExp(`^${escapeRegex(text.trim().toUpperCase())}`);
      return Entities.find({ $or: [{ nameKeys: prefix }, { ticker }] }).sort({ canonicalName: 1, _id: 1 }).limit(limit).lean<EntityDoc[]>().exec();
    },
    /**
     * The editors' list by canonical name: the public filters, and `q` as the start of a folded
     * name or alias (`nameKeys`) or of a ticker. A prefix is a range of the indexed values, never
     * a regular expression made of what the caller sent.
     */
    async catalogue(f: CatalogueFilters, page: PageQuery): Promise<{ items: EntityDoc[]; total: number }> {
      const q: Record<string, unknown> = query(f);
      if (f.q !== undefined) {
        const key = nameKey(f.q);
        const ticker = f.q.trim().toUpperCase();
        const or: Record<string, unknown>[] = [];
        if (key) or.push({ nameKeys: { $elemMatch: { $gte: key, $lt: `${key}${PREFIX_END}` } } });
        if (ticker) or.push({ ticker: { $gte: ticker, $lt: `${ticker}${PREFIX_END}` } });
        if (or.length === 0) return { items: [], total: 0 };
        q.$or = or;
      }
      const [items, total] = await Promise.all([
        Entities.find(q).sort({ canonicalName: 1, _id: 1 }).skip(page.offset).limit(page.limit).lean<EntityDoc[]>(),
        Entities.countDocuments(q),
      ]);
      return { items, total };
    },
    /** Other entities holding a ticker, a CNPJ or a folded name an edit would give `exceptId` (a few at most). */
    othersHolding(h: Holdings, exceptId: string): Promise<EntityDoc[]> {
      const or: Record<string, unknown>[] = [];
      if (h.ticker) or.push({ ticker: h.ticker });
      if (h.cnpj) or.push({ cnpj: h.cnpj });
      if (h.nameKeys?.length) or.push({ nameKeys: { $in: [...h.nameKeys] } });
      if (or.length === 0) return Promise.resolve([]);
      return Entities.find({ _id: { $ne: exceptId }, $or: or }).sort({ canonicalName: 1, _id: 1 }).limit(10).lean<EntityDoc[]>().exec();
    },
    /** Sets an entity's aliases (with their name keys), ticker or CNPJ; null when there is no such entity. */
    update: (id: string, set: Partial<Pick<EntityDoc, 'aliases' | 'nameKeys' | 'ticker' | 'cnpj'>>) =>
      Entities.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }).lean<EntityDoc>().exec(),
    insertMany: async (docs: EntityDoc[]) => {
      await Entities.insertMany(docs, { ordered: false });
    },
  };
}

export type EntityRepo = ReturnType<typeof createEntityRepo>;
