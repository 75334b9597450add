import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BINARIES, cachedBinaryPath, resolveBinary } from '../../ops/binaries';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'bins-'));
function fakeBinary(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\necho fake\n');
  chmodSync(file, 0o755);
  return file;
}
const noGo = { PATH: '/nonexistent' };
const log = () => undefined;

describe('dev-service binaries', () => {
  it('uses the *_BIN variable first', async () => {
    const bin = fakeBinary(path.join(tmp(), 'my-temporal'));
    await expect(resolveBinary(BINARIES.temporal, { configured: bin, cacheDir: tmp(), searchPath: '', log, env: noGo })).resolves.toBe(bin);
  });

  it('names the variable when it points to nothing executable', async () => {
    await expect(
      resolveBinary(BINARIES.minio, { configured: '/no/such/minio', cacheDir: tmp(), searchPath: '', log, env: noGo }),
    ).rejects.toThrow('MINIO_BIN=/no/such/minio is not an executable file');
  });

  it('then PATH, then the cache', async () => {
    const dir = tmp();
    const onPath = fakeBinary(path.join(dir, 'ferretdb'));
    await expect(resolveBinary(BINARIES.ferretdb, { configured: undefined, cacheDir: tmp(), searchPath: dir, log, env: noGo })).resolves.toBe(onPath);
    const cache = tmp();
    const cached = fakeBinary(cachedBinaryPath(BINARIES.ferretdb, cache));
    expect(cached).toContain(`ferretdb-${BINARIES.ferretdb.version}`);
    await expect(resolveBinary(BINARIES.ferretdb, { configured: undefined, cacheDir: cache, searchPath: '', log, env: noGo })).resolves.toBe(cached);
  });

  it('without a binary or Go, says what to install or which variable to set', async () => {
    await expect(
      resolveBinary(BINARIES.temporal, { configured: undefined, cacheDir: tmp(), searchPath: '', log, env: noGo }),
    ).rejects.toThrow(/temporal not found: set TEMPORAL_BIN .* or install Go .* github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1/);
  });

  it('pins the versions the foundation issue names', () => {
    expect(BINARIES.temporal.version).toBe('v1.5.1');
    expect(BINARIES.ferretdb.version).toBe('v2.7.0');
    expect(BINARIES.minio.version).toMatch(/^v0\.0\.0-\d{14}-[0-9a-f]{12}$/);
  });
});

describe('building a binary from the Go module proxy', () => {
  // The same download → copy → prepare → `go build` path the dev services take on a cold machine,
  // with a tiny module so it runs in seconds.
  it('builds, caches and then reuses the binary', async () => {
    const { execFileSync } = await import('node:child_process');
    const cacheDir = tmp();
    const prepared: string[] = [];
    const spec = {
      ...BINARIES.temporal,
      name: 'temporal' as const,
      module: 'golang.org/x/example/hello',
      pkg: 'golang.org/x/example/hello',
      version: 'v0.0.0-20250915201037-7f05d217867b',
      prepare: (dir: string) => prepared.push(dir),
    };
    const lines: string[] = [];
    const bin = await resolveBinary(spec, { configured: undefined, cacheDir, searchPath: '', log: (l) => lines.push(l) });
    expect(bin).toBe(cachedBinaryPath(spec, cacheDir));
    expect(execFileSync(bin, [], { encoding: 'utf8' })).toMatch(/Hello, world!/);
    expect(prepared).toHaveLength(1);
    expect(lines[0]).toMatch(/building temporal v0\.0\.0-20250915201037-7f05d217867b from the Go module proxy/);
    expect(lines.some((l) => /^built temporal in \d+s/.test(l))).toBe(true);
    // A second resolution finds the cached binary and builds nothing.
    const again: string[] = [];
    await expect(resolveBinary(spec, { configured: undefined, cacheDir, searchPath: '', log: (l) => again.push(l) })).resolves.toBe(bin);
    expect(again).toEqual([]);
  }, 180_000);
});

describe('the Go toolchain of a build', () => {
  it('builds FerretDB v2.7 with the local Go (no GOTOOLCHAIN pin: its go.mod asks for 1.25, which an older Go fetches itself)', async () => {
    // A stand-in `go` on PATH records what it was asked and with which GOTOOLCHAIN.
    const dir = tmp();
    const moduleDir = path.join(dir, 'module');
    mkdirSync(path.join(moduleDir, 'build', 'version'), { recursive: true });
    const calls = path.join(dir, 'calls');
    fakeBinary(path.join(dir, 'bin', 'go'));
    writeFileSync(
      path.join(dir, 'bin', 'go'),
      `#!/bin/sh\necho "$GOTOOLCHAIN $*" >> ${calls}\n` +
        `case "$1" in mod) echo '{"Dir": "${moduleDir}"}';; build) touch "$4"; chmod +x "$4";; esac\n`,
    );
    const cacheDir = tmp();
    const bin = await resolveBinary(BINARIES.ferretdb, {
      configured: undefined, cacheDir, searchPath: '', log, env: { PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin` },
    });
    expect(bin).toBe(cachedBinaryPath(BINARIES.ferretdb, cacheDir));
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.trim() !== 'version')).toEqual([
      ' mod download -json github.com/FerretDB/FerretDB/v2@v2.7.0',
      ` build -trimpath -o ${bin}.tmp-${process.pid} ./cmd/ferretdb`,
    ]);
  });
});
