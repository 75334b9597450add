/**
 * The platform's own processes (the worker, the four HTTP services and the mail receiver) as
 * supervised processes, run from the TypeScript sources with tsx's loader in the current Node.js.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../models/config';
import { TASK_QUEUES, taskQueueName } from '../workflows/ids';
import { type ProcessSpec, type Supervisor, tolerateClosedOutput } from './supervisor';

const ROOT = path.resolve(__dirname, '..');

/**
 * Origins of the news sites double after its control port: its sites and fault feeds, on the
 * ports that follow (tests/doubles/news-web-double.ts). The fetcher's allow-list names exactly these.
 */
export const NEWS_WEB_SITE_PORTS = 15;


export function childEnv(config: Config, overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: config.env, ...overrides };
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
  await res.arrayBuffer();
  return res.ok;
}

/**
 * Ready when a worker polls the ops queue (with `pid`: that process's worker, whose default
 * identity is `<pid>@<host>`; a killed worker stays listed as a poller for a while).
 */
export async function workerPolling(address: string, namespace: string, prefix = '', pid?: number): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const res = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueueName(prefix, TASK_QUEUES.ops) },
      taskQueueType: 1, // WORKFLOW
    });
    const pollers = res.pollers ?? [];
    return pid === undefined ? pollers.length > 0 : pollers.some((p) => p.identity?.startsWith(`${pid}@`));
  } finally {
    await connection.close();
  }
}

/**
 * Builds the dashboard's page (web/dist) with Vite, as `npm run build:web` does; the web service
 * serves it. A second or so; npm start and npm test run it before starting the web service.
 */
export async function buildWeb(log: (line: string) => void): Promise<void> {
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', path.join(ROOT, 'web', 'vite.config.ts'), '--logLevel', 'error'], {
      cwd: ROOT,
      // The bundle served is production's whatever runs the build (npm test runs with NODE_ENV=test,
      // which would bundle React's development build: slower, and not what customers get).
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the dashboard's build failed (vite exited with ${code}): ${output.trim().slice(-2_000)}`))));
  });
  log('dashboard built (web/dist)');
}

/**
 * Ready when an SMTP server on `port` greets (220); the check then says QUIT. A listener that
 * accepts but does not greet (still starting, or overloaded: 421) is not ready.
 */
export async function smtpGreets(port: number, host = '127.0.0.1'): Promise<boolean> {
  return await new Promise((resolve) => {
    let seen = '';
    const socket = net.connect({ port, host });
    const settle = (ok: boolean) => {
      socket.removeAllListeners('data');
      if (ok) socket.end('QUIT\r\n');
      else socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(3_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes('\n')) settle(seen.startsWith('220'));
    });
    // After a settle too: a reset while saying QUIT is not the caller's concern.
    socket.on('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

export function tsEntry(file: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', path.join(ROOT, file)] };
}

export function appProcessSpecs(env: NodeJS.ProcessEnv, output: ProcessSpec['output'] | ((name: string) => ProcessSpec['output'])): ProcessSpec[] {
  const out = (name: string) => (typeof output === 'function' ? output(name) : output);
  const host = env.HOST && env.HOST !== '0.0.0.0' ? env.HOST : '127.0.0.1';
  const mailHost = env.SUPPORT_MAIL_INBOUND_HOST && env.SUPPORT_MAIL_INBOUND_HOST !== '0.0.0.0' ? env.SUPPORT_MAIL_INBOUND_HOST : '127.0.0.1';
  const api = (name: string, file: string, port: string | undefined, fallback: number): ProcessSpec => ({
    name,
    ...tsEntry(file),
    env,
    cwd: ROOT,
    output: out(name),
    ready: () => httpOk(`http://${host}:${port ?? fallback}/health`),
    readyTimeoutMs: 90_000,
  });
  return [
    {
      name: 'worker',
      ...tsEntry('workers/main.ts'),
      env,
      cwd: ROOT,
      output: out('worker'),
      ready: () => workerPolling(env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233', env.TEMPORAL_NAMESPACE ?? 'default', env.TASK_QUEUE_PREFIX ?? ''),
      readyTimeoutMs: 120_000,
      stopTimeoutMs: 30_000,
    },
    api('news', 'api/news/server.ts', env.NEWS_PORT, 3001),
    api('support', 'api/support/server.ts', env.SUPPORT_PORT, 3002),
    api('quiz', 'api/quiz/server.ts', env.QUIZ_PORT, 3003),
    api('web', 'api/web/server.ts', env.WEB_PORT, 3000),
    {
      // Requesters' mail (issue 39): SMTP and LMTP, on SUPPORT_MAIL_SMTP_PORT / SUPPORT_MAIL_LMTP_PORT.
      name: 'mail',
      ...tsEntry('api/mail/server.ts'),
      env,
      cwd: ROOT,
      output: out('mail'),
      ready: () => smtpGreets(Number(env.SUPPORT_MAIL_SMTP_PORT ?? 2525), mailHost),
      readyTimeoutMs: 90_000,
    },
  ];
}

/**
 * A signal that arrives this soon after the first is the same Ctrl-C: the terminal sends SIGINT to
 * the whole foreground group (npm and us), and npm forwards its copy to us again.
 */
const SAME_KEYPRESS_MS = 1_000;

/**
 * SIGINT/SIGTERM/SIGHUP stop everything gracefully; a second signal given a moment later (after
 * SAME_KEYPRESS_MS) kills at once. Our own output may vanish meanwhile (a pipe reader killed by the
 * same Ctrl-C): that never interrupts the stop.
 */
export function stopOnSignals(supervisor: Supervisor, say: (l: string) => void): void {
  tolerateClosedOutput();
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (Date.now() - firstAt < SAME_KEYPRESS_MS) return;
      say(`${signal} again: killing everything now`);
      for (const pid of supervisor.pids()) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      process.exit(130);
    }
    firstAt = Date.now();
    say(`${signal}: stopping every process gracefully (press Ctrl-C again to force)…`);
    supervisor.stop().then(
      () => {
        say('all processes stopped');
        process.exit(process.exitCode ?? 0);
      },
      (err: Error) => {
        say(`stop failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // If whoever started us dies without a signal reaching us (npm killed, terminal closed), we are
  // re-parented: stop everything rather than leave orphans behind.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent && firstAt === undefined) onSignal('SIGHUP');
  }, 500).unref();
}
