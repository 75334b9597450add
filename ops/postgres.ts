/**
 * The development database's PostgreSQL: Debian's PostgreSQL 15 copied into a private prefix in the
 * cache, with the extensions FerretDB v2 needs built into it (DocumentDB, pgvector, pg_cron), so
 * nothing is written into system directories and every clone reuses one build.
 *
 * Debian's PostgreSQL is relocatable: `pg_config` and the server find their lib and share
 * directories relative to their own location, so a copy of `lib/postgresql/15` and
 * `share/postgresql/15` under a new prefix is a complete installation that `make install` writes into.
 *
 * The C sources come from `../shared/vendor/` beside the repository or, elsewhere, from their
 * upstream repositories' tags; each is checked against the sha256 pinned here and kept in the
 * cache (`<cache>/sources`), so a clone anywhere on the machine finds them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withLock } from './binaries';

export const PG_MAJOR = 15;
/** Debian packages the build and the server need (the notes in shared/notes/dev-database.md). */
export const DEBIAN_PACKAGES = [
  `postgresql-${PG_MAJOR}`,
  `postgresql-server-dev-${PG_MAJOR}`,
  `postgresql-${PG_MAJOR}-postgis-3`,
  `postgresql-${PG_MAJOR}-rum`,
  'libbson-dev',
  'libpcre2-dev',
  'libintelrdfpmath-dev',
  'libicu-dev',
  'libkrb5-dev',
  'build-essential',
  'pkg-config',
  // sys/sdt.h, which DocumentDB's extended RUM includes.
  'systemtap-sdt-dev',
] as const;

export interface ExtensionSource {
  name: 'documentdb' | 'pgvector' | 'pg_cron';
  /** File name in the vendor directory (a `git archive` of the tag; top folder = name without .tar.gz). */
  file: string;
  sha256: string;
  repository: string;
  tag: string;
}

/** The pair FerretDB v2.5.0 names (its build/version/documentdb.go), and what DocumentDB needs. */
export const EXTENSION_SOURCES: ExtensionSource[] = [
  {
    name: 'pg_cron',
    file: 'pg_cron-1.6.3.tar.gz',
    sha256: '3580f4034021e62e459f9f7ab1f625774bfc534a9256844545da85d6f99c2f5b',
    repository: 'citusdata/pg_cron',
    tag: 'v1.6.3',
  },
  {
    name: 'pgvector',
    file: 'pgvector-0.8.0.tar.gz',
    sha256: '93df40ccdaaaa267d1275c1e6e773004a0e5ff8e14227934a4ec7e8205d0f608',
    repository: 'pgvector/pgvector',
    tag: 'v0.8.0',
  },
  {
    name: 'documentdb',
    file: 'documentdb-0.106.0-ferretdb-2.5.0.tar.gz',
    sha256: '3ba0408eee7c3bc67933da50034092ee77e2aa79b61234c1216b0a1ffac21df1',
    repository: 'FerretDB/documentdb',
    tag: 'v0.106.0-ferretdb-2.5.0',
  },
];

/** Bump when the recipe below changes, so an older build is not reused. */
const RECIPE = 7;

export class PostgresSetupError extends Error {
  override name = 'PostgresSetupError';
}

export function postgresPrefix(cacheDir: string): string {
  return path.join(cacheDir, 'postgresql', `pg${PG_MAJOR}-documentdb-0.106.0-r${RECIPE}`);
}

export function postgresBin(prefix: string, tool: string): string {
  return path.join(prefix, 'lib', 'postgresql', String(PG_MAJOR), 'bin', tool);
}

export interface PostgresBuildOptions {
  cacheDir: string;
  /** Where the extension sources may already be (shared/vendor beside the repository). */
  vendorDir: string;
  log: (line: string) => void;
}

/**
 * The private PostgreSQL prefix with every extension installed, built the first time. Built in
 * place (DocumentDB links its second library with an absolute RUNPATH to the first): a build that
 * was interrupted has no `.complete` and is started again from nothing.
 */
