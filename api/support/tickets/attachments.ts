/**
 * Attachments (support-ticket-api.md §4.5–4.8) in MinIO. Uploads stream from the request to
 * MinIO (never whole in memory or on disk); the type is taken from the file's content, not the
 * declared header; the database record is written only after the object is stored, and the object
 * is removed again if anything after it fails, so no half-stored attachment remains.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import Busboy from 'busboy';
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../../../models/errors';
import { storageCall } from '../../../models/infra/storage';
import type { AttachmentDoc } from '../../../models/support/support.model';
import { bearer, publicRoute } from '../../shared/auth';
import { RAW, reply, routeFactory } from '../../shared/route';
import type { SupportDeps } from '../deps';
import { AttachmentDeleted, AttachmentDownloadQuery, FileLinkQuery,
  AttachmentIdParams, AttachmentSchema, MAX_ATTACHMENT_BYTES, MessageIdParams, TicketIdParams, UploadAttachmentBody } from '../contracts';
import { attachmentExample, attachmentId, readerMailMessageExample, ticketId } from '../examples';
import * as attachments from '../../../operations/support/attachments';
import { visibleTicket } from '../../../operations/support/tickets';
import { SUPPORT_AGENT } from '../../../models/support/ticket.rules';
import { ALLOWED_TYPES, asciiName, detectType, keySafeName, SNIFF_BYTES } from '../../../models/support/attachment.rules';

// Their home is models/support/attachment.rules.ts (the mail receiver uses them too); kept here for those importing them from this file.
export { ALLOWED_TYPES, asciiName, detectType, keySafeName };

const route = routeFactory<SupportDeps>();

/** What `inline=true` shows in the page: raster images and PDFs (never text, which a browser might read as markup). */
const PREVIEWABLE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf'];

interface Upload {
  key: string;
  filename: string;
  type: string;
  size: number;
  fields: Record<string, string>;
}

async function readHead(stream: Readable): Promise<{ head: Buffer; ended: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = stream.read() as Buffer | null;
    if (chunk) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= SNIFF_BYTES) return { head: Buffer.concat(chunks), ended: false };
      continue;
    }
    if (stream.readableEnded) return { head: Buffer.concat(chunks), ended: true };
    if (stream.destroyed) return { head: Buffer.concat(chunks), ended: true };
    const ended = await new Promise<boolean>((resolve) => {
      const onReadable = () => done(false);
      const onEnd = () => done(true);
      const done = (v: boolean) => {
        stream.off('readable', onReadable);
        stream.off('end', onEnd);
        stream.off('close', onEnd);
        resolve(v);
      };
      stream.once('readable', onReadable);
      stream.once('end', onEnd);
      // A part cut short (malformed body) errors and closes without 'end'.
      stream.once('close', onEnd);
    });
    if (ended && !stream.readableLength) return { head: Buffer.concat(chunks), ended: true };
  }
}

/**
 * Streams the `arquivo` part of a multipart request into MinIO under `keyPrefix`. Text parts other
 * than `fieldNames`, and file parts other than `arquivo`, are refused like unknown JSON fields.
 */
