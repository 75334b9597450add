import type { Infra } from './infra';

/**
 * A long-running process's life once started (an API service, the mail receiver): SIGTERM or
 * SIGINT stops it (exit 0, or 1 if stopping failed); a start that fails exits 1.
 *
 * Last resort: requests and messages have their own error handling; an exception that escapes it
 * (an event emitter without an error listener, a callback that throws) leaves the process in a
 * state nobody can vouch for. Node's advice is to exit, so: log it, stop taking connections, let
 * the work in flight finish (grace period), exit 1; the supervisor (npm start, compose's restart
 * policy) starts a fresh process.
 */
export function runProcess(name: string, started: Promise<{ infra: Pick<Infra, 'logger'>; stop(): Promise<void> }>): void {
  started.then(
    (running) => {
      const onSignal = (signal: NodeJS.Signals) => {
        running.infra.logger.info({ signal }, 'signal received');
        running.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      const onFatal = (kind: string) => (err: unknown) => {
        running.infra.logger.fatal({ err }, `${kind}: finishing the work in flight, then exiting to be restarted`);
        void running.stop().finally(() => process.exit(1));
      };
      process.on('uncaughtException', onFatal('uncaught exception'));
      process.on('unhandledRejection', onFatal('unhandled rejection'));
    },
    (err: Error) => {
      process.stderr.write(`${name} failed to start: ${err.message}\n`);
      process.exit(1);
    },
  );
}
