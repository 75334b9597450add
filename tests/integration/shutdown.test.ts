/** A service process on SIGTERM: in-flight requests finish, then it exits 0 and closes its port. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../ops/dev-services';
import { ROOT } from '../helpers/processes';
import { tokenFor } from '../helpers/service';

jest.setTimeout(60_000);

it('finishes an in-flight request before exiting on SIGTERM', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'api/support/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, SUPPORT_PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 200) throw new Error(`service did not come up:\n${logs}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const token = await tokenFor('op', ['platform.ops']);
  // The smoke request goes through Temporal and the worker: it is in flight for a few hundred ms.
  const inFlight = fetch(`${base}/ops/smoke`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { verified: boolean } }).data.verified).toBe(true);
  expect(await exited).toBe(0);
  expect(logs).toContain('"msg":"stopped"');
  await expect(fetch(`${base}/health`)).rejects.toThrow();
});
