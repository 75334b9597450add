import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { defaultCacheDir } from '../../ops/binaries';
import { VENDOR_DIR } from '../../ops/dev-services';
import { databaseUser, endOrphanedBackends, ensurePostgres, EXTENSION_SOURCES, orphanedBackends, patchDocumentDb, postgresPrefix, serverArgs, sourceArchive } from '../../ops/postgres';

/** The source archives as provisioning finds them: kept in the platform cache, or vendored beside the repository. */
const archiveOf = (name: string) =>
  sourceArchive(EXTENSION_SOURCES.find((s) => s.name === name)!, { cacheDir: defaultCacheDir(process.env.PLATFORM_CACHE_DIR), vendorDir: VENDOR_DIR, log: () => undefined });

describe('the development database build', () => {
  it('pins the checksums of the source archives it builds from', async () => {
    for (const src of EXTENSION_SOURCES) {
      const bytes = readFileSync(await archiveOf(src.name));
      expect({ file: src.file, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({ file: src.file, sha256: src.sha256 });
    }
  });

  it('refuses a vendored archive whose checksum differs, before building anything', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'pgcache-'));
    const vendorDir = mkdtempSync(path.join(os.tmpdir(), 'vendor-'));
    mkdirSync(vendorDir, { recursive: true });
    for (const src of EXTENSION_SOURCES) writeFileSync(path.join(vendorDir, src.file), 'not the release');
    const lines: string[] = [];
    await expect(ensurePostgres({ cacheDir, vendorDir, log: (l) => lines.push(l) })).rejects.toThrow(/sha256 [0-9a-f]{64}, expected [0-9a-f]{64}/);
    expect(existsSync(path.join(postgresPrefix(cacheDir), '.complete'))).toBe(false);
    expect(existsSync(path.join(postgresPrefix(cacheDir), 'lib'))).toBe(false);
  });
});

