/**
 * Stored articles (spec §2.1): `_id` is the public UUID, so reading an article is an `_id` lookup
 * (indexed on FerretDB too). Lists, search and the feed never query this collection: they read
 * the article index (article-index.repo.ts) and then fetch the page's articles by `_id`. The
 * MongoDB indexes below serve operators' ad-hoc queries and keep sourceUrl unique.
 */
import { type Connection, Schema } from 'mongoose';
import { modelOn } from '../infra/mongo';
import { CONTENT_TYPES, SECTORS, TOPICS, URGENCY_LEVELS, type ArticleDoc } from './article.rules';

const ArticleSchema = new Schema<ArticleDoc>(
  {
    _id: { type: String, required: true },
    sourceName: { type: String, required: true },
    sourceUrl: { type: String, required: true },
    title: { type: String, required: true },
    subtitle: { type: String, default: null },
    summary: { type: String, default: null },
    publishedAt: { type: Date, required: true },
    primarySector: { type: String, enum: SECTORS, required: true },
    primaryTopic: { type: String, enum: TOPICS, required: true },
    contentType: { type: String, enum: CONTENT_TYPES, required: true },
    urgencyLevel: { type: String, enum: URGENCY_LEVELS, required: true },
    isBreaking: { type: Boolean, required: true },
    isExclusive: { type: Boolean, required: true },
    language: { type: String, required: true },
    baseScore: { type: Number, required: true, min: 0, max: 100 },
    modules: { type: Schema.Types.Mixed, default: {} },
    entityIds: { type: [String], default: [] },
    tickers: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
  },
  { collection: 'articles', versionKey: false, minimize: false },
);
ArticleSchema.index({ sourceUrl: 1 }, { unique: true });
ArticleSchema.index({ publishedAt: -1 });
ArticleSchema.index({ primarySector: 1, publishedAt: -1 });
ArticleSchema.index({ entityIds: 1, publishedAt: -1 });

export const articleModel = (c: Connection) => modelOn(c, 'Article', ArticleSchema);