async function receive(ctx: Context, deps: SupportDeps, keyPrefix: string, fieldNames: readonly string[]): Promise<Upload> {
  if (!ctx.is('multipart/form-data')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data in the field "arquivo"');
  const { client, bucket } = deps.storage;
  let busboy: Busboy.Busboy;
  try {
    busboy = Busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { files: 1, fileSize: MAX_ATTACHMENT_BYTES, fields: 10, fieldSize: 1_000, parts: 20 } });
  } catch {
    throw new AppError('VALIDATION_FAILED', 'Malformed multipart body');
  }
  const fields: Record<string, string> = {};
  let failure: AppError | undefined;
  let upload: Promise<Upload | undefined> = Promise.resolve(undefined);

  const unknownField = (name: string) => new AppError('VALIDATION_FAILED', `Invalid request: unknown field ${JSON.stringify(name.slice(0, 100))}`);
  busboy.on('field', (name, value) => {
    // One value per field: a repeated field (a list) is not a message id, and must not pick the last.
    if (!fieldNames.includes(name)) {
      failure ??= unknownField(name);
      return;
    }
    if (Object.hasOwn(fields, name)) failure ??= new AppError('VALIDATION_FAILED', `Invalid request: ${name} was sent more than once`);
    fields[name] = value;
  });
  const malformed = () => new AppError('VALIDATION_FAILED', 'Malformed multipart body');
  let fileStream: Readable | undefined;
  busboy.on('file', (name, stream, info) => {
    fileStream = stream;
    // A part cut short by a malformed body: the request fails with 400, never the process.
    stream.on('error', () => {
      failure ??= malformed();
    });
    if (name !== 'arquivo') failure ??= unknownField(name);
    if (failure) {
      stream.resume();
      return;
    }
    upload = (async () => {
      const { head } = await readHead(stream);
      if (failure) return undefined;
      if (head.length === 0) {
        stream.resume();
        failure = new AppError('VALIDATION_FAILED', 'The file is empty');
        return undefined;
      }
      const type = await detectType(head, info.mimeType, info.filename ?? '');
      if (!type) {
        stream.resume();
        failure = new AppError('VALIDATION_FAILED', `File type not allowed: accepted are ${ALLOWED_TYPES.join(', ')} (checked from the file's content)`);
        return undefined;
      }
      // Browsers (WHATWG multipart) send ", CR and LF in file names as %22, %0D, %0A.
      const filename = (info.filename ?? 'arquivo').replace(/%22/g, '"').replace(/%0D|%0A/gi, ' ').slice(0, 255);
      const key = `${keyPrefix}/${new Date().toISOString().slice(0, 10)}/${randomUUID()}-${keySafeName(filename)}`;
      const body = new PassThrough();
      let size = head.length;
      body.write(head);
      stream.on('data', (c: Buffer) => {
        size += c.length;
      });
      stream.on('limit', () => {
        failure = new AppError('VALIDATION_FAILED', `The file is larger than ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB`);
        body.destroy(failure);
      });
      stream.once('error', () => body.destroy(failure));
      stream.pipe(body);
      const cleanUp = async () => {
        await client.removeIncompleteUpload(bucket, key).catch(() => undefined);
        await client.removeObject(bucket, key).catch(() => undefined);
      };
      // minio-js may not settle when its input stream fails: the abort settles it for us.
      const aborted = new Promise<never>((_, reject) => body.once('error', reject));
      aborted.catch(() => undefined);
      try {
        await Promise.race([storageCall(() => client.putObject(bucket, key, body, undefined, { 'Content-Type': type })), aborted]);
      } catch (err) {
        stream.resume();
        await cleanUp();
        if (failure) return undefined;
        throw err;
      }
      if (failure) {
        await cleanUp();
        return undefined;
      }
      return { key, filename, type, size, fields };
    })();
    upload.catch(() => undefined);
  });

  const finished = new Promise<void>((resolve, reject) => {
    busboy.once('close', resolve);
    // `on`, not `once`: the parser may report more than one error for a body.
    busboy.on('error', () => {
      failure ??= malformed();
      // The body ended inside a file: its stream would wait for the rest for ever.
      if (fileStream && !fileStream.destroyed) fileStream.destroy(failure);
      ctx.req.unpipe(busboy);
      ctx.req.resume();
      reject(failure);
    });
  });
  ctx.req.pipe(busboy);
  await finished.catch(async (err: unknown) => {
    // The file may have been stored before the parser gave up on the rest of the body.
    const stored = await upload.catch(() => undefined);
    if (stored) await client.removeObject(bucket, stored.key).catch(() => undefined);
    throw err;
  });
  const stored = await upload;
  if (failure) {
    // A field that came after the file can still make the request invalid: nothing stays stored.
    if (stored) await client.removeObject(bucket, stored.key).catch(() => undefined);
    throw failure;
  }
  if (!stored) throw new AppError('VALIDATION_FAILED', 'The file is missing: send it in the multipart field "arquivo"');
  return stored;
}

