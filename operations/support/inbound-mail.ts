/**
 * Support by e-mail (issue 39), accepting a requester's message: its raw bytes are streamed to
 * MinIO (`inbound-mail/yyyy/mm/dd/<id>.eml`, byte for byte), then recorded in MongoDB
 * (`support_inbound_mail`, state `stored`), and only then does the caller acknowledge it (SMTP's
 * 250). The processing workflow is started through a port (`handOver`) afterwards; when that
 * fails the record stays `stored` and a relay hands it over later (`pendingHandOver`).
 *
 * The message is never held whole: it goes up in parts of 5 MiB (MinIO's multipart upload), one
 * part in memory at a time, reading paused while a part is sent. A message of up to one part is
 * sent with a single PUT when it ends, so a refused one leaves nothing behind; a multipart upload
 * that cannot finish is aborted. Failures:
 * - past `maxBytes`: PAYLOAD_TOO_LARGE (the receiver's 552), nothing stored;
 * - MinIO or MongoDB failing or not answering in time: DEPENDENCY_UNAVAILABLE (the receiver's 451,
 *   the sender retries). Nothing is left half-recorded: a record that could not be written is
 *   removed again (if it was written after all) and its object deleted.
 * Either way the rest of the message is read and discarded, so the caller can still answer.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, dependencyUnavailable } from '../../models/errors';
import type { Logger } from '../../models/infra/logger';
import type { Storage } from '../../models/infra/storage';
import type { InboundMailEnvelope, InboundMailRemote, InboundMailRepo, InboundMailVia } from '../../models/support/inbound-mail.repo';

/** Parts of a multipart upload (S3's smallest but the last), and what one message holds in memory at most. */
export const INBOUND_MAIL_PART_BYTES = 5 * 1024 * 1024;
const CONTENT_TYPE = 'message/rfc822';

export interface InboundMailDeps {
  inbound: Pick<InboundMailRepo, 'record' | 'remove'>;
  storage: Storage;
  /**
   * Starts the message's processing workflow (and marks the record handed over). Its failure is
   * logged and swallowed: the record stays `stored` and a relay hands it over later.
   */
  handOver: (id: string) => Promise<void>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  now?: () => Date;
  newId?: () => string;
  /** Longest wait for one MinIO or MongoDB call before the message is refused for now (451). Default 60 s. */
  dependencyTimeoutMs?: number;
  /** Longest wait for the hand-over before the caller answers anyway (it goes on meanwhile). Default 5 s. */
  handOverTimeoutMs?: number;
}

export interface InboundMailInput {
  /** The message as received (after SMTP's dot-unstuffing): read to its end whatever happens. */
  stream: Readable;
  envelope: InboundMailEnvelope;
  remote: InboundMailRemote;
  via: InboundMailVia;
  maxBytes: number;
}

/** Where a message's raw bytes are kept: by the UTC day it was received. */
export function inboundMailObjectKey(id: string, receivedAt: Date): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll('-', '/');
  return `inbound-mail/${day}/${id}.eml`;
}

