/**
 * Runs the Web Push double as a process: `node --import tsx tests/doubles/push-double.main.ts
 * <port> <certDir>`. It writes (or reuses) its self-signed certificate in certDir, then prints its
 * base URL on the first line and the certificate to trust on the second (`ca <file>`), then serves.
 */
import os from 'node:os';
import path from 'node:path';
import { startPushDouble } from './push-double';

// Without a directory, a fresh one under the system's temporary directory.
const certDir = process.argv[3] ?? path.join(os.tmpdir(), `push-double-${process.pid}`);
void startPushDouble(Number(process.argv[2] ?? 0), { certDir }).then((d) => {
  process.stdout.write(`${d.url}\nca ${d.caFile}\n`);
  const stop = () => void d.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}, (err: Error) => {
  process.stderr.write(`the double failed to start: ${err.message}\n`);
  process.exit(1);
});