const attachmentView = (a: AttachmentDoc) => ({
  id: a._id,
  supportId: a.supportId,
  mensagemId: a.mensagemId,
  nomeArquivo: a.nomeArquivo,
  caminhoArquivo: a.caminhoArquivo,
  tipoArquivo: a.tipoArquivo,
  tamanhoArquivo: a.tamanhoArquivo,
  createdAt: a.createdAt.toISOString(),
});

export const attachmentRoutes = [
  route({
    method: 'post',
    path: '/support/:id/anexos',
    summary: 'Upload an attachment',
    description:
      `multipart/form-data: \`arquivo\` (the file, at most 10 MB; ${ALLOWED_TYPES.join(', ')}, checked from its content) and ` +
      'optionally `mensagemId` (a message of this ticket). Stored in MinIO under tickets/<id>/<date>/<unique>-<name>.',
    tags: ['attachments'],
    auth: bearer(),
    params: TicketIdParams,
    bodyType: 'multipart/form-data',
    // Required: a request without the file is a 400. `mensagemId` is a message of this ticket.
    body: UploadAttachmentBody,
    response: AttachmentSchema,
    status: 201,
    links: [
      { name: 'download', method: 'get', path: '/support/anexos/:attachmentId/download', parameters: { attachmentId: '$response.body#/data/id' } },
      { name: 'delete', method: 'delete', path: '/support/anexos/:attachmentId', parameters: { attachmentId: '$response.body#/data/id' } },
    ],
    errors: [404, 409, 413, 415, 503],
    example: {
      // multipart/form-data: `arquivo` names the file sent (the code samples read it from disk).
      params: { id: ticketId },
      body: { arquivo: attachmentExample.nomeArquivo },
      response: attachmentExample,
      message: 'Anexo enviado',
    },
    handler: async ({ params, auth, ctx, deps }) => {
      const ticket = await attachments.ticketForUpload(deps, auth, params.id);
      const { fields, ...upload } = await receive(ctx, deps, `tickets/${ticket._id}`, ['mensagemId']);
      const doc = await attachments.recordAttachment(deps, { ticket, upload, mensagemId: fields.mensagemId, by: auth.sub });
      return reply({ status: 201, message: 'Anexo enviado', data: attachmentView(doc) });
    },
  }),

  route({
    method: 'get',
    path: '/support/:id/anexos',
    summary: "A ticket's attachments",
    tags: ['attachments'],
    auth: bearer(),
    params: TicketIdParams,
    response: z.array(AttachmentSchema),
    errors: [404],
    example: { params: { id: ticketId }, response: [attachmentExample] },
    handler: async ({ params, auth, deps }) => {
      const ticket = await visibleTicket(deps, auth, params.id);
      return (await deps.attachments.forTicket(ticket._id)).map(attachmentView);
    },
  }),

  route({
    method: 'get',
    path: '/support/anexos/:attachmentId/download',
    summary: 'Download an attachment',
    description:
      'Streams the file with its stored type and a Content-Disposition safe for any file name. With `inline=true` an image or a PDF is answered to be shown ' +
      '(inline, and framable by the same site only: the staff console previews it); any other type is still an attachment.',
    tags: ['attachments'],
    auth: bearer(),
    params: AttachmentIdParams,
    query: AttachmentDownloadQuery,
    // Served with the type found from the file's content when it was stored.
    produces: ALLOWED_TYPES,
    errors: [404, 503],
    example: { params: { attachmentId } },
    handler: async ({ params, query, auth, ctx, deps }) => {
      const { attachment, stream } = await attachments.openAttachment(deps, auth, params.attachmentId);
      const inline = query.inline === 'true' && PREVIEWABLE_TYPES.includes(attachment.tipoArquivo);
      // An ASCII fallback for old clients, and the exact name as filename* (RFC 6266/8187).
      ctx.attachment(attachment.nomeArquivo, { fallback: asciiName(attachment.nomeArquivo), type: inline ? 'inline' : 'attachment' });
      ctx.type = attachment.tipoArquivo;
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (inline) {
        // Shown in a frame of the same site only; nothing in it may run or load (a PDF's viewer is the browser's own).
        ctx.set('Content-Security-Policy', `default-src 'none'; img-src 'self'; frame-ancestors 'self'${attachment.tipoArquivo === 'application/pdf' ? '' : '; sandbox'}`);
        ctx.set('X-Frame-Options', 'SAMEORIGIN');
      }
      ctx.length = attachment.tamanhoArquivo;
      ctx.body = stream;
      return RAW;
    },
  }),

  route({
    method: 'get',
    path: '/support/:id/mensagens/:messageId/original',
    summary: 'The whole mail a message came in',
    description:
      "A requester's message that came by e-mail (`canal: email`) shows the reply with its quoted history stripped; this is the mail as it was received, " +
      'byte for byte (`message/rfc822`, a download): its headers, every part, the quote. Support staff only. A message that came by no mail is 404.',
    tags: ['tickets'],
    auth: bearer(SUPPORT_AGENT),
    params: MessageIdParams,
    produces: ['message/rfc822'],
    errors: [404, 503],
    example: { params: { id: ticketId, messageId: readerMailMessageExample.id } },
    handler: async ({ params, auth, ctx, deps }) => {
      const { size, stream } = await attachments.openOriginalMail(deps, auth, params.id, params.messageId);
      ctx.attachment(`chamado-${params.id}-mensagem-${params.messageId}.eml`, { type: 'attachment' });
      ctx.type = 'message/rfc822';
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.length = size;
      ctx.body = stream;
      return RAW;
    },
  }),

  route({
    method: 'get',
    path: '/support/arquivos/:attachmentId',
    summary: 'Download a file linked from a mail (signed link)',
    description:
      "A staff reply's files larger than the mail may carry are linked from it (issue 39). The link is the requester's key: it opens the file while it is unexpired " +
      '(30 days) and its signature holds, for a ticket not deleted; otherwise 404, saying nothing of whether the file exists. Always a download (never shown inline).',
    tags: ['attachments'],
    auth: publicRoute,
    params: AttachmentIdParams,
    query: FileLinkQuery,
    produces: ALLOWED_TYPES,
    errors: [404, 503],
    example: { params: { attachmentId }, query: { expira: 1_798_761_600, assinatura: 'q3T2Z1m2Yk0QwJ8tN5cXH6l1a9cV7bS4eR0uP2oI8yA' } },
    handler: async ({ params, query, ctx, deps }) => {
      const { attachment, stream } = await attachments.openLinkedAttachment(deps, deps.config.support.mail.secret, params.attachmentId, query);
      ctx.attachment(attachment.nomeArquivo, { fallback: asciiName(attachment.nomeArquivo), type: 'attachment' });
      ctx.type = attachment.tipoArquivo;
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.length = attachment.tamanhoArquivo;
      ctx.body = stream;
      return RAW;
    },
  }),

  route({
    method: 'delete',
    path: '/support/anexos/:attachmentId',
    summary: 'Delete an attachment (object and record)',
    tags: ['attachments'],
    auth: bearer(SUPPORT_AGENT),
    params: AttachmentIdParams,
    response: AttachmentDeleted,
    errors: [404, 503],
    example: {
      params: { attachmentId },
      response: { id: attachmentId },
      message: 'Anexo removido',
    },
    handler: async ({ params, deps }) => {
      await attachments.deleteAttachment(deps, params.attachmentId);
      return reply({ message: 'Anexo removido', data: { id: params.attachmentId } });
    },
  }),
];
