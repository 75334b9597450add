/**
 * Python tools the checks run (schemathesis for `npm run fuzz`, openapi-python-client for
 * `npm run clients:python`), each in a virtual environment of the platform cache, outside the
 * repository, installed once per version from PyPI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withLock } from './binaries';

/**
 * A Python 3, avoiding CPython 3.11 before 3.11.8: there schemathesis fails with "SystemError: AST
 * constructor recursion depth mismatch" (CPython gh-106905, fixed in 3.11.8 and 3.12), which ends
 * an operation's run as a tool error. Tries python3.13, python3.12, the versions pyenv holds (its
 * shims answer only for the selected one), then python3.
 */
export function findPython(say: (line: string) => void): { command: string; version: string } {
  const candidates = ['python3.13', 'python3.12'];
  const pyenvRoot = spawnSync('pyenv', ['root'], { encoding: 'utf8' });
  if (pyenvRoot.status === 0) {
    const versions = path.join(pyenvRoot.stdout.trim(), 'versions');
    const found = existsSync(versions) ? readdirSync(versions).filter((v) => /^3\.\d+\.\d+$/.test(v)) : [];
    found.sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    candidates.push(...found.map((v) => path.join(versions, v, 'bin', 'python3')));
  }
  candidates.push('python3');
  let fallback: { command: string; version: string } | undefined;
  for (const command of candidates) {
    const r = spawnSync(command, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2], sys.version_info >= (3, 11, 8))'], { encoding: 'utf8' });
    if (r.status !== 0) continue;
    const [version, fixed] = r.stdout.trim().split(' ');
    if (fixed === 'True') return { command, version: version! };
    fallback ??= { command, version: version! };
  }
  if (fallback) {
    say(`warning: only Python ${fallback.version} (before 3.11.8) found; schemathesis may report tool errors (CPython gh-106905)`);
    return fallback;
  }
  throw new Error('Python 3 is needed to install the Python tools (from PyPI): install python3 and run again');
}

/** The path of `bin` of the PyPI package `name==version`, installed into its own virtual environment of the cache. */
export async function pythonTool(cacheDir: string, tool: { name: string; version: string; bin: string }, say: (line: string) => void): Promise<string> {
  const python = findPython(say);
  const venv = path.join(cacheDir, `${tool.name}-${tool.version}-py${python.version}`);
  const bin = path.join(venv, 'bin', tool.bin);
  // Written last: a venv without it was interrupted while installing and is made again.
  const complete = path.join(venv, '.complete');
  if (existsSync(complete)) return bin;
  await withLock(path.join(cacheDir, 'locks', path.basename(venv)), say, async () => {
    if (existsSync(complete)) return;
    rmSync(venv, { recursive: true, force: true });
    say(`installing ${tool.name} ${tool.version} from PyPI into ${venv} (first time only)…`);
    const run = (cmd: string, args: string[]) => {
      const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    };
    run(python.command, ['-m', 'venv', venv]);
    run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `${tool.name}==${tool.version}`]);
    writeFileSync(complete, `${tool.version}\n`);
  });
  return bin;
}
