import type { Connection } from 'mongoose';
import type { EntityType } from './article.rules';
import { entityModel, type EntityDoc } from './entity.model';
import type { PageQuery } from './pagination.rules';
import { fold } from './text.rules';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface EntityFilters {
  type?: EntityType | undefined;
  ticker?: string | undefined;
}

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
    insertMany: async (docs: EntityDoc[]) => {
      await Entities.insertMany(docs, { ordered: false });
    },
  };
}

export type EntityRepo = ReturnType<typeof createEntityRepo>;
