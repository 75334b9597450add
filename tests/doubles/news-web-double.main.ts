/**
 * Runs the news-web double as a process (for `npm start` without real news sources, and suites
 * that want one outside their own process). argv[2]: the base port (0: a random port for each
 * origin); argv[3], optional: milliseconds between two items of a site; argv[4], optional: the
 * control API's port when the base port is 0 (its sites then take random ports). Prints one JSON line with
 * the control URL, the sites and the fault feeds when ready, then serves until SIGTERM or SIGINT.
 */
import { startNewsWebDouble } from './news-web-double';

const basePort = Number(process.argv[2] ?? 0);
const itemPeriodMs = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const controlPort = process.argv[4] === undefined ? undefined : Number(process.argv[4]);

if (!Number.isInteger(basePort) || basePort < 0 || (itemPeriodMs !== undefined && !(itemPeriodMs > 0))) {
  process.stderr.write('usage: news-web-double.main.ts <basePort, 0 for random> [itemPeriodMs]\n');
  process.exit(2);
}

void startNewsWebDouble({ basePort, itemPeriodMs, ...(controlPort ? { controlPort } : {}) }).then(
  (d) => {
    process.stdout.write(`${JSON.stringify({ url: d.url, sites: d.sites, faults: d.faults, oversizedPage: d.oversizedPage, oversizedPageFeed: d.oversizedPageFeed, scenarios: d.scenarios })}\n`);
    const stop = () => void d.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (err: Error) => {
    process.stderr.write(`the double failed to start: ${err.message}\n`);
    process.exit(1);
  },
);
