/**
 * Named entities (spec §2.3): companies, people, institutions, tickers… found in articles. `_id` is
 * a UUID string (an indexed lookup on FerretDB too); `nameKeys` holds the folded canonical name
 * and aliases, which import links mentions by.
 */
import { type Connection, Schema } from 'mongoose';
import { modelOn } from '../infra/mongo';
import { ENTITY_TYPES, type EntityType } from './article.rules';

export interface EntityDoc {
  _id: string;
  entityType: EntityType;
  canonicalName: string;
  aliases: string[];
  ticker: string | null;
  cnpj: string | null;
  /** Folded canonical name and aliases (text.rules fold), for linking by name. */
  nameKeys: string[];
  createdAt: Date;
}

const EntitySchema = new Schema<EntityDoc>(
  {
    _id: { type: String, required: true },
    entityType: { type: String, enum: ENTITY_TYPES, required: true },
    canonicalName: { type: String, required: true, trim: true },
    aliases: { type: [String], default: [] },
    ticker: { type: String, default: null },
    cnpj: { type: String, default: null },
    nameKeys: { type: [String], default: [] },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { collection: 'entities', versionKey: false },
);
EntitySchema.index({ entityType: 1, canonicalName: 1 });
EntitySchema.index({ ticker: 1 });
EntitySchema.index({ nameKeys: 1 });
// An edit of the catalogue refuses a CNPJ another entity has (operations/news/catalogue.ts).
EntitySchema.index({ cnpj: 1 });

export const entityModel = (c: Connection) => modelOn(c, 'Entity', EntitySchema);
