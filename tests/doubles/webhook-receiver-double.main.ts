/**
 * Runs the webhook receiver double as a process (for the stack's suites and `npm start`, once
 * the integrator wires it): serves on the port given (0: a random one) and prints its base URL
 * when ready, then serves until SIGTERM or SIGINT.
 */
import { startWebhookReceiverDouble } from './webhook-receiver-double';

const port = Number(process.argv[2] ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write('usage: webhook-receiver-double.main.ts <port, 0 for random>\n');
  process.exit(2);
}

void startWebhookReceiverDouble(port).then(
  (d) => {
    process.stdout.write(`${d.url}\n`);
    const stop = () => void d.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (err: Error) => {
    process.stderr.write(`the double failed to start: ${err.message}\n`);
    process.exit(1);
  },
);
