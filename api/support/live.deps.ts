/**
 * The live updates' dependencies (issue 38): the repository and the one hub of this process, built
 * with the support service's dependencies (`makeSupportDeps`), so that the support service and the
 * staff console (api/web, which builds its own SupportDeps) each run one hub whatever the number
 * of streams. The hub polls only while a stream is open, and stops with the process (infra.closers).
 */
import { createLiveRepo, type LiveRepo } from '../../models/support/live.repo';
import { LIVE_DEFAULTS, LiveHub, type PresenceDeps } from '../../operations/support/live';
import type { Infra } from '../shared/infra';

export interface LiveDeps extends PresenceDeps {
  hub: LiveHub;
  presence: LiveRepo;
  /** How long a stream lasts before the server ends it (the client reconnects). */
  streamMaxMs: number;
}

export function makeLiveDeps(infra: Pick<Infra, 'config' | 'logger' | 'mongo' | 'closers'>): LiveDeps {
  const { live } = infra.config.support;
  const presence = createLiveRepo(infra.mongo.conn);
  // The wall clock: the hub's reads and presence's expiry are compared with other processes' writes.
  const now = () => new Date();
  let loggedAt = 0;
  const hub = new LiveHub(
    {
      changedSince: presence.changedSince,
      activePresence: presence.activePresence,
      now,
      onError: (err) => {
        // At most once a minute: while the database is down a read fails every interval.
        if (Date.now() - loggedAt < 60_000) return;
        loggedAt = Date.now();
        infra.logger.warn({ err: (err as Error).message }, 'support live updates: a read failed; retrying every interval');
      },
    },
    {
      ...LIVE_DEFAULTS,
      pollMs: live.pollMs,
      lookbackMs: live.lookbackMs,
      keepAliveMs: live.keepAliveMs,
      resumeWindowMs: live.resumeWindowMs,
      maxStreams: live.maxStreams,
      maxStreamsPerCaller: live.maxStreamsPerPerson,
    },
  );
  infra.closers.push(() => hub.close());
  return { hub, presence, now, presenceTtlMs: live.presenceTtlMs, streamMaxMs: live.streamMaxMs };
}
