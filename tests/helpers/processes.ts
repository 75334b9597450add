/** Runs the project's own entry points as child processes (as an operator would). */
import { spawn } from 'node:child_process';
import path from 'node:path';

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
