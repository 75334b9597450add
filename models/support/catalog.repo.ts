/** Tags, attachments and quick replies. */
import type { Connection } from 'mongoose';
import { nextId } from '../infra/counters';
import { isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import { attachmentModel, quickReplyModel, tagModel, type AttachmentDoc, type QuickReplyDoc, type TagDoc } from './support.model';

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
        const tag = { _id: await nextId(conn, 'tags'), name: input.name.trim(), nameKey: tagKey(input.name), color: input.color.toLowerCase(), isDefault: input.isDefault ?? false };
        const doc = await writeRacingOnUniqueKey(() => Tags.create(tag));
        return doc.toObject();
      } catch (err) {
        if (isDuplicateKey(err)) return undefined;
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
        if (isDuplicateKey(err)) return undefined;
        throw err;
      }
    },
    delete: async (id: number) => (await Tags.deleteOne({ _id: id })).deletedCount === 1,
  };
}

export function createAttachmentRepo(conn: Connection) {
  const Attachments = attachmentModel(conn);
  return {
    create: async (doc: Omit<AttachmentDoc, '_id'>) => (await Attachments.create({ ...doc, _id: await nextId(conn, 'ticket_attachments') })).toObject(),
    forTicket: (supportId: number) => Attachments.find({ supportId }).sort({ createdAt: 1 }).lean<AttachmentDoc[]>().exec(),
    /** The files tied to one message of a ticket (a staff reply's, mailed with it). */
    forMessage: (supportId: number, mensagemId: number) => Attachments.find({ supportId, mensagemId }).sort({ createdAt: 1 }).lean<AttachmentDoc[]>().exec(),
    findById: (id: number) => Attachments.findById(id).lean<AttachmentDoc>().exec(),
    delete: async (id: number) => (await Attachments.deleteOne({ _id: id })).deletedCount === 1,
  };
}

/** Quick replies, with how often each was used (`$inc` on every use). */
export function createQuickReplyRepo(conn: Connection) {
  const Replies = quickReplyModel(conn);
  return {
    /** Most used first. */
    list: (category?: string) => Replies.find(category ? { category } : {}).sort({ usageCount: -1, _id: 1 }).lean<QuickReplyDoc[]>().exec(),
    findById: (id: number) => Replies.findById(id).lean<QuickReplyDoc>().exec(),
    async create(input: { title: string; content: string; category?: string | undefined }, by: string): Promise<QuickReplyDoc> {
      const doc = await Replies.create({ _id: await nextId(conn, 'quick_replies'), title: input.title, content: input.content, category: input.category ?? null, createdBy: by });
      return doc.toObject();
    },
    update: (id: number, patch: Partial<Pick<QuickReplyDoc, 'title' | 'content' | 'category'>>) =>
      Replies.findByIdAndUpdate(id, { $set: patch }, { returnDocument: 'after' }).lean<QuickReplyDoc>().exec(),
    delete: async (id: number) => (await Replies.deleteOne({ _id: id })).deletedCount === 1,
    /** Counts one use (each use writes a new message, so a use is never repeated). */
    async countUse(id: number): Promise<void> {
      await Replies.updateOne({ _id: id }, { $inc: { usageCount: 1 } });
    },
  };
}

export type TagRepo = ReturnType<typeof createTagRepo>;
export type AttachmentRepo = ReturnType<typeof createAttachmentRepo>;
export type QuickReplyRepo = ReturnType<typeof createQuickReplyRepo>;
