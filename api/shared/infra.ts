/**
 * What every service process holds: config, logger and the three infrastructure handles.
 * Built once per process by createInfra() and closed on shutdown.
 */
import type { Config } from '../../models/config';
import { createLogger, type Logger } from '../../models/infra/logger';
import { connectMongo, pingMongo, type MongoHandle } from '../../models/infra/mongo';
import { createStorage, ensureBucket, pingStorage, type Storage } from '../../models/infra/storage';
import { createTemporalClient, pingTemporal, type TemporalHandle } from '../../models/infra/temporal';

export interface Infra {
  config: Config;
  logger: Logger;
  mongo: MongoHandle;
  temporal: TemporalHandle;
  storage: Storage;
  /** Work a request started and did not wait for (the webhook's hand-over); waited for at close. */
  background: BackgroundWork;
  /** What a service's dependencies opened besides these (the web service's SMTP pool), closed last. */
  closers: (() => void | Promise<void>)[];
}

/** Promises a request left running; closing the process's connections waits for them (bounded). */
export class BackgroundWork {
  private readonly tasks = new Set<Promise<unknown>>();

  run(task: Promise<unknown>): void {
    const tracked = task.catch(() => undefined).finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  async settle(timeoutMs: number): Promise<void> {
    if (this.tasks.size === 0) return;
    await Promise.race([Promise.allSettled([...this.tasks]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }
}

export type DependencyName = 'mongodb' | 'temporal' | 'minio';

export interface HealthCheck {
  name: DependencyName;
  check: () => Promise<void>;
}

export function createInfra(config: Config, name: string, logger = createLogger({ name, level: config.logLevel })): Infra {
  const mongo = connectMongo(config, (err) => logger.warn({ err: (err as Error).message }, 'MongoDB not reachable yet; retrying'));
  const storage = createStorage(config);
  const temporal = createTemporalClient(config);
  return { config, logger, mongo, temporal, storage, background: new BackgroundWork(), closers: [] };
}

export function healthChecks(infra: Infra): HealthCheck[] {
  let bucketReady = false;
  return [
    { name: 'mongodb', check: () => pingMongo(infra.mongo.conn) },
    { name: 'temporal', check: () => pingTemporal(infra.temporal, 2_000) },
    {
      name: 'minio',
      check: async () => {
        // The bucket is created lazily so that a service started before MinIO still gets one.
        if (!bucketReady) {
          await ensureBucket(infra.storage, infra.config.minio.region);
          bucketReady = true;
        } else {
          await pingStorage(infra.storage);
        }
      },
    },
  ];
}

export async function closeInfra(infra: Infra): Promise<void> {
  // Background work uses the connections: let it end first (it is bounded by its own deadlines).
  await infra.background.settle(infra.config.http.shutdownGraceMs);
  await Promise.allSettled([infra.mongo.close(), infra.temporal.close(), ...infra.closers.map(async (close) => await close())]);
}
