import type { Connection } from 'mongoose';
import type { EntityType } from './article.rules';
import { entityModel, type EntityDoc } from './entity.model';
import type { PageQuery } from './pagination.rules';

export interface EntityFilters {
  type?: EntityType | undefined;
  ticker?: string | undefined;
}

export function createEntityRepo(conn: Connection) {
  const Entities = entityModel(conn);
  const query = (f: EntityFilters) => ({ ...(f.type ? { entityType: f.type } : {}), ...(f.ticker ? { ticker: f.ticker } : {}) });
  return {
    findById: (id: string) => Entities.findById(id).lean<EntityDoc>().exec(),
    async list(f: EntityFilters, page: PageQuery): Promise<{ items: EntityDoc[]; total: number }> {
      const q = query(f);
      const [items, total] = await Promise.all([
        Entities.find(q).sort({ canonicalName: 1, _id: 1 }).skip(page.offset).limit(page.limit).lean<EntityDoc[]>(),
        Entities.countDocuments(q),
      ]);
      return { items, total };
    },
    insertMany: async (docs: EntityDoc[]) => {
      await Entities.insertMany(docs, { ordered: false });
    },
  };
}

export type EntityRepo = ReturnType<typeof createEntityRepo>;