export async function ensurePostgres(o: PostgresBuildOptions): Promise<string> {
  const prefix = postgresPrefix(o.cacheDir);
  const complete = path.join(prefix, '.complete');
  keepVendoredSources(o);
  if (existsSync(complete)) return prefix;
  await withLock(path.join(o.cacheDir, 'locks', path.basename(prefix)), o.log, async () => {
    if (existsSync(complete)) return;
    ensureDebianPackages(o.log);
    const started = Date.now();
    o.log(`building PostgreSQL ${PG_MAJOR} with DocumentDB, pgvector and pg_cron into ${prefix} (first time only; about two minutes)…`);
    rmSync(prefix, { recursive: true, force: true });
    await build(prefix, o);
    writeFileSync(complete, new Date().toISOString());
    o.log(`built PostgreSQL with DocumentDB in ${Math.round((Date.now() - started) / 1000)}s`);
  });
  return prefix;
}

function missingPackages(): string[] {
  return DEBIAN_PACKAGES.filter((pkg) => {
    const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
    return r.status !== 0 || !r.stdout.includes('install ok installed');
  });
}

function ensureDebianPackages(log: (line: string) => void): void {
  if (spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new PostgresSetupError(
      'the development database is built from Debian packages (dpkg not found): set MONGODB_URI to a MongoDB server instead',
    );
  }
  const missing = missingPackages();
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new PostgresSetupError(`the development database needs Debian packages; run once as root: sudo ${command}`);
  }
  log(`installing Debian packages for the development database: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '-q', ...missing], { stdio: ['ignore', 'pipe', 'pipe'], env });
  if (r.status !== 0) {
    // A fresh machine's package lists may be empty or stale.
    spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore', env });
    r = spawnSync('apt-get', ['install', '-y', '-q', ...missing], { stdio: ['ignore', 'pipe', 'pipe'], env });
  }
  if (r.status !== 0) throw new PostgresSetupError(`${command} failed:\n${r.stderr.toString().slice(-2000)}`);
}

async function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new PostgresSetupError(`${cmd} ${args.join(' ')} (in ${cwd}) exited with code ${code}:\n${output}`)),
    );
  });
}

/** Where checked source archives are kept. */
export const sourcesDir = (cacheDir: string) => path.join(cacheDir, 'sources');

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Writes a source archive into the cache once its bytes match the pinned sha256 (`origin` names where they came from). */
function keep(src: ExtensionSource, data: Buffer, origin: string, cacheDir: string): string {
  const actual = sha256(data);
  if (actual !== src.sha256) throw new PostgresSetupError(`${origin}: sha256 ${actual}, expected ${src.sha256}`);
  mkdirSync(sourcesDir(cacheDir), { recursive: true });
  const kept = path.join(sourcesDir(cacheDir), src.file);
  const partial = `${kept}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, kept);
  return kept;
}

/**
 * Copies the vendored sources the cache does not hold yet (no download; cheap once done), so a
 * clone away from shared/ finds them too. A vendored file that does not match its pin is left
 * where it is: a build that needs it says so (sourceArchive).
 */
function keepVendoredSources(o: PostgresBuildOptions): void {
  for (const src of EXTENSION_SOURCES) {
    const vendored = path.join(o.vendorDir, src.file);
    if (existsSync(path.join(sourcesDir(o.cacheDir), src.file)) || !existsSync(vendored)) continue;
    const data = readFileSync(vendored);
    if (sha256(data) === src.sha256) keep(src, data, vendored, o.cacheDir);
  }
}

/**
 * The checked source archive of one extension: kept in the cache, else the vendored copy, else
 * downloaded from the upstream tag (each checked against the pinned sha256 and then kept).
 */
export async function sourceArchive(src: ExtensionSource, o: PostgresBuildOptions): Promise<string> {
  const kept = path.join(sourcesDir(o.cacheDir), src.file);
  if (existsSync(kept)) return kept;
  const vendored = path.join(o.vendorDir, src.file);
  if (existsSync(vendored)) return keep(src, readFileSync(vendored), vendored, o.cacheDir);
  const url = `https://github.com/${src.repository}/archive/refs/tags/${src.tag}.tar.gz`;
  o.log(`  ${src.file} is not in ${o.vendorDir}: downloading ${src.repository} ${src.tag}`);
  const res = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  if (!res.ok) throw new PostgresSetupError(`downloading ${url}: HTTP ${res.status}`);
  return keep(src, Buffer.from(await res.arrayBuffer()), url, o.cacheDir);
}

