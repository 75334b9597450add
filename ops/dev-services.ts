/**
 * The dev services (Temporal dev server, PostgreSQL with DocumentDB and FerretDB v2 in front of it,
 * MinIO, stripe-mock when no real Stripe key is configured, and Mailpit when no SMTP server is) as
 * supervised processes, for `npm start` and `npm test`. State lives under the data directory.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import mongoose from 'mongoose';
import { BINARIES, defaultCacheDir, resolveBinary } from './binaries';
import { databaseUser, endOrphanedBackends, ensurePostgres, initCluster, postgresReady, postgresServerCommand } from './postgres';
import type { ProcessSpec, Supervisor } from './supervisor';

export interface DevServicePorts {
  temporal: number;
  temporalUi: number;
  temporalHttp: number;
  temporalMetrics: number;
  ferretdb: number;
  postgres: number;
  minio: number;
  minioConsole: number;
  stripeMock: number;
  /** Mailpit's SMTP server, and its web UI and REST API. */
  mailpitSmtp: number;
  mailpitUi: number;
}

export interface DevServicesOptions {
  dataDir: string;
  ports: DevServicePorts;
  namespace: string;
  minio: { accessKey: string; secretKey: string };
  /** Start the dev database, PostgreSQL and FerretDB (false when MONGODB_URI points to a database of its own). */
  ferretdb: boolean;
  /** Run stripe-mock (false when a real Stripe key is configured). */
  stripeMock: boolean;
  /** Run Mailpit (false when SMTP_URL points to a mail server of its own). */
  mailpit: boolean;
  /** Serve the Temporal Web UI (off in tests). */
  temporalUi: boolean;
  bins: { temporal?: string | undefined; minio?: string | undefined; ferretdb?: string | undefined; stripeMock?: string | undefined; mailpit?: string | undefined };
  cacheDir: string | undefined;
  /** FerretDB's debug endpoint (pprof); off when undefined. */
  ferretdbDebugAddr?: string | undefined;
  searchPath: string | undefined;
  log: (line: string) => void;
}

/** Ports this process has handed out: the kernel may offer a just-closed port again. */
const handedOut = new Set<number>();

/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#bad-port): `fetch` (Node's
 * undici, browsers) refuses them before connecting, with "bad port". A service given one listens
 * happily and is unreachable by every fetch-based client: seen in CI, where a quiz process on
 * 10080 logged "listening" and its /health never answered.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115,
  117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587,
  601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669,
  6679, 6697, 10080,
]);

/**
 * The kernel's range for ephemeral ports (outgoing connections' local ports, and `listen(0)`).
 * Ports we choose for services come from below it, so no client connection of any process (a
 * worker's connection to Temporal, a driver's to the database) can be holding the port between
 * the moment we choose it and the moment its service binds it (seen: EADDRINUSE in CI).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768; // not Linux: the IANA dynamic range starts at 49152, so below 32768 is outside it too
  }
}

async function canListen(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on 127.0.0.1 now, below the ephemeral range, never one this process handed out
 * or reserved before (two services of one stack given the same port would fail to start, over and
 * over: seen with MinIO's console), and never one of {@link FETCH_BAD_PORTS}.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = 10_000;
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port) || FETCH_BAD_PORTS.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free TCP port found between ${low} and ${high}`);
}

/**
 * `count` consecutive free ports (the news sites double's origins, which the fetcher's allow-list
 * names as one range): the first of them is returned.
 */
export async function freePortRange(count: number): Promise<number> {
  const high = ephemeralLow() - count;
  const low = 10_000;
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const first = low + Math.floor(Math.random() * (high - low + 1));
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if (ports.some((p) => handedOut.has(p) || FETCH_BAD_PORTS.has(p))) continue;
    let free = true;
    for (const p of ports) if (!(free = await canListen(p))) break;
    if (!free) continue;
    for (const p of ports) handedOut.add(p);
    return first;
  }
  throw new Error(`no ${count} consecutive free TCP ports found between ${low} and ${high}`);
}

/** Marks a port as taken by configuration, so {@link freePort} never hands it to another service. */
export function reservePort(port: number): void {
  handedOut.add(port);
}