describe('the DocumentDB patch', () => {
  it('applies to the pinned source, and fails loudly where the source no longer matches', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ddb-'));
    const file = 'pg_documentdb/src/update/bson_update_operators.c';
    const indexes = 'pg_documentdb/src/commands/create_indexes.c';
    const rumget = 'internal/pg_documentdb_extended_rum/src/rumget.c';
    const multiKey = 'internal/pg_documentdb_extended_rum/src/rum_multi_key_support.c';
    const planner = ['pg_documentdb/include/opclass/bson_index_support.h', 'pg_documentdb/src/opclass/index_support.c', 'pg_documentdb/src/planner/documents_planner.c'];
    const archive = await archiveOf('documentdb');
    execFileSync('tar', ['-xzf', archive, '-C', dir, '--strip-components=1', '--wildcards', `*/${file}`, `*/${indexes}`, `*/${rumget}`, `*/${multiKey}`, ...planner.map((f) => `*/${f}`)]);
    patchDocumentDb(dir);
    const patched = readFileSync(path.join(dir, file), 'utf8');
    expect(patched).toContain('AddToSetAddsAnything(existingValue, elementsToAdd, isEach)');
    // Unique indexes keep the plain RUM: the extended RUM has no unique operator class.
    expect(readFileSync(path.join(dir, indexes), 'utf8')).toMatch(/if \(IsUniqueIndex\(indexDef\) && !indexAm->is_unique_index_supported\)\s*\{\s*return GetBsonIndexAmByIndexAmName\("rum"\);/);
    // A range scan stepping over an entry vacuum emptied keeps the entry page locked.
    const scan = readFileSync(path.join(dir, rumget), 'utf8');
    expect(scan).toMatch(/if \(entry->nlist == 0\)\s*\{[^}]*?if \(!needUnlock\)/);
    expect(scan).not.toMatch(/if \(needUnlock\)\s*\{\s*LockBuffer\(so->orderStack->buffer, RUM_UNLOCK\);\s*\}\s*\/\* Dead tuple due to vacuum/);
    // The multi-key scan's row-id bitmap is sized in bytes, as tbm_create takes.
    expect(readFileSync(path.join(dir, multiKey), 'utf8')).toContain('state->bitmap = tbm_create(work_mem * 1024L, NULL);');
    // The order-by push-down is offered every orderable index's own paths.
    const [header, support, hook] = planner.map((f) => readFileSync(path.join(dir, f), 'utf8'));
    expect(header).toContain('List *orderByCandidatePaths;');
    expect(support).toMatch(/GenerateOrderByPushdownCandidatePaths\(PlannerInfo \*root, RelOptInfo \*rel\)\s*\{/);
    expect(support).toContain('foreach(cell, list_concat_copy(rel->pathlist, context->orderByCandidatePaths))');
    expect(hook).toContain('indexContext.orderByCandidatePaths = GenerateOrderByPushdownCandidatePaths(root, rel);');
    writeFileSync(path.join(dir, file), 'int main(void) { return 0; }\n');
    expect(() => patchDocumentDb(dir)).toThrow(/cannot patch .*bson_update_operators\.c: expected text not found/);
  });
});

describe('running it', () => {
  it('runs as the postgres user when we are root (PostgreSQL refuses root), else as ourselves', () => {
    expect(databaseUser(0)).toBe('postgres');
    expect(databaseUser(1000)).toBeUndefined();
  });

  it('listens on loopback TCP only, preloads what DocumentDB needs, in order', () => {
    const args = serverArgs('/data/pg', 5433);
    const settings = Object.fromEntries(args.filter((_, i) => args[i - 1] === '-c').map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
    expect(args.slice(0, 2)).toEqual(['-D', '/data/pg']);
    expect(settings).toMatchObject({
      listen_addresses: '127.0.0.1',
      port: '5433',
      unix_socket_directories: '',
      shared_preload_libraries: 'pg_cron,pg_documentdb_core,pg_documentdb,pg_documentdb_extended_rum',
      'cron.database_name': 'postgres',
      'documentdb.enableUserCrud': 'on',
      deadlock_timeout: '10ms',
    });
  });

  it('keeps what crashed off and what crash recovery needs on (issue 34)', () => {
    const args = serverArgs('/data/pg', 5433);
    const settings = Object.fromEntries(args.filter((_, i) => args[i - 1] === '-c').map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
    // A find needing a second batch crashed its backend with file-based persisted cursors.
    expect(settings['documentdb.useFileBasedPersistedCursors']).toBe('off');
    // Without full-page images, crash recovery left the extended RUM's indexes broken.
    expect(settings.full_page_writes).toBe('on');
    expect(settings).toMatchObject({ work_mem: '4MB', temp_file_limit: '1GB' });
  });
});

describe('orphaned backends (issue 34)', () => {
  it('finds the processes of a data directory whose parent is not one of them, spares a live postmaster and its children, and ends them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orphans-'));
    // An "orphan" runs in the directory with a parent elsewhere (here: us); its child runs there too,
    // as a backend's parent is the postmaster: only the first is an orphan.
    const orphan = spawn('sh', ['-c', 'sleep 60 & wait'], { cwd: dir, stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(orphanedBackends(dir)).toEqual([orphan.pid]);
      // The pid of postmaster.pid is a live postmaster, not an orphan.
      writeFileSync(path.join(dir, 'postmaster.pid'), `${orphan.pid}\n${dir}\n`);
      expect(orphanedBackends(dir)).toEqual([]);
      rmSync(path.join(dir, 'postmaster.pid'));
      expect(await endOrphanedBackends(dir)).toEqual([orphan.pid]);
      expect(orphan.signalCode ?? (await new Promise((r) => orphan.once('exit', (_c, s) => r(s))))).toBe('SIGKILL');
    } finally {
      orphan.kill('SIGKILL');
      await endOrphanedBackends(dir); // its child, orphaned in turn
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