/** Unpacks an archive whatever its top folder is called, into `dir`. */
async function unpack(archive: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await run('tar', ['-xzf', archive, '-C', dir, '--strip-components=1'], dir, process.env);
}

/** Replaces `from` with `to` in a source file; fails loudly when a new version no longer has `from`. */
export function patchSource(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new PostgresSetupError(`cannot patch ${file}: expected text not found (${from.slice(0, 80)}…)`);
  writeFileSync(file, text.replace(from, to));
}

const ADD_TO_SET_FUNCTION = `static void
AddToSetWriteFinalArray(UpdateOperatorWriter *writer,
						const bson_value_t *existingValue,
						const bson_value_t *elementsToAdd,
						const bool isEach)
{
	bson_iter_t currentArrayIter;
`;

const ALTERNATE_AM_CONDITION = `		if ((IsUniqueIndex(indexDef) && indexAm->is_unique_index_supported) ||`;

const CONTEXT_LAST_FIELD = `	ForceIndexQueryOperatorData forceIndexQueryOpData;
} ReplaceExtensionFunctionContext;`;

const CONSIDER_PUSHDOWN_DECL = `void ConsiderIndexOrderByPushdown(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte,`;

const CONSIDER_PUSHDOWN_DEF = `void
ConsiderIndexOrderByPushdown(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte,
							 Index rti, ReplaceExtensionFunctionContext *context)
{`;

const CONSIDER_PUSHDOWN_LOOP = `	/* Now match the sort to any index paths */
	List *pathsToAdd = NIL;
	ListCell *cell;
	foreach(cell, rel->pathlist)`;

const NEW_HOOK_REPLACE = `	if (indexContext.forceIndexQueryOpData.type != ForceIndexOpType_None)
	{
		ForceIndexForQueryOperators(root, rel, &indexContext);
	}

	/*
	 * Replace all function operators that haven't been transformed in indexed
	 * paths into OpExpr clauses.
	 */
	ReplaceExtensionFunctionOperatorsInPaths(root, rel, rel->pathlist, PARENTTYPE_NONE,
											 &indexContext);`;

const EMPTIED_ENTRY_SKIP = `		if (entry->nlist == 0)
		{
			if (needUnlock)
			{
				LockBuffer(so->orderStack->buffer, RUM_UNLOCK);
			}

			/* Dead tuple due to vacuum, move forward */
			so->orderStack->off++;
			continue;
		}`;

/**
 * DocumentDB 0.106 writes an array field twice when `$addToSet` adds nothing (every value already
 * there) and another operator of the same update changes the document: the operator writes the
 * unchanged array, then the caller, seeing no modification, writes the original value again. The
 * stored document then holds the field twice, and each repeat doubles it (found by fuzzing: a
 * preferences document reached 12 MB, then every update failed "larger than MaxDocumentSize").
 * The patch makes `$addToSet` write nothing when it adds nothing, so the caller's copy is the only
 * one. Checked by tests/integration/database.test.ts.
 */
