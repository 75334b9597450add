/**
 * Ticket attachments, the use cases (spec §4.3): a file on a ticket the caller may see (not a
 * deleted one), optionally tied to one of its messages; reading it (whoever may see its ticket);
 * deleting it (object, then record). The bytes travel between the route (multipart, checked by
 * content) and MinIO; these decide who may and what is recorded, and remove a stored object that
 * is not recorded.
 */
import { AppError, notFound } from '../../models/errors';
import type { Principal } from '../../models/auth/token.rules';
import { storageCall, type Storage } from '../../models/infra/storage';
import type { AttachmentRepo } from '../../models/support/catalog.repo';
import type { AttachmentDoc, TicketDoc } from '../../models/support/support.model';
import type { TicketRepo } from '../../models/support/ticket.repo';
import { assertNotDeleted } from '../../models/support/ticket.rules';
import { visibleTicket } from './tickets';
import { fileLinkValid } from '../../models/support/file-links';

export interface AttachmentDeps {
  tickets: TicketRepo;
  attachments: AttachmentRepo;
  storage: Storage;
  now: () => Date;
}

/** The ticket a caller may attach a file to: one they see, not deleted. */
export async function ticketForUpload(deps: Pick<AttachmentDeps, 'tickets'>, principal: Principal, id: number): Promise<TicketDoc> {
  const ticket = await visibleTicket(deps, principal, id);
  assertNotDeleted(ticket, 'A deleted ticket takes no attachments');
  return ticket;
}

export interface StoredUpload {
  key: string;
  filename: string;
  type: string;
  size: number;
}

/**
 * Records a file stored under `upload.key` on the ticket, tied to `mensagemId` when given (a
 * message of this ticket, else 400). When it cannot be recorded, the stored object is removed.
 */
export async function recordAttachment(deps: AttachmentDeps, input: { ticket: TicketDoc; upload: StoredUpload; mensagemId: string | undefined; by: string }): Promise<AttachmentDoc> {
  const { ticket, upload } = input;
  try {
    let mensagemId: number | null = null;
    if (input.mensagemId !== undefined && input.mensagemId !== '') {
      mensagemId = Number(input.mensagemId);
      if (!Number.isInteger(mensagemId) || mensagemId <= 0) throw new AppError('VALIDATION_FAILED', 'Invalid request: mensagemId must be a message id');
      if (!(await deps.tickets.messageBelongs(ticket._id, mensagemId))) throw new AppError('VALIDATION_FAILED', `Message ${mensagemId} does not belong to ticket ${ticket._id}`);
    }
    return await deps.attachments.create({
      supportId: ticket._id,
      mensagemId,
      nomeArquivo: upload.filename,
      caminhoArquivo: upload.key,
      tipoArquivo: upload.type,
      tamanhoArquivo: upload.size,
      uploadedBy: input.by,
      createdAt: deps.now(),
    });
  } catch (err) {
    await deps.storage.client.removeObject(deps.storage.bucket, upload.key).catch(() => undefined);
    throw err;
  }
}

/** An attachment whose ticket the caller may see (else 404). */
export async function visibleAttachment(deps: Pick<AttachmentDeps, 'tickets' | 'attachments'>, principal: Principal, attachmentId: number): Promise<AttachmentDoc> {
  const attachment = (await deps.attachments.findById(attachmentId)) ?? notFound('attachment');
  await visibleTicket(deps, principal, attachment.supportId);
  return attachment;
}

/**
 * An attachment the caller may see, with its file's stream. A record whose file is gone is 404:
 * a deletion removes the file first and the record after, so a download between the two (or after
 * a deletion that failed in between, which a retry finishes) finds the record alone.
 */
export async function openAttachment(deps: Pick<AttachmentDeps, 'tickets' | 'attachments' | 'storage'>, principal: Principal, attachmentId: number) {
  const attachment = await visibleAttachment(deps, principal, attachmentId);
  try {
    const stream = await storageCall(() => deps.storage.client.getObject(deps.storage.bucket, attachment.caminhoArquivo));
    return { attachment, stream };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'NoSuchKey') notFound('attachment');
    throw err;
  }
}

/**
 * A file opened by a signed link from a staff reply's mail (issue 39; models/support/file-links.ts):
 * whoever holds the link, while it is unexpired, for a ticket not deleted. Any other case is 404,
 * saying nothing of whether the file exists.
 */
export async function openLinkedAttachment(deps: Pick<AttachmentDeps, 'tickets' | 'attachments' | 'storage' | 'now'>, secret: string, attachmentId: number, link: { expira: number; assinatura: string }) {
  if (!fileLinkValid(secret, attachmentId, link.expira, link.assinatura, deps.now())) notFound('file (the link has expired or is not valid)');
  const attachment = (await deps.attachments.findById(attachmentId)) ?? notFound('file (the link has expired or is not valid)');
  const ticket = await deps.tickets.findById(attachment.supportId);
  if (!ticket || ticket.deletedAt) notFound('file (the link has expired or is not valid)');
  try {
    const stream = await storageCall(() => deps.storage.client.getObject(deps.storage.bucket, attachment.caminhoArquivo));
    return { attachment, stream };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'NoSuchKey') notFound('file (the link has expired or is not valid)');
    throw err;
  }
}

/**
 * The whole mail a requester's message came in (issue 39: the thread shows the reply with its
 * quote stripped; this is what was received, byte for byte, as the receiver stored it), for the
 * staff (the route's permission) on a ticket they may see. A message that came by no mail, or
 * whose stored mail is gone, is 404.
 */
export async function openOriginalMail(deps: Pick<AttachmentDeps, 'tickets' | 'storage'>, principal: Principal, ticketId: number, messageId: number) {
  await visibleTicket(deps, principal, ticketId);
  const message = await deps.tickets.message(ticketId, messageId);
  if (!message?.emailRaw) notFound('mail (the message did not come by e-mail)');
  try {
    const [stat, stream] = await Promise.all([
      storageCall(() => deps.storage.client.statObject(deps.storage.bucket, message.emailRaw!)),
      storageCall(() => deps.storage.client.getObject(deps.storage.bucket, message.emailRaw!)),
    ]);
    return { size: stat.size, stream };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'NoSuchKey' || (err as { code?: unknown }).code === 'NotFound') notFound('mail');
    throw err;
  }
}

/** Deletes the stored object, then the record (a retry after a failure in between finds the record and finishes). */
export async function deleteAttachment(deps: Pick<AttachmentDeps, 'attachments' | 'storage'>, attachmentId: number): Promise<void> {
  const attachment = (await deps.attachments.findById(attachmentId)) ?? notFound('attachment');
  await storageCall(() => deps.storage.client.removeObject(deps.storage.bucket, attachment.caminhoArquivo));
  await deps.attachments.delete(attachment._id);
}
