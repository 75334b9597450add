/**
 * A small process supervisor for development and tests: starts processes in order, waits until
 * each is ready, restarts one that crashes (with backoff), and on stop terminates every process
 * group it started, escalating to SIGKILL, so nothing is left behind.
 *
 * Nothing it starts outlives it, whatever happens to it: on Linux each child is started through
 * util-linux's `setpriv --pdeathsig <its stop signal>`, so the kernel sends the child the signal a
 * graceful stop would (SIGTERM, or PostgreSQL's SIGINT fast shutdown: SIGTERM would make it wait for
 * its clients) the moment the supervisor dies, even by SIGKILL. Children never write to the terminal
 * themselves: their output is relayed, so a pipe reader that died first (`npm start | tee log`
 * after Ctrl-C) cannot break them.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where stdout/stderr go: a log file, or 'inherit' to relay them to ours (the terminal). */
  output: { file: string } | 'inherit';
  /** Resolves true once the process serves requests. Polled after every (re)start. */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** Signal used for a graceful stop (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
  /** Runs the process as this user and its group (the supervisor must be root; Linux's setpriv). */
  user?: string;
  stopTimeoutMs?: number;
  /**
   * Runs before every start and restart: e.g. PostgreSQL's, which ends the backends a killed
   * postmaster left behind (they hold its shared memory, and no new postmaster can start).
   */
  beforeStart?: () => Promise<void>;
  /** Runs once the process has stopped for good (the supervisor's stop): e.g. PostgreSQL's, the same. */
  afterStop?: () => Promise<void>;
  /** Sees each line of the process's output (besides its log): e.g. PostgreSQL's crash recoveries. */
  watch?: (line: string) => void;
}

interface Managed {
  spec: ProcessSpec;
  child: ChildProcess | undefined;
  restarts: number;
  startedAt: number;
  log: WriteStream | undefined;
  exited: Promise<void> | undefined;
}

export type SupervisorEvent =
  | { type: 'started'; name: string; pid: number }
  | { type: 'ready'; name: string; ms: number }
  | { type: 'exited'; name: string; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'restarting'; name: string; inMs: number; restarts: number }
  | { type: 'stopped'; name: string };

export class Supervisor {
  private readonly managed: Managed[] = [];
  private stopping = false;

  constructor(private readonly onEvent: (event: SupervisorEvent) => void = () => undefined) {}

  /** Starts the process and waits until its readiness probe passes. */
  async start(spec: ProcessSpec): Promise<void> {
    const m: Managed = { spec, child: undefined, restarts: 0, startedAt: 0, log: undefined, exited: undefined };
    this.managed.push(m);
    await this.launch(m);
    await this.waitReady(m);
  }

  pid(name: string): number | undefined {
    return this.managed.find((m) => m.spec.name === name)?.child?.pid;
  }

  pids(): number[] {
    return this.managed.flatMap((m) => (m.child?.pid ? [m.child.pid] : []));
  }