export function patchDocumentDb(dir: string): void {
  patchSource(
    path.join(dir, 'pg_documentdb', 'src', 'update', 'bson_update_operators.c'),
    ADD_TO_SET_FUNCTION,
    `/* Whether $addToSet adds any value not yet in the existing array (patched in, see ops/postgres.ts). */
static bool
AddToSetAddsAnything(const bson_value_t *existingValue, const bson_value_t *elementsToAdd,
					 const bool isEach)
{
	bson_iter_t newIter;
	bson_value_t single = *elementsToAdd;
	bool iterate = isEach;
	if (iterate)
	{
		BsonValueInitIterator(elementsToAdd, &newIter);
	}

	while (iterate ? bson_iter_next(&newIter) : true)
	{
		const bson_value_t *newValue = iterate ? bson_iter_value(&newIter) : &single;
		bool found = false;
		bson_iter_t existingIter;
		BsonValueInitIterator(existingValue, &existingIter);
		while (!found && bson_iter_next(&existingIter))
		{
			found = BsonValueEquals(bson_iter_value(&existingIter), newValue);
		}

		if (!found)
		{
			return true;
		}

		if (!iterate)
		{
			break;
		}
	}

	return false;
}


${ADD_TO_SET_FUNCTION}
	if (existingValue->value_type != BSON_TYPE_EOD &&
		!AddToSetAddsAnything(existingValue, elementsToAdd, isEach))
	{
		return;
	}
`,
  );
  // DocumentDB 0.106 routes an index to the alternate access method when any of its kinds is
  // supported there: a unique index on one path or several goes to the extended RUM, which has no
  // unique operator class, and creating it fails ("operator class …unique_shard_path_ops does not
  // exist"). Unique indexes stay on the plain RUM (exclusion constraints), as the function's own
  // capability flags mean; every other index goes to the extended RUM.
  patchSource(
    path.join(dir, 'pg_documentdb', 'src', 'commands', 'create_indexes.c'),
    ALTERNATE_AM_CONDITION,
    `		if (IsUniqueIndex(indexDef) && !indexAm->is_unique_index_supported)
		{
			return GetBsonIndexAmByIndexAmName("rum");
		}

${ALTERNATE_AM_CONDITION}`,
  );
  // The extended RUM's range scan (MoveScanForward, used by bitmap and ordered scans) steps over
  // an index entry whose items vacuum removed, but releases the entry page's lock before going on
  // to read that page again: the next read is unlocked, and the next release fails with "lock
  // BufferContent is not held". Every query whose range crosses such an entry failed until the
  // index was rebuilt (found by fuzzing: soft-deleted tickets leave `{deletedAt: null, _id}`
  // entries empty once autovacuum runs, then every ticket list answered 500). The patch keeps the
  // lock across the step (taking it again after a posting tree was opened, whose pages it
  // releases). Checked by tests/integration/database.test.ts.
  patchSource(
    path.join(dir, 'internal', 'pg_documentdb_extended_rum', 'src', 'rumget.c'),
    EMPTIED_ENTRY_SKIP,
    `		if (entry->nlist == 0)
		{
			/* Every item of this entry was removed by vacuum: move forward, holding the entry
			 * page's lock as the loop expects (patched, see ops/postgres.ts). */
			if (!needUnlock)
			{
				if (entry->gdi)
				{
					freeRumBtreeStack(entry->gdi->stack);
					pfree(entry->gdi);
					entry->gdi = NULL;
				}
				entry->buffer = InvalidBuffer;
				if (entry->list)
				{
					pfree(entry->list);
					entry->list = NULL;
				}
				LockBuffer(so->orderStack->buffer, RUM_SHARE);
			}

			so->orderStack->off++;
			continue;
		}`,
  );
  // The extended RUM's ordered scan of an array index (entityIds, tickers, terms) drops repeats of
  // a row with a row-id bitmap, and fails once that bitmap turns lossy ("Cannot iterate over a
  // lossy check on order by"). It sized the bitmap with work_mem in kilobytes where PostgreSQL's
  // tbm_create takes bytes: 4 kB instead of 4 MB, so a scan over more than some 50 heap pages
  // failed (found by bench:news: half the searches at 100,000 articles answered 500). The patch
  // passes bytes, as PostgreSQL's own bitmap scans do. Checked by tests/unit/postgres.test.ts.
  const multiKey = path.join(dir, 'internal', 'pg_documentdb_extended_rum', 'src', 'rum_multi_key_support.c');
  patchSource(multiKey, 'state->bitmap = tbm_create(work_mem, NULL);', 'state->bitmap = tbm_create(work_mem * 1024L, NULL); /* bytes (patched, see ops/postgres.ts) */');
  // The order-by push-down turns an index path the planner kept into an ordered one. PostgreSQL
  // keeps one unordered path per filter when several indexes answer it at the same cost (say
  // {sector, publishedAt}, {sector, baseScore}, {sector, urgencyLevel}): only that index's order
  // could be pushed down, and every other sort of the same filter was a Sort over all matching
  // rows. The patch also builds each orderable index's own paths (as DocumentDB's index hints do:
  // the index list narrowed to one, create_index_paths, before the function operators are
  // replaced) and offers them to the push-down, which adds an ordered path only where an index
  // serves the sort. Checked by tests/integration/list-plans.test.ts.
  const bsonIndexSupport = path.join(dir, 'pg_documentdb', 'include', 'opclass', 'bson_index_support.h');
  patchSource(bsonIndexSupport, CONTEXT_LAST_FIELD, `	ForceIndexQueryOperatorData forceIndexQueryOpData;

	/* Index paths of each orderable index, for the order-by push-down (patched in, see ops/postgres.ts) */
	List *orderByCandidatePaths;
} ReplaceExtensionFunctionContext;`);
  patchSource(bsonIndexSupport, CONSIDER_PUSHDOWN_DECL, `List * GenerateOrderByPushdownCandidatePaths(PlannerInfo *root, RelOptInfo *rel);
${CONSIDER_PUSHDOWN_DECL}`);
  const indexSupport = path.join(dir, 'pg_documentdb', 'src', 'opclass', 'index_support.c');
  patchSource(indexSupport, CONSIDER_PUSHDOWN_DEF, `/*
 * The index paths of every orderable index the planner's path list does not already hold, each
 * built with the index list narrowed to that index (patched in, see ops/postgres.ts).
 */
List *
GenerateOrderByPushdownCandidatePaths(PlannerInfo *root, RelOptInfo *rel)
{
	if (list_length(root->query_pathkeys) < 1 || list_length(rel->indexlist) < 2)
	{
		return NIL;
	}

	List *oldIndexList = rel->indexlist;
	List *oldPathList = rel->pathlist;
	List *oldPartialPathList = rel->partial_pathlist;
	List *candidates = NIL;
	ListCell *indexCell;
	foreach(indexCell, oldIndexList)
	{
		IndexOptInfo *index = lfirst_node(IndexOptInfo, indexCell);
		if (index->nkeycolumns < 1 ||
			!IsOrderBySupportedOnOpClass(index->relam, index->opfamily[0]))
		{
			continue;
		}

		bool present = false;
		ListCell *pathCell;
		foreach(pathCell, oldPathList)
		{
			Path *path = lfirst(pathCell);
			if (IsA(path, BitmapHeapPath) &&
				IsA(((BitmapHeapPath *) path)->bitmapqual, IndexPath))
			{
				path = ((BitmapHeapPath *) path)->bitmapqual;
			}

			if (IsA(path, IndexPath) &&
				((IndexPath *) path)->indexinfo->indexoid == index->indexoid)
			{
				present = true;
				break;
			}
		}

		if (present)
		{
			continue;
		}

		rel->indexlist = list_make1(index);
		rel->pathlist = NIL;
		rel->partial_pathlist = NIL;
		create_index_paths(root, rel);
		candidates = list_concat(candidates, rel->pathlist);
	}

	rel->indexlist = oldIndexList;
	rel->pathlist = oldPathList;
	rel->partial_pathlist = oldPartialPathList;
	return candidates;
}


${CONSIDER_PUSHDOWN_DEF}`);
  patchSource(indexSupport, CONSIDER_PUSHDOWN_LOOP, `	/* Now match the sort to any index paths, and to each orderable index's own (patched in) */
	List *pathsToAdd = NIL;
	ListCell *cell;
	foreach(cell, list_concat_copy(rel->pathlist, context->orderByCandidatePaths))`);
  patchSource(path.join(dir, 'pg_documentdb', 'src', 'planner', 'documents_planner.c'), NEW_HOOK_REPLACE, `	/* Each orderable index's own paths, for the order-by push-down (patched in, see ops/postgres.ts) */
	if (EnableIndexOrderbyPushdown &&
		indexContext.forceIndexQueryOpData.type == ForceIndexOpType_None)
	{
		indexContext.orderByCandidatePaths = GenerateOrderByPushdownCandidatePaths(root, rel);
	}

${NEW_HOOK_REPLACE}
	ReplaceExtensionFunctionOperatorsInPaths(root, rel, indexContext.orderByCandidatePaths,
											 PARENTTYPE_NONE, &indexContext);`);
}

