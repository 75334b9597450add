/**
 * The event stream's dependencies (issue 40): the event log, the one hub of this process and the
 * leases that cap a key's streams across processes, built with the news service's dependencies.
 * The hub reads only while a stream is open, and stops with the process (infra.closers).
 */
import { createEventLogRepo, type EventLogRepo } from '../../models/events/event-log.repo';
import { createLeases, type Leases } from '../../models/infra/leases';
import { NEWS_STREAM_DEFAULTS, NewsEventHub } from '../../operations/events/stream';
import type { Infra } from '../shared/infra';

export interface NewsStreamDeps {
  log: EventLogRepo;
  hub: NewsEventHub;
  leases: Leases;
  /** How long a stream lasts before the server ends it (the client reconnects and resumes). */
  streamMaxMs: number;
  keepAliveMs: number;
}

export function makeNewsStreamDeps(infra: Pick<Infra, 'config' | 'logger' | 'mongo' | 'closers'>): NewsStreamDeps {
  const { stream } = infra.config.news;
  const log = createEventLogRepo(infra.mongo.conn);
  let loggedAt = 0;
  const hub = new NewsEventHub(
    {
      readAfter: log.readAfter,
      newest: log.newest,
      atOrBefore: log.atOrBefore,
      now: () => new Date(),
      onError: (err) => {
        // At most once a minute: while the database is down a read fails every interval.
        if (Date.now() - loggedAt < 60_000) return;
        loggedAt = Date.now();
        infra.logger.warn({ err: (err as Error).message }, 'news event stream: a read of the event log failed; retrying every interval');
      },
    },
    { ...NEWS_STREAM_DEFAULTS, pollMs: stream.pollMs, keepAliveMs: stream.keepAliveMs, resumeMax: stream.resumeMax, maxStreams: stream.maxStreams },
  );
  infra.closers.push(() => hub.close());
  return { log, hub, leases: createLeases(infra.mongo.conn), streamMaxMs: stream.streamMaxMs, keepAliveMs: stream.keepAliveMs };
}