export function messageTooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The message exceeds the limit of ${maxBytes} bytes`, { details: { maxBytes } });
}

/** Rejects with DEPENDENCY_UNAVAILABLE naming `dependency` when `work` has not settled in `ms`. */
async function within<T>(work: Promise<T>, ms: number, dependency: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(dependencyUnavailable(dependency, new Error(`no answer in ${ms} ms`))), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A MinIO call; any failure of it is MinIO's (the message is not ours yet: the sender retries). */
async function minio<T>(call: () => Promise<T>, ms: number): Promise<T> {
  try {
    return await within(call(), ms, 'minio');
  } catch (err) {
    throw err instanceof AppError ? err : dependencyUnavailable('minio', err);
  }
}

/**
 * Streams `source` to the object `key`, counting bytes; resolves with the size. Past `maxBytes`,
 * on a MinIO failure or when the source fails, stops storing, aborts what was started and rejects;
 * the source is then drained (never destroyed), so its producer sees it end.
 */
function storeRaw(storage: Storage, key: string, source: Readable, maxBytes: number, timeoutMs: number): Promise<number> {
  const { client, bucket } = storage;
  return new Promise<number>((resolve, reject) => {
    let size = 0;
    let held: Buffer[] = [];
    let heldBytes = 0;
    let upload: { id: string; parts: { part: number; etag: string }[] } | undefined;
    let chain: Promise<void> = Promise.resolve();
    let settled = false;

    const take = (): Buffer => {
      const part = Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
      return part;
    };
    const sendPart = async (body: Buffer) => {
      upload ??= { id: await minio(() => client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': CONTENT_TYPE }), timeoutMs), parts: [] };
      const { id, parts } = upload;
      if (settled) return; // failed meanwhile: the upload is aborted, not continued
      const part = parts.length + 1;
      const sent = await minio(() => client.uploadPart({ bucketName: bucket, objectName: key, uploadID: id, partNumber: part, headers: {} }, body), timeoutMs);
      parts.push({ part, etag: sent.etag });
    };
    const finish = async () => {
      if (!upload) {
        const whole = take();
        await minio(() => client.putObject(bucket, key, whole, whole.length, { 'Content-Type': CONTENT_TYPE }), timeoutMs);
        return;
      }
      if (heldBytes > 0) await sendPart(take());
      const { id, parts } = upload;
      await minio(() => client.completeMultipartUpload(bucket, key, id, parts), timeoutMs);
    };
    const detach = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onClose);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      detach();
      held = [];
      // Read the rest and drop it: the producer (the SMTP connection) answers once it has ended.
      source.resume();
      // A part under way ends first (each call is bounded), then the upload it belongs to is aborted.
      void chain
        .catch(() => undefined)
        .then(async () => {
          const started = upload;
          if (started) await within(client.abortMultipartUpload(bucket, key, started.id), timeoutMs, 'minio').catch(() => undefined);
        })
        .finally(() => reject(err));
    };
    const onData = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) return fail(messageTooLarge(maxBytes));
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes < INBOUND_MAIL_PART_BYTES) return;
      const part = take();
      source.pause();
      chain = chain
        .then(async () => {
          await sendPart(part);
          if (!settled) source.resume();
        })
        .catch(fail);
    };
    const onEnd = () => {
      detach();
      chain = chain
        .then(async () => {
          if (settled) return;
          await finish();
          settled = true;
          resolve(size);
        })
        .catch(fail);
    };
    const onClose = () => fail(new Error('the message stream closed before its end'));
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('close', onClose);
    // Kept for good: a source destroyed with an error after we failed must not crash the process.
    source.on('error', fail);
  });
}

/**
 * Accepts one message: stored in MinIO, recorded, then handed over. Resolves with its id once it
 * is stored and recorded (the caller may then acknowledge it); see the file's comment for failures.
 */
export async function acceptInboundMail(deps: InboundMailDeps, input: InboundMailInput): Promise<string> {
  const now = deps.now ?? (() => new Date());
  const timeoutMs = deps.dependencyTimeoutMs ?? 60_000;
  const id = (deps.newId ?? randomUUID)();
  const receivedAt = now();
  const objectKey = inboundMailObjectKey(id, receivedAt);
  const size = await storeRaw(deps.storage, objectKey, input.stream, input.maxBytes, timeoutMs);

  try {
    await within(deps.inbound.record({ _id: id, objectKey, size, envelope: input.envelope, remote: input.remote, via: input.via, receivedAt }), timeoutMs, 'mongodb');
  } catch (err) {
    // Not recorded, so not accepted: undo both halves (the insert may have gone through unanswered).
    await within(deps.inbound.remove(id), timeoutMs, 'mongodb').catch(() => undefined);
    await within(deps.storage.client.removeObject(deps.storage.bucket, objectKey), timeoutMs, 'minio').catch((cleanup: unknown) =>
      deps.logger.error({ id, objectKey, err: cleanup }, 'inbound mail: could not delete the object of a message that was not recorded'),
    );
    throw err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE' ? err : dependencyUnavailable('mongodb', err);
  }
  deps.logger.info({ id, size, via: input.via, recipients: input.envelope.rcptTo.length, remote: input.remote.address }, 'inbound mail stored');

  const handedOver = deps.handOver(id);
  // Whatever happens to it later (it may outlive the wait below), it must not go unobserved.
  handedOver.catch(() => undefined);
  try {
    await within(handedOver, deps.handOverTimeoutMs ?? 5_000, 'temporal');
  } catch (err) {
    deps.logger.warn({ id, err }, 'inbound mail: hand-over failed; the record stays stored for the relay');
  }
  return id;
}
