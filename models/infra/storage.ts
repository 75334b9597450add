/**
 * MinIO (S3) object storage. Files travel as streams; workflows only ever see object keys.
 */
import { Client } from 'minio';
import type { Config } from '../config';
import { dependencyUnavailable } from '../errors';

export interface Storage {
  client: Client;
  bucket: string;
}

export function createStorage(config: Config): Storage {
  const { endPoint, port, useSSL, accessKey, secretKey, bucket, region } = config.minio;
  // 5 MiB parts: a stream of unknown length is sent part by part, never held whole in memory.
  const client = new Client({ endPoint, port, useSSL, accessKey, secretKey, region, partSize: 5 * 1024 * 1024 });
  return { client, bucket };
}

/** Creates the bucket when missing; safe to call from several processes at once. */
export async function ensureBucket(storage: Storage, region: string): Promise<void> {
  if (await storage.client.bucketExists(storage.bucket)) return;
  try {
    await storage.client.makeBucket(storage.bucket, region);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
  }
}

export async function pingStorage(storage: Storage): Promise<void> {
  await storage.client.bucketExists(storage.bucket);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET']);
const S3_UNAVAILABLE = new Set(['SlowDown', 'ServiceUnavailable', 'XMinioServerNotInitialized', 'InternalError', 'RequestTimeout']);

/** True when a MinIO call failed because the server could not be reached or is overloaded. */
export function isStorageUnavailable(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code !== undefined && (NETWORK_CODES.has(code) || S3_UNAVAILABLE.has(code));
}

/** Runs a MinIO call; an unreachable server becomes DEPENDENCY_UNAVAILABLE naming minio (503). */
export async function storageCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isStorageUnavailable(err)) throw dependencyUnavailable('minio', err);
    throw err;
  }
}