/** Fails early, with a clear message, when another program holds a port we need. */
export async function assertPortFree(port: number, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', () =>
      reject(new Error(`port ${port} (${what}) is already in use: stop the other program or choose another port`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}

export async function tcpOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function temporalReady(port: number, namespace: string): Promise<boolean> {
  if (!(await tcpOpen(port))) return false;
  const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 2_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

async function mongoReady(port: number): Promise<boolean> {
  if (!(await tcpOpen(port))) return false;
  const conn = await mongoose
    .createConnection(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 2_000 })
    .asPromise();
  try {
    await conn.db!.admin().command({ ping: 1 });
    return true;
  } finally {
    await conn.close();
  }
}

async function minioReady(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/minio/health/live`, { signal: AbortSignal.timeout(2_000) });
  return res.ok;
}

/** Ready when its SMTP port accepts connections and its REST API answers (its database is open). */
async function mailpitReady(smtpPort: number, uiPort: number): Promise<boolean> {
  if (!(await tcpOpen(smtpPort))) return false;
  const res = await fetch(`http://127.0.0.1:${uiPort}/api/v1/messages?limit=1`, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.ok;
}

/** Where the database's C sources are kept, beside the repository (shared/vendor). */
export const VENDOR_DIR = path.resolve(__dirname, '..', '..', 'shared', 'vendor');

interface DevBinaries {
  temporal: string;
  minio: string;
  /** FerretDB, and the PostgreSQL prefix with DocumentDB it runs on. */
  database?: { ferretdb: string; postgresPrefix: string };
  stripeMock?: string;
  mailpit?: string;
}

/** Resolves (building when needed) every binary before anything starts. */
async function resolveDevBinaries(o: DevServicesOptions): Promise<DevBinaries> {
  const cacheDir = defaultCacheDir(o.cacheDir);
  const common = { cacheDir, searchPath: o.searchPath, log: o.log };
  // Built side by side on a cold machine: much of each build is waiting for downloads.
  const [temporal, minio, postgresPrefix, ferretdb, stripeMock, mailpit] = await Promise.all([
    resolveBinary(BINARIES.temporal, { ...common, configured: o.bins.temporal }),
    resolveBinary(BINARIES.minio, { ...common, configured: o.bins.minio }),
    o.ferretdb ? ensurePostgres({ cacheDir, vendorDir: VENDOR_DIR, log: o.log }) : undefined,
    o.ferretdb ? resolveBinary(BINARIES.ferretdb, { ...common, configured: o.bins.ferretdb }) : undefined,
    o.stripeMock ? resolveBinary(BINARIES['stripe-mock'], { ...common, configured: o.bins.stripeMock }) : undefined,
    o.mailpit ? resolveBinary(BINARIES.mailpit, { ...common, configured: o.bins.mailpit }) : undefined,
  ]);
  return {
    temporal,
    minio,
    ...(postgresPrefix && ferretdb ? { database: { ferretdb, postgresPrefix } } : {}),
    ...(stripeMock ? { stripeMock } : {}),
    ...(mailpit ? { mailpit } : {}),
  };
}

/**
 * FerretDB's PostgreSQL URL, with the bounds of what its sessions may take (issue 34, "one runaway
 * query cannot take the machine"): at most 50 backends (FerretDB's own default, said here so the
 * bound is ours), and any statement ended after a minute (`statement_timeout`, a runtime parameter
 * that pgx sends when it connects; a query's own `maxTimeMS` is shorter and wins). A statement
 * ended that way is MongoDB's MaxTimeMSExpired, answered 503. Nothing the product does in one
 * statement takes near a minute at 100,000 documents (docs/benchmarks.md).
 */
export function ferretdbPostgresUrl(port: number): string {
  return `postgres://postgres@127.0.0.1:${port}/postgres?pool_max_conns=50&statement_timeout=60000`;
}

async function endOrphans(cluster: string, log: (line: string) => void): Promise<void> {
  const ended = await endOrphanedBackends(cluster);
  if (ended.length > 0) log(`ended ${ended.length} PostgreSQL backend(s) a stopped postmaster left behind (pids ${ended.join(', ')})`);
}

/** The dev services as chains: each chain starts in order, the chains side by side. */
function devServiceChains(
  o: DevServicesOptions,
  bins: DevBinaries,
): ProcessSpec[][] {
  const logs = path.join(o.dataDir, 'logs');
  const chains: ProcessSpec[][] = [];
  const temporalArgs = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(o.ports.temporal),
    '--http-port',
    String(o.ports.temporalHttp),
    '--metrics-port',
    String(o.ports.temporalMetrics),
    '--db-filename',
    path.join(o.dataDir, 'temporal', 'temporal.db'),
    '--log-level',
    'warn',
    // Activities scheduled by a workflow task go straight back to the worker that completed it
    // (as on Temporal Cloud), saving a task-queue round trip each (docs/benchmarks.md).
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
  ];
  if (o.namespace !== 'default') temporalArgs.push('--namespace', o.namespace);
  temporalArgs.push(...(o.temporalUi ? ['--ui-port', String(o.ports.temporalUi)] : ['--headless']));
  chains.push([{
    name: 'temporal',
    command: bins.temporal,
    args: temporalArgs,
    output: { file: path.join(logs, 'temporal.log') },
    ready: () => temporalReady(o.ports.temporal, o.namespace),
    readyTimeoutMs: 120_000,
  }]);
  if (bins.database) {
    const { postgresPrefix, ferretdb } = bins.database;
    const user = databaseUser();
    const cluster = path.join(o.dataDir, 'postgres');
    initCluster(postgresPrefix, cluster, user);
    chains.push([{
      name: 'postgres',
      ...postgresServerCommand(postgresPrefix, cluster, o.ports.postgres),
      ...(user ? { user } : {}),
      // Fast shutdown: ends client sessions, writes a checkpoint (SIGTERM would wait for clients).
      stopSignal: 'SIGINT',
      // A killed postmaster leaves its backends running (they are in sessions of their own): they
      // keep the next one from starting, and a busy one computes on for hours (seen: six, spinning
      // 2 h at ~1.4 cores after a stack whose postmaster had to be killed was stopped).
      beforeStart: () => endOrphans(cluster, o.log),
      afterStop: () => endOrphans(cluster, o.log),
      output: { file: path.join(logs, 'postgres.log') },
      ready: () => postgresReady(postgresPrefix, o.ports.postgres),
    }, {
      name: 'ferretdb',
      command: ferretdb,
      args: [
        `--postgresql-url=${ferretdbPostgresUrl(o.ports.postgres)}`,
        `--listen-addr=127.0.0.1:${o.ports.ferretdb}`,
        `--state-dir=${path.join(o.dataDir, 'ferretdb')}`,
        `--debug-addr=${o.ferretdbDebugAddr ?? ''}`,
        // Loopback only, like every dev service; authentication is PostgreSQL's (trust, loopback).
        '--no-auth',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      output: { file: path.join(logs, 'ferretdb.log') },
      ready: () => mongoReady(o.ports.ferretdb),
    }]);
  }
  chains.push([{
    name: 'minio',
    command: bins.minio,
    args: [
      'server',
      path.join(o.dataDir, 'minio'),
      '--address',
      `127.0.0.1:${o.ports.minio}`,
      '--console-address',
      `127.0.0.1:${o.ports.minioConsole}`,
      '--quiet',
    ],
    env: {
      ...process.env,
      MINIO_ROOT_USER: o.minio.accessKey,
      MINIO_ROOT_PASSWORD: o.minio.secretKey,
      MINIO_UPDATE: 'off',
      MINIO_CALLHOME_ENABLE: 'off',
    },
    output: { file: path.join(logs, 'minio.log') },
    ready: () => minioReady(o.ports.minio),
  }]);
  if (bins.stripeMock) {
    chains.push([{
      name: 'stripe-mock',
      command: bins.stripeMock,
      // Without -https-addr it also serves HTTPS on *:12112, which a second stack (npm test beside
      // npm start) cannot bind; an empty port lets the kernel choose one on loopback.
      args: ['-http-addr', `127.0.0.1:${o.ports.stripeMock}`, '-https-addr', '127.0.0.1:'],
      output: { file: path.join(logs, 'stripe-mock.log') },
      ready: () => tcpOpen(o.ports.stripeMock),
    }]);
  }
  if (bins.mailpit) {
    chains.push([{
      name: 'mailpit',
      command: bins.mailpit,
      args: [
        '--database',
        path.join(o.dataDir, 'mailpit', 'mailpit.db'),
        // Both on loopback only (its defaults listen on every interface); no auth, no TLS.
        '--smtp',
        `127.0.0.1:${o.ports.mailpitSmtp}`,
        '--listen',
        `127.0.0.1:${o.ports.mailpitUi}`,
        // No call to GitHub for its latest release, no reverse DNS of each SMTP client.
        '--disable-version-check',
        '--smtp-disable-rdns',
        '--quiet',
      ],
      output: { file: path.join(logs, 'mailpit.log') },
      ready: () => mailpitReady(o.ports.mailpitSmtp, o.ports.mailpitUi),
    }]);
  }
  return chains;
}

/**
 * Ensures the data directories exist, then starts the dev services, FerretDB once PostgreSQL is
 * ready. The supervisor stops them in the reverse order of their start calls (FerretDB first).
 */
export async function startDevServices(supervisor: Supervisor, o: DevServicesOptions): Promise<void> {
  for (const dir of ['temporal', 'ferretdb', 'minio', 'mailpit', 'logs']) mkdirSync(path.join(o.dataDir, dir), { recursive: true });
  const bins = await resolveDevBinaries(o);
  await Promise.all(
    devServiceChains(o, bins).map(async (chain) => {
      for (const spec of chain) await supervisor.start(spec);
    }),
  );
}
