/**
 * The mail receiver's process (issue 39): requesters' mail by SMTP and LMTP (./receiver.ts),
 * each message stored in MinIO and recorded in MongoDB before it is acknowledged. Like the API
 * services (api/shared/server.ts) it starts while MongoDB or MinIO are still down (it answers 451
 * until they are up, and senders retry), and on SIGTERM/SIGINT it stops taking connections, lets
 * the messages in flight finish (up to SHUTDOWN_GRACE_SECONDS), then closes its connections.
 */
import { loadConfigOrExit, type Config } from '../../models/config';
import { ensureBucket } from '../../models/infra/storage';
import { createInboundMailRepo, type InboundMailRepo } from '../../models/support/inbound-mail.repo';
import { forwardStoredMail, handOverInboundMail } from '../../operations/support/inbound-process';
import { closeInfra, createInfra, type Infra } from '../shared/infra';
import { runProcess } from '../shared/process';
import { createMailReceiver, type MailReceiver, type MailReceiverDeps } from './receiver';

export interface RunningReceiver {
  receiver: MailReceiver;
  infra: Infra;
  ports: { smtpPort: number; lmtpPort: number };
  stop(): Promise<void>;
}

/**
 * Creates the bucket when missing, trying again until it succeeds or the process stops: until
 * then a message's upload fails and the sender is asked to retry (451).
 */
function ensureBucketInBackground(infra: Infra, stopped: () => boolean): void {
  let delay = 500;
  const attempt = (): void => {
    if (stopped()) return;
    ensureBucket(infra.storage, infra.config.minio.region).then(
      () => undefined,
      (err: unknown) => {
        infra.logger.warn({ err: (err as Error).message }, 'MinIO not reachable yet; retrying');
        setTimeout(attempt, delay).unref();
        delay = Math.min(delay * 2, 10_000);
      },
    );
  };
  attempt();
}

/**
 * The hand-over port: starts the message's processing workflow (supportInboundMailWorkflow, id
 * `support-inbound-<record id>`: a repeated start is the run already there), then marks the record
 * handed over. When the start fails (Temporal down) the receiver logs it and the record stays
 * `stored`: the inbound relay hands it over 30 s later.
 */
export function handOverToWorkflow(infra: Infra, inbound: Pick<InboundMailRepo, 'markHandedOver'>): MailReceiverDeps['handOver'] {
  return async (id) => {
    await handOverInboundMail({ temporal: infra.temporal, taskQueuePrefix: infra.config.temporal.taskQueuePrefix, inbound, now: () => new Date(), logger: infra.logger }, id);
  };
}

/**
 * At start, hands over what a receiver left `stored` (killed between its 250 and the workflow's
 * start, or Temporal down then): the message is processed from MinIO now rather than at the inbound
 * relay's next run. In the background; a failure is logged and left to the relay. A record another
 * receiver is handing over right now is harmless: the start finds the run already there.
 */
function handOverLeftBehind(infra: Infra, inbound: InboundMailRepo): void {
  const deps = { temporal: infra.temporal, taskQueuePrefix: infra.config.temporal.taskQueuePrefix, inbound, now: () => new Date(), logger: infra.logger };
  // Once MongoDB is reachable (the receiver starts without it, and answers 451 meanwhile).
  infra.mongo.ready.then(() => forwardStoredMail(deps, { olderThanMs: 0, limit: 1_000 })).then(
    ({ forwarded }) => forwarded > 0 && infra.logger.info({ forwarded }, 'mail left stored by an earlier run handed over'),
    (err: unknown) => infra.logger.warn({ err: (err as Error).message }, 'mail left stored not handed over at start; the inbound relay will'),
  );
}

/** Starts the receiver; `handOver` replaces the workflow start (a test's). */
export async function startMailReceiver(config: Config, handOver?: MailReceiverDeps['handOver']): Promise<RunningReceiver> {
  const infra = createInfra(config, 'mail');
  let stopping: Promise<void> | undefined;
  ensureBucketInBackground(infra, () => stopping !== undefined);
  const inbound = createInboundMailRepo(infra.mongo.conn);
  const { host, smtpPort, lmtpPort, maxBytes } = config.support.mail.inbound;
  const receiver = createMailReceiver(
    { inbound, storage: infra.storage, handOver: handOver ?? handOverToWorkflow(infra, inbound), logger: infra.logger },
    { host, smtpPort, lmtpPort, maxBytes, deskAddress: config.support.mail.address, closeTimeoutMs: config.http.shutdownGraceMs },
  );
  const ports = await receiver.listen();
  if (!handOver) handOverLeftBehind(infra, inbound);
  const stop = () =>
    (stopping ??= (async () => {
      infra.logger.info('shutting down: no new connections, finishing messages in flight');
      await receiver.close();
      await closeInfra(infra);
      infra.logger.info('stopped');
    })());
  return { receiver, infra, ports, stop };
}

function main(): void {
  runProcess('mail receiver', startMailReceiver(loadConfigOrExit()));
}

if (require.main === module) main();
