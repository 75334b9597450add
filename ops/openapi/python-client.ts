/**
 * Generates a Python client of each of the four OpenAPI documents with openapi-python-client (a
 * generator customers use; in a virtual environment of the platform cache) and fails on any
 * warning it prints, and on any operation it left out: a document a generator has to guess at, or
 * drops part of, gives customers a client without that part (issue 37: the Reenrichment model was
 * dropped this way). The generated code is compiled, then thrown away: the TypeScript clients are
 * the ones published (clients/).
 *
 *   npm run clients:python
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir } from '../binaries';
import { pythonTool } from '../python-tools';
import { writeOpenApiDocuments } from './docs';

const VERSION = '0.29.1';
/** Its configuration, as a customer would write it (ops/openapi/python-client.yaml). */
const CONFIG = path.join(__dirname, 'python-client.yaml');
const say = (line: string) => process.stdout.write(`[clients:python] ${line}\n`);

/** The generated modules of the operations: one `api/<tag>/<operation>.py` each. */
function operationModules(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.py') && e.name !== '__init__.py' && p.split(path.sep).includes('api')) found.push(p);
    }
  };
  walk(dir);
  return found;
}

async function main(): Promise<void> {
  const generator = await pythonTool(defaultCacheDir(process.env.PLATFORM_CACHE_DIR), { name: 'openapi-python-client', version: VERSION, bin: 'openapi-python-client' }, say);
  const work = mkdtempSync(path.join(os.tmpdir(), 'python-clients-'));
  const problems: string[] = [];
  try {
    for (const file of writeOpenApiDocuments(path.join(work, 'documents'))) {
      const service = path.basename(file, '.openapi.json');
      const out = path.join(work, service);
      const r = spawnSync(generator, ['generate', '--path', file, '--output-path', out, '--overwrite', '--meta', 'none', '--config', CONFIG], {
        encoding: 'utf8',
        // Its post-hooks (ruff) are in the same virtual environment.
        env: { ...process.env, PATH: `${path.dirname(generator)}${path.delimiter}${process.env.PATH ?? ''}` },
      });
      const output = `${r.stdout}${r.stderr}`;
      if (r.status !== 0) problems.push(`${service}: openapi-python-client exited with ${r.status}\n${output}`);
      else if (/warning/i.test(output)) problems.push(`${service}: openapi-python-client warned\n${output}`);
      const document = JSON.parse(readFileSync(file, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      const modules = r.status === 0 ? operationModules(out).length : 0;
      if (modules !== operations) problems.push(`${service}: ${operations} operations in the document, ${modules} generated`);
      const compiled = spawnSync('python3', ['-m', 'compileall', '-q', out], { encoding: 'utf8' });
      if (compiled.status !== 0) problems.push(`${service}: the generated client does not compile\n${compiled.stdout}${compiled.stderr}`);
      say(`${service}: ${modules} of ${operations} operations generated`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const p of problems) process.stderr.write(`${p}\n`);
  process.exitCode = problems.length ? 1 : 0;
}

if (require.main === module) void main();