  private async launch(m: Managed): Promise<void> {
    const { spec } = m;
    await spec.beforeStart?.();
    if (this.stopping) return;
    if (spec.output !== 'inherit' && !m.log) {
      mkdirSync(path.dirname(spec.output.file), { recursive: true });
      m.log = createWriteStream(spec.output.file, { flags: 'a' });
    }
    // detached: each process leads its own group, so a stop reaches the children it spawns too.
    const [command, args] = withParentDeathSignal(spec.command, spec.args, spec.stopSignal ?? 'SIGTERM', spec.user);
    const child = spawn(command, args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (spec.watch) {
      for (const stream of [child.stdout, child.stderr]) stream?.on('data', lineSplitter(spec.watch));
    }
    if (m.log) {
      child.stdout?.pipe(m.log, { end: false });
      child.stderr?.pipe(m.log, { end: false });
    } else {
      child.stdout?.on('data', (chunk: Buffer) => relay(process.stdout, chunk));
      child.stderr?.on('data', (chunk: Buffer) => relay(process.stderr, chunk));
    }
    m.child = child;
    m.startedAt = Date.now();
    if (child.pid) this.onEvent({ type: 'started', name: spec.name, pid: child.pid });
    m.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.onEvent({ type: 'exited', name: spec.name, code, signal });
        resolve();
        if (m.child === child) m.child = undefined;
        if (!this.stopping) this.scheduleRestart(m);
      });
      child.on('error', () => {
        // spawn failure (ENOENT…): reported through 'exit' where it happens; keep the process alive.
      });
    });
  }

  private scheduleRestart(m: Managed): void {
    // A process that ran for a while before crashing restarts at once; one that keeps crashing backs off.
    const ranMs = Date.now() - m.startedAt;
    if (ranMs > 30_000) m.restarts = 0;
    const inMs = Math.min(500 * 2 ** m.restarts, 15_000);
    m.restarts += 1;
    this.onEvent({ type: 'restarting', name: m.spec.name, inMs, restarts: m.restarts });
    setTimeout(() => {
      if (!this.stopping) void this.launch(m).catch(() => this.scheduleRestart(m));
    }, inMs).unref();
  }

  private async waitReady(m: Managed): Promise<void> {
    const { spec } = m;
    if (!spec.ready) return;
    const started = Date.now();
    const timeout = spec.readyTimeoutMs ?? 60_000;
    while (Date.now() - started < timeout) {
      if (this.stopping) throw new Error(`stopped while waiting for ${spec.name}`);
      if (await spec.ready().catch(() => false)) {
        this.onEvent({ type: 'ready', name: spec.name, ms: Date.now() - started });
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const where = spec.output === 'inherit' ? '' : ` (see ${spec.output.file})`;
    throw new Error(`${spec.name} did not become ready within ${Math.round(timeout / 1000)}s${where}`);
  }

  /** Stops every process, newest first, and waits until all have exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const m of [...this.managed].reverse()) {
      await this.stopOne(m);
      this.onEvent({ type: 'stopped', name: m.spec.name });
    }
  }

  private async stopOne(m: Managed): Promise<void> {
    const child = m.child;
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      signalGroup(child.pid, m.spec.stopSignal ?? 'SIGTERM');
      const timeout = m.spec.stopTimeoutMs ?? 15_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        m.exited!.then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), timeout);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) signalGroup(child.pid, 'SIGKILL');
      await m.exited;
    }
    // Whatever the leader left in its group (a grandchild that ignored the signal) goes too.
    if (child?.pid) signalGroup(child.pid, 'SIGKILL');
    await m.spec.afterStop?.().catch(() => undefined);
    m.log?.end();
  }
}

/** Calls `see` with each whole line of a stream's chunks (a line split across chunks is joined). */
function lineSplitter(see: (line: string) => void): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        see(line);
      } catch {
        // a watcher's fault must not stop the relay
      }
    }
  };
}

/**
 * Writes a child's output to ours unless ours is gone. Always consumes the child's pipe: a child
 * whose pipe filled up would block on its next log line.
 */
function relay(to: NodeJS.WriteStream, chunk: Buffer): void {
  if (to.writable && !to.destroyed) to.write(chunk);
}

/**
 * Our stdout and stderr stop throwing once their reader is gone (EPIPE when `| tee` or
 * `| pino-pretty` died of the same Ctrl-C): output is dropped and the stop goes on.
 */
export function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

let setprivPath: string | null | undefined;

/**
 * `setpriv --pdeathsig <signal> -- cmd args` where util-linux's setpriv exists (Linux); else as is.
 * With a user, setpriv changes to it first (the kernel clears a parent-death signal set before a
 * change of user; setpriv sets it after).
 */
function withParentDeathSignal(command: string, args: string[], signal: NodeJS.Signals, user?: string): [string, string[]] {
  if (setprivPath === undefined) {
    const found = process.platform === 'linux' ? spawnSync('setpriv', ['--pdeathsig', 'SIGTERM', '--', 'true'], { stdio: 'ignore' }) : undefined;
    setprivPath = found?.status === 0 ? 'setpriv' : null;
  }
  if (!setprivPath) {
    if (user) throw new Error(`running ${command} as ${user} needs util-linux's setpriv`);
    return [command, args];
  }
  const asUser = user ? [`--reuid=${user}`, `--regid=${user}`, '--init-groups'] : [];
  return [setprivPath, [...asUser, '--pdeathsig', signal, '--', command, ...args]];
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
