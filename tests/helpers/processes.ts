/** Runs the project's own entry points as child processes (as an operator would). */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../../models/config';
import { freePort, freePortRange } from '../../ops/dev-services';
import { NEWS_WEB_SITE_PORTS, workerPolling } from '../../ops/processes';

export const ROOT = path.resolve(__dirname, '../..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  lastLine: string;
}

export async function runTs(file: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000): Promise<RunResult> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, file), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const lines = stdout.trimEnd().split('\n');
      resolve({ code, stdout, stderr, lastLine: lines[lines.length - 1] ?? '' });
    });
  });
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A worker process of its own on the task-queue prefix `prefix` (so a test may kill it without
 * disturbing others), resolved once it polls; `env` adds variables (its own database…).
 */
export async function startOwnWorker(prefix: string, config: Config, env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'workers/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, TASK_QUEUE_PREFIX: prefix },
    stdio: 'ignore',
    detached: true,
  });
  for (let i = 0; !(await workerPolling(config.temporal.address, config.temporal.namespace, prefix, child.pid).catch(() => false)); i += 1) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}`);
    if (i > 600) {
      // Not left behind: a child still running keeps Jest from exiting (CI waited for it until its timeout).
      killGroup(child);
      throw new Error('worker did not start polling within 60 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/** SIGKILLs a process group started detached (no cleanup runs: as a crash). */
export function killGroup(child: ChildProcess | undefined): void {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface ServiceProcess {
  child: ChildProcess;
  base: string;
  logs(): string;
  /** The process's own view of itself: uptime from /health (200 or 503). */
  uptimeSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * One service run from its real entry point (`api/<name>/server.ts`) on a free port, as the
 * supervisor runs it; resolved once /health answers.
 */
export async function startServiceProcess(name: 'news' | 'support' | 'quiz', env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, `api/${name}/server.ts`)], {
    cwd: ROOT,
    env: { ...process.env, [`${name.toUpperCase()}_PORT`]: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout?.on('data', (d: Buffer) => (logs += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  let lastError = '';
  const health = async () => {
    const res = await fetch(`${base}/health`);
    return ((await res.json()) as { data: { uptimeSeconds: number } }).data.uptimeSeconds;
  };
  for (let i = 0; ; i += 1) {
    const answered = await health().then(
      () => true,
      (err: Error) => {
        lastError = `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`;
        return false;
      },
    );
    if (answered) break;
    if (child.exitCode !== null || i > 600) {
      // Not left behind: a child still running (its pipes open) keeps Jest from exiting, and CI
      // waited for it until its own timeout, losing the run.
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`${name} service did not come up (last /health: ${lastError}):\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base,
    logs: () => logs,
    uptimeSeconds: health,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Every port `npm start` listens on, picked free, for a test that runs it (tests/integration/stack
 * and start-signals). With a default left in place, two such tests running at once in different Jest
 * workers both found the default free and then raced for it (the news sites double lost and exited
 * with EADDRINUSE); so no port is left to its default here.
 */
export async function startPorts(): Promise<{ ports: Record<string, number>; env: Record<string, string> }> {
  const names = ['news', 'support', 'quiz', 'web', 'temporal', 'ui', 'ferretdb', 'postgres', 'minio', 'console', 'stripe', 'whatsapp', 'openai', 'push', 'webhooks', 'mailpitSmtp', 'mailpitUi'] as const;
  const ports: Record<string, number> = {};
  for (const k of names) ports[k] = await freePort();
  ports.newsWeb = await freePortRange(1 + NEWS_WEB_SITE_PORTS);
  const env = {
    NEWS_PORT: ports.news,
    SUPPORT_PORT: ports.support,
    QUIZ_PORT: ports.quiz,
    WEB_PORT: ports.web,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    TEMPORAL_UI_PORT: ports.ui,
    FERRETDB_PORT: ports.ferretdb,
    POSTGRES_PORT: ports.postgres,
    MINIO_ENDPOINT: `http://127.0.0.1:${ports.minio}`,
    MINIO_CONSOLE_PORT: ports.console,
    STRIPE_MOCK_PORT: ports.stripe,
    WHATSAPP_DOUBLE_PORT: ports.whatsapp,
    OPENAI_DOUBLE_PORT: ports.openai,
    PUSH_DOUBLE_PORT: ports.push,
    WEBHOOK_DOUBLE_PORT: ports.webhooks,
    NEWS_WEB_DOUBLE_PORT: ports.newsWeb,
    MAILPIT_SMTP_PORT: ports.mailpitSmtp,
    MAILPIT_UI_PORT: ports.mailpitUi,
  };
  return { ports, env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) };
}
