/** Tags, attachments and quick replies. */
import type { Connection } from 'mongoose';
import { insertWithNextId } from '../infra/counters';
import { attachmentModel, quickReplyModel, tagModel, type AttachmentDoc, type QuickReplyDoc, type TagDoc } from './support.model';

const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;
/** Tag names are unique regardless of case and accents' surrounding spaces. */
export const tagKey = (name: string) => name.trim().toLocaleLowerCase('pt-BR');

export function createTagRepo(conn: Connection) {
  const Tags = tagModel(conn);
  return {
    list: () => Tags.find().sort({ name: 1 }).lean<TagDoc[]>().exec(),
    findById: (id: number) => Tags.findById(id).lean<TagDoc>().exec(),
    findMany: (ids: number[]) => (ids.length ? Tags.find({ _id: { $in: ids } }).lean<TagDoc[]>().exec() : Promise.resolve([] as TagDoc[])),
    /** undefined when the name is taken. */
    async create(input: { name: string; color: string; isDefault?: boolean }): Promise<TagDoc | undefined> {
      try {
        const doc = await insertWithNextId(conn, 'tags', 'tags', (id) =>
          Tags.create({ _id: id, name: input.name.trim(), nameKey: tagKey(input.name), color: input.color.toLowerCase(), isDefault: input.isDefault ?? false }),
        );
        return doc.toObject();
      } catch (err) {
        if (isDuplicate(err)) return undefined;
        throw err;
      }
    },
    /** null when missing, undefined when the new name is taken. */
    async update(id: number, patch: { name?: string | undefined; color?: string | undefined }): Promise<TagDoc | null | undefined> {
      const set: Partial<TagDoc> = {};
      if (patch.name !== undefined) Object.assign(set, { name: patch.name.trim(), nameKey: tagKey(patch.name) });
      if (patch.color !== undefined) set.color = patch.color.toLowerCase();
      try {
        return await Tags.findByIdAndUpdate(id, { $set: set }, { returnDocument: 'after' }).lean<TagDoc>();
      } catch (err) {
        if (isDuplicate(err)) return undefined;
        throw err;
      }
    },
    delete: async (id: number) => (await Tags.deleteOne({ _id: id })).deletedCount === 1,
  };
}

export function createAttachmentRepo(conn: Connection) {
  const Attachments = attachmentModel(conn);
  return {
    create: async (doc: Omit<AttachmentDoc, '_id'>) =>
      (await insertWithNextId(conn, 'ticket_attachments', 'ticket_attachments', (id) => Attachments.create({ ...doc, _id: id }))).toObject(),
    forTicket: (supportId: number) => Attachments.find({ supportId }).sort({ createdAt: 1 }).lean<AttachmentDoc[]>().exec(),
    findById: (id: number) => Attachments.findById(id).lean<AttachmentDoc>().exec(),
    delete: async (id: number) => (await Attachments.deleteOne({ _id: id })).deletedCount === 1,
  };
}

/**
 * Quick replies. Each use is a document (unique per resulting message) and the usage count is
 * their number: inserts are atomic on FerretDB v1 too, where concurrent `$inc`s lose updates.
 */
export function createQuickReplyRepo(conn: Connection) {
  const Replies = quickReplyModel(conn);
  // Looked up per call: the connection may still be opening when the repo is built.
  const uses = () => conn.db!.collection<{ _id: number; replyId: number; at: Date }>('quick_reply_uses');
  const counts = async (ids: number[]): Promise<Map<number, number>> => {
    if (ids.length === 0) return new Map();
    const rows = await uses().aggregate<{ _id: number; n: number }>([{ $match: { replyId: { $in: ids } } }, { $group: { _id: '$replyId', n: { $sum: 1 } } }]).toArray();
    return new Map(rows.map((r) => [r._id, r.n]));
  };
  const withCount = async (docs: QuickReplyDoc[]) => {
    const n = await counts(docs.map((d) => d._id));
    return docs.map((d) => ({ ...d, usageCount: n.get(d._id) ?? 0 }));
  };
  return {
    /** Most used first. */
    async list(category?: string): Promise<QuickReplyDoc[]> {
      const docs = await Replies.find(category ? { category } : {}).sort({ _id: 1 }).lean<QuickReplyDoc[]>();
      return (await withCount(docs)).sort((a, b) => b.usageCount - a.usageCount || a._id - b._id);
    },
    async findById(id: number): Promise<QuickReplyDoc | null> {
      const doc = await Replies.findById(id).lean<QuickReplyDoc>();
      return doc ? (await withCount([doc]))[0]! : null;
    },
    async create(input: { title: string; content: string; category?: string | undefined }, by: string): Promise<QuickReplyDoc> {
      const doc = await insertWithNextId(conn, 'quick_replies', 'quick_replies', (id) =>
        Replies.create({ _id: id, title: input.title, content: input.content, category: input.category ?? null, createdBy: by }),
      );
      return { ...doc.toObject(), usageCount: 0 };
    },
    async update(id: number, patch: Partial<Pick<QuickReplyDoc, 'title' | 'content' | 'category'>>): Promise<QuickReplyDoc | null> {
      const doc = await Replies.findByIdAndUpdate(id, { $set: patch }, { returnDocument: 'after' }).lean<QuickReplyDoc>();
      return doc ? (await withCount([doc]))[0]! : null;
    },
    delete: async (id: number) => (await Replies.deleteOne({ _id: id })).deletedCount === 1,
    /** Counts one use, keyed by the message it produced (a repeat counts nothing). */
    async countUse(id: number, messageId: number): Promise<void> {
      await uses().insertOne({ _id: messageId, replyId: id, at: new Date() }).catch((err: { code?: number }) => {
        if (err.code !== 11000) throw err;
      });
    },
  };
}

export type TagRepo = ReturnType<typeof createTagRepo>;
export type AttachmentRepo = ReturnType<typeof createAttachmentRepo>;
export type QuickReplyRepo = ReturnType<typeof createQuickReplyRepo>;
