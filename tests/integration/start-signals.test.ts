/**
 * `npm start` and Ctrl-C, as in a real terminal. The terminal sends SIGINT to its whole foreground
 * process group (npm, the start script, and a pipe reader such as `tee`), and npm forwards its copy
 * to the start script again; these tests start `npm start` as the leader of a process group of its
 * own and signal that group, exactly as the terminal driver does.
 *
 * - one Ctrl-C stops every service gracefully (the duplicate SIGINT from npm does not force it);
 * - with the output piped (`npm start | cat`), the reader dies first and the stop still completes;
 * - a second Ctrl-C a moment later forces the stop (of a service that hangs);
 * - whatever happens to the start script (SIGKILL), no service outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startPorts } from '../helpers/processes';

jest.setTimeout(240_000);

/** Processes whose environment carries this DATA_DIR (everything one `npm start` started). */
function processesOf(dataDir: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DATA_DIR=${dataDir}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // exited, not yet reaped
      found.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120) });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Polls `test`; on timeout the error carries `left()` (say, the processes still there). */
async function until(what: string, test: () => boolean, timeoutMs: number, left: () => unknown = () => undefined): Promise<void> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(left())}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Started {
  group: ChildProcess;
  dataDir: string;
  output: () => string;
  startLog: () => string;
  exited: Promise<number | null>;
}

/** `npm start` (or a shell line around it) as a process group of its own, on free ports. */
async function npmStart(shellLine: string): Promise<Started> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'newsletter-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  // A fresh data directory generates its own secrets; the database is FerretDB, as for a developer.
  for (const v of ['MONGODB_URI', 'NODE_ENV', 'JWT_SECRET', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY']) delete env[v];
  Object.assign(env, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...(await startPorts()).env,
  });
  // npm as `npm test` ran it (npm_execpath), under this Node.js.
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const npm = process.env.npm_execpath ? `${quote(process.execPath)} ${quote(process.env.npm_execpath)}` : 'npm';
  const group = spawn('sh', ['-c', shellLine.replace('npm start', `${npm} start`)], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  group.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  group.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => group.once('exit', (code) => resolve(code)));
  const startLog = () => {
    try {
      return readFileSync(path.join(dataDir, 'logs', 'start.log'), 'utf8');
    } catch {
      return '';
    }
  };
  await until('npm start to be up', () => {
    if (group.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    return startLog().includes('everything is up');
  }, 180_000);
  return { group, dataDir, output: () => output, startLog, exited };
}

/** What the terminal does on Ctrl-C: SIGINT to every process of the foreground group. */
const ctrlC = (s: Started) => process.kill(-s.group.pid!, 'SIGINT');

let current: Started | undefined;
afterEach(() => {
  if (!current) return;
  for (const p of processesOf(current.dataDir)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(current.dataDir, { recursive: true, force: true });
  current = undefined;
});

it('one Ctrl-C in a terminal stops every service gracefully, despite npm forwarding it again', async () => {
  current = await npmStart('exec npm start');
  const s = current;
  expect(processesOf(s.dataDir).length).toBeGreaterThanOrEqual(7); // 3 dev services, worker, 3 APIs
  ctrlC(s);
  await s.exited;
  await until('every process to be gone', () => processesOf(s.dataDir).length === 0, 30_000, () => processesOf(s.dataDir));
  expect(s.startLog()).toContain('SIGINT: stopping every process gracefully');
  expect(s.startLog()).toContain('all processes stopped');
  expect(s.startLog()).not.toContain('killing everything now');
  expect(s.output()).toContain('all processes stopped');
});

it('with the output piped, the reader dies of the same Ctrl-C and the stop still completes gracefully', async () => {
  current = await npmStart('npm start | cat');
  const s = current;
  ctrlC(s);
  await until('every process to be gone', () => processesOf(s.dataDir).length === 0, 60_000, () => processesOf(s.dataDir));
  expect(s.startLog()).toContain('all processes stopped');
  expect(s.startLog()).not.toContain('killing everything now');
});

it('a second Ctrl-C a moment later forces the stop of a service that hangs', async () => {
  current = await npmStart('exec npm start');
  const s = current;
  // A hung service (stopped: it cannot act on SIGTERM) keeps the graceful stop waiting.
  const minio = processesOf(s.dataDir).find((p) => p.cmd.includes('minio') && p.cmd.includes(' server '));
  expect(minio).toBeDefined();
  process.kill(minio!.pid, 'SIGSTOP');
  ctrlC(s);
  await new Promise((r) => setTimeout(r, 1_500));
  ctrlC(s);
  await until('every process to be gone', () => processesOf(s.dataDir).length === 0, 30_000, () => processesOf(s.dataDir));
  expect(s.startLog()).toContain('SIGINT again: killing everything now');
});

it('no service outlives a start script that is killed outright', async () => {
  current = await npmStart('exec npm start');
  const s = current;
  const script = processesOf(s.dataDir).find((p) => p.cmd.includes('ops/start.ts'));
  expect(script).toBeDefined();
  process.kill(script!.pid, 'SIGKILL');
  await until('every process to be gone', () => processesOf(s.dataDir).length === 0, 60_000, () => processesOf(s.dataDir));
  expect(s.startLog()).not.toContain('all processes stopped');
});