async function build(prefix: string, o: PostgresBuildOptions): Promise<void> {
  const work = path.join(prefix, 'build');
  mkdirSync(work, { recursive: true });
  // Sources first: a wrong checksum stops the build before anything is copied.
  const archives = new Map<ExtensionSource, string>();
  for (const src of EXTENSION_SOURCES) archives.set(src, await sourceArchive(src, o));

  // The private installation: Debian's server (with PostGIS and RUM, installed by the packages above).
  const pgLib = path.join(prefix, 'lib', 'postgresql');
  const pgShare = path.join(prefix, 'share', 'postgresql');
  mkdirSync(pgLib, { recursive: true });
  mkdirSync(pgShare, { recursive: true });
  mkdirSync(path.join(prefix, 'include'), { recursive: true });
  cpSync(`/usr/lib/postgresql/${PG_MAJOR}`, path.join(pgLib, String(PG_MAJOR)), { recursive: true, verbatimSymlinks: true });
  cpSync(`/usr/share/postgresql/${PG_MAJOR}`, path.join(pgShare, String(PG_MAJOR)), { recursive: true, verbatimSymlinks: true });
  symlinkSync('/usr/include/postgresql', path.join(prefix, 'include', 'postgresql'));
  const pgConfig = postgresBin(prefix, 'pg_config');

  // DocumentDB finds Intel's decimal math library by pkg-config; Debian ships the static library only.
  const pkgconfig = path.join(work, 'pkgconfig');
  mkdirSync(pkgconfig, { recursive: true });
  writeFileSync(
    path.join(pkgconfig, 'intelmathlib.pc'),
    ['Name: intelmathlib', 'Description: Intel decimal floating-point math (Debian libintelrdfpmath-dev)', 'Version: 2.0',
      'Cflags: -I/usr/include', 'Libs: -L/usr/lib/x86_64-linux-gnu -lbidgcc000', ''].join('\n'),
  );
  const env = {
    ...process.env,
    PKG_CONFIG_PATH: [pkgconfig, process.env.PKG_CONFIG_PATH].filter(Boolean).join(path.delimiter),
  };
  // No -march=native (the binaries are cached and may move) and no LLVM bitcode (it ignores COPT).
  const common = [`PG_CONFIG=${pgConfig}`, 'with_llvm=no', 'OPTFLAGS=', `-j${Math.min(4, os.availableParallelism())}`];
  for (const src of EXTENSION_SOURCES) {
    const dir = path.join(work, src.name);
    await unpack(archives.get(src)!, dir);
    o.log(`  building ${src.name} ${src.tag}…`);
    if (src.name === 'documentdb') {
      patchDocumentDb(dir);
      // Debian's libbson 1.23 lacks this one constant; a newer libbson defines it the same.
      const copt = 'COPT=-DBSON_SUBTYPE_SENSITIVE=0x08 -Wno-error=switch';
      // The extended RUM (internal/, which FerretDB's packaging leaves out) is the index access
      // method that can return rows in index order: without it every sorted page is a Sort node.
      for (const sub of ['pg_documentdb_core', 'pg_documentdb', 'internal/pg_documentdb_extended_rum']) {
        await run('make', ['-C', sub, ...common, copt], dir, env);
        await run('make', ['-C', sub, ...common, copt, 'install'], dir, env);
      }
    } else {
      await run('make', common, dir, env);
      await run('make', [...common, 'install'], dir, env);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

/**
 * The user PostgreSQL runs as: ourselves, or, as root (which PostgreSQL refuses), the `postgres`
 * user Debian's server package creates.
 */
export function databaseUser(uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return undefined;
  if (spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status !== 0) {
    throw new PostgresSetupError('running as root: the development database needs the "postgres" user (Debian package postgresql-15)');
  }
  return 'postgres';
}

/** `setpriv` to the user first, when there is one. */
function asUser(user: string | undefined, command: string, args: string[]): [string, string[]] {
  return user ? ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', command, ...args]] : [command, args];
}

/**
 * Creates the cluster the first time (`initdb`: trust authentication, which is safe only because
 * it listens on loopback alone and holds development data), owned by the database user.
 */
export function initCluster(prefix: string, dir: string, user: string | undefined): void {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) {
    // The user must reach the cluster: the data directory (a private temporary one in tests) gets
    // o+x, which lets through only those who know the names inside.
    const parent = path.dirname(dir);
    chmodSync(parent, statSync(parent).mode | 0o001);
    spawnSync('chown', ['-R', `${user}:${user}`, dir], { stdio: 'ignore' });
  }
  const [cmd, args] = asUser(user, postgresBin(prefix, 'initdb'), [
    '-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions',
  ]);
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new PostgresSetupError(`initdb ${dir} failed:\n${r.stdout}${r.stderr}`);
}

/**
 * Server settings: the extensions FerretDB needs preloaded, the `documentdb.*` settings FerretDB's
 * installation guide gives, loopback TCP only (no Unix socket), and no flush to disk per commit:
 * a crash of the machine may lose the last commits of this development database (never used in
 * production, where MONGODB_URI points to MongoDB).
 */
export function serverArgs(dir: string, port: number): string[] {
  const settings: Record<string, string | number | boolean> = {
    listen_addresses: '127.0.0.1',
    port,
    unix_socket_directories: '',
    shared_preload_libraries: 'pg_cron,pg_documentdb_core,pg_documentdb,pg_documentdb_extended_rum',
    'cron.database_name': 'postgres',
    // Every index on DocumentDB's extended RUM with the composite operator class, the one access
    // method of DocumentDB 0.106 that returns rows in index order, and the planner allowed to turn
    // sort + limit into an ordered index scan (docs/decisions.md, "Ordered index scans"). Indexes
    // built before these settings stay on the old method until rebuilt (`npm run cli -- migrate`).
    'documentdb.rum_library_load_option': 'require_documentdb_extended_rum',
    'documentdb.alternate_index_handler_name': 'extended_rum',
    'documentdb.defaultUseCompositeOpClass': true,
    'documentdb.enableIndexOrderbyPushdown': true,
    'documentdb.enableCompact': true,
    'documentdb.enableLetAndCollationForQueryMatch': true,
    'documentdb.enableNowSystemVariable': true,
    // Off: a sort ending in `_id` (every list's tiebreaker) would be sent to the primary key and
    // the ordered scan of the list's compound index abandoned (docs/decisions.md, "Ordered index scans").
    'documentdb.enableSortbyIdPushDownToPrimaryKey': false,
    'documentdb.enableSchemaValidation': true,
    'documentdb.enableBypassDocumentValidation': true,
    'documentdb.enableUserCrud': true,
    'documentdb.maxUserLimit': 100,
    // Off (DocumentDB's default): with the rest of a cursor kept in a file instead of a WITH HOLD
    // cursor, a find needing a second batch crashed its backend (signal 11 in
    // find_cursor_first_page; issue 34), and each crash left the extended RUM's ordered scans
    // failing. What it saved (~9 ms per cursor query on FerretDB v2.5) is measured in
    // docs/benchmarks.md ("Persisted cursors"); pages are read in one batch anyway.
    'documentdb.useFileBasedPersistedCursors': false,
    // Concurrent inserts of one key under a unique index (RUM exclusion constraints) insert, then
    // wait on each other's transactions; an unlucky order is a soft deadlock that PostgreSQL only
    // untangles when a wait reaches deadlock_timeout. At the default 1 s, 20 such inserts in a
    // loaded test run took 70 s (89 soft deadlocks, a second each, in CI's postgres.log). What
    // makes racing inserts come out as on MongoDB is the jittered retry (writeRacingOnUniqueKey);
    // 10 ms rather than 100 ms untangles each cycle sooner (`npm run bench:racing`).
    deadlock_timeout: '10ms',
    // A wait on a lock longer than deadlock_timeout is logged with who holds it
    // (DATA_DIR/logs/postgres.log): the trail for a write that hangs.
    log_lock_waits: true,
    // Statistics soon after a bulk load (an import, a seed): until the planner has them it may sort
    // a list in memory instead of reading it in index order. Seeds and benchmarks also run ANALYZE
    // themselves (ops/dev-database.ts).
    autovacuum_naptime: '10s',
    autovacuum_analyze_scale_factor: 0.05,
    // Memory a backend may take: 4 MB per sort or hash step before it spills to disk (PostgreSQL's
    // default, said here as the bound we rely on), and at most 1 GB of such spill files per
    // session; with FerretDB's 50 backends that is the database's ceiling on this 2-core machine.
    work_mem: '4MB',
    temp_file_limit: '1GB',
    // No flush to disk per commit: a crash of the machine may lose the last commits of this
    // development database, never its consistency after a crash of PostgreSQL alone.
    fsync: false,
    synchronous_commit: false,
    // On (PostgreSQL's default): with it off, a backend killed under writes left the extended
    // RUM's indexes broken after crash recovery (writes spinning for minutes, ordered pages failing
    // "right sibling of RUM page is of different type"); on, the same kills left every sorted page
    // right (issue 34; docs/decisions.md, "Crash safety of the development database").
    full_page_writes: true,
  };
  return ['-D', dir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v === true ? 'on' : v === false ? 'off' : v}`])];
}

export function postgresServerCommand(prefix: string, dir: string, port: number): { command: string; args: string[] } {
  return { command: postgresBin(prefix, 'postgres'), args: serverArgs(dir, port) };
}

/** Ready once it accepts connections and the DocumentDB extension exists (created the first time). */
export async function postgresReady(prefix: string, port: number): Promise<boolean> {
  const conn = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
  if (spawnSync(postgresBin(prefix, 'pg_isready'), [...conn, '-q'], { stdio: 'ignore' }).status !== 0) return false;
  const r = spawnSync(
    postgresBin(prefix, 'psql'),
    [...conn, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q',
      '-c', 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE',
      '-c', 'CREATE EXTENSION IF NOT EXISTS documentdb_extended_rum'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) throw new PostgresSetupError(`creating the documentdb extensions failed:\n${r.stderr}`);
  return true;
}

/** What /proc says of a process: its working directory and parent, or undefined when gone or not ours to read. */
function procInfo(pid: number): { cwd: string; ppid: number } | undefined {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return { cwd, ppid };
  } catch {
    return undefined;
  }
}

/**
 * The processes a killed postmaster left behind in its data directory: every PostgreSQL process
 * runs there (its working directory), and one whose parent is not a process of that directory has
 * lost its postmaster. Such a backend goes on running its query, holds the old shared memory, and
 * every new postmaster then refuses to start ("pre-existing shared memory block is still in use":
 * seen 11 times in 12 minutes until the backends were killed by hand). A live postmaster of the
 * directory (the pid in postmaster.pid) and its children are not orphans. Linux only (/proc).
 */
export function orphanedBackends(dir: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const target = realpathSync(dir);
  let postmaster: number | undefined;
  try {
    postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    postmaster = undefined;
  }
  const inDir = new Map<number, number>();
  for (const e of entries) {
    const info = procInfo(Number(e));
    if (info?.cwd === target) inDir.set(Number(e), info.ppid);
  }
  return [...inDir].filter(([pid, ppid]) => pid !== postmaster && !inDir.has(ppid)).map(([pid]) => pid);
}

/**
 * Ends the orphaned backends of a data directory (SIGKILL: they have no postmaster to answer to)
 * and waits until they are gone, so the next postmaster can take the shared memory. Returns them.
 */
export async function endOrphanedBackends(dir: string, timeoutMs = 10_000): Promise<number[]> {
  const orphans = orphanedBackends(dir);
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const end = Date.now() + timeoutMs;
  while (orphans.some((pid) => procInfo(pid) !== undefined) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return orphans;
}
