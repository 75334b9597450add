/**
 * Stored articles (spec §2.1): `_id` is the public UUID. Lists, search and the feed are queries on
 * this collection (article-query.ts), each served by one of the indexes below: an equality prefix
 * for the filter a list is confined to (none, sector, topic, breaking, entity, ticker) and then
 * its sort, ending in `_id` so pages never overlap. Search requires every query term in `terms`
 * and reads its matches newest first from `{terms, publishedAt}` (article-query.ts).
 */
import { type Connection, Schema } from 'mongoose';
import { modelOn } from '../infra/mongo';
import { CONTENT_TYPES, SECTORS, TOPICS, URGENCY_LEVELS, type ArticleDoc, type Ordering } from './article.rules';

const ArticleSchema = new Schema<ArticleDoc>(
  {
    _id: { type: String, required: true },
    sourceName: { type: String, required: true },
    sourceUrl: { type: String, required: true },
    sourceKey: { type: String, required: true },
    title: { type: String, required: true },
    subtitle: { type: String, default: null },
    summary: { type: String, default: null },
    publishedAt: { type: Date, required: true },
    primarySector: { type: String, enum: SECTORS, required: true },
    primaryTopic: { type: String, enum: TOPICS, required: true },
    contentType: { type: String, enum: CONTENT_TYPES, required: true },
    urgencyLevel: { type: String, enum: URGENCY_LEVELS, required: true },
    urgencyRank: { type: Number, required: true },
    isBreaking: { type: Boolean, required: true },
    isExclusive: { type: Boolean, required: true },
    language: { type: String, required: true },
    baseScore: { type: Number, required: true, min: 0, max: 100 },
    relevance: { type: Number, required: true },
    modules: { type: Schema.Types.Mixed, default: {} },
    entityIds: { type: [String], default: [] },
    tickers: { type: [String], default: [] },
    search: { title: String, subtitle: String, summary: String },
    terms: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    sourceId: { type: String },
    alsoReportedBy: { type: [Schema.Types.Mixed], default: undefined },
    enrichment: { type: Schema.Types.Mixed },
    correction: { type: Schema.Types.Mixed },
  },
  { collection: 'articles', versionKey: false, minimize: false },
);

/** Each list order as an index suffix (highest first, then newest, then `_id`). */
export const SORTS: Record<Ordering, Record<string, -1>> = {
  publishedAt: { publishedAt: -1, _id: -1 },
  baseScore: { baseScore: -1, publishedAt: -1, _id: -1 },
  urgencyLevel: { urgencyRank: -1, publishedAt: -1, _id: -1 },
  relevance: { relevance: -1, _id: -1 },
};

ArticleSchema.index({ sourceKey: 1 }, { unique: true });
// Every list order, unfiltered and within a sector or a topic (GET /api/articles, by-sector).
for (const sort of Object.values(SORTS)) {
  ArticleSchema.index(sort);
  ArticleSchema.index({ primarySector: 1, ...sort });
  ArticleSchema.index({ primaryTopic: 1, ...sort });
}
// Newest first within breaking news, an entity, a ticker and a search term (search, feed keywords).
ArticleSchema.index({ isBreaking: 1, ...SORTS.publishedAt });
ArticleSchema.index({ entityIds: 1, ...SORTS.publishedAt });
ArticleSchema.index({ tickers: 1, ...SORTS.publishedAt });
ArticleSchema.index({ terms: 1, ...SORTS.publishedAt });
// One source's articles, newest first: a re-enrichment filtered by source (reenrich.rules
// reenrichQuery, resolved newest first by the article repo's idsMatching). The same plain compound
// kind as the indexes above (an equality prefix, then the sort), which MongoDB and the development
// database (DocumentDB's extended RUM: ordered scans) both serve.
ArticleSchema.index({ sourceId: 1, ...SORTS.publishedAt });
// The editors' list by pipeline state (GET /api/admin/articles: editorial.rules editorialQueries),
// newest first, across sources and within one. The state of an imported article never enriched is
// missing, which an equality on null finds in the same index.
ArticleSchema.index({ 'enrichment.state': 1, ...SORTS.publishedAt });
ArticleSchema.index({ sourceId: 1, 'enrichment.state': 1, ...SORTS.publishedAt });

export const articleModel = (c: Connection) => modelOn(c, 'Article', ArticleSchema);
