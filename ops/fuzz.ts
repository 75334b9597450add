/**
 * `npm run fuzz`: property-based tests of the three services' OpenAPI documents with schemathesis,
 * as an outside tester would run them, against the stack `npm test` provisions (this script runs
 * under `ops/test.ts --run`, which gives it every address).
 *
 * It starts the three APIs itself (rate limits raised through configuration, so the fuzzer meets
 * the code rather than a 429), signs a JWT holding every permission and creates a Business API key,
 * installs schemathesis into a virtual environment in the platform cache (outside the repository,
 * reused like the Go binaries), and runs the examples, coverage, fuzzing and stateful phases over
 * each `/openapi.json` for a bounded time.
 *
 * It fails on: a server error (5xx), a response that does not match its documented schema, an
 * undocumented status code or content type, input the document calls invalid being accepted (the
 * checks are listed in ops/fuzz/schemathesis.toml), and any API process that exits during the run
 * (a crash or a restart). One line per service and a closing `fuzz: N passed, N failed` line,
 * where N counts operations (schemathesis' JUnit report) plus one "no crash" test per service.
 *
 *   npm run fuzz                        (FUZZ_SECONDS per service, default 90)
 *   npm run fuzz -- --json out.json     (also writes {passed, failed, services} for CI)
 *   npm run fuzz -- --service support   (one service)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import mongoose from 'mongoose';
import { signToken } from '../models/auth/token.rules';
import { loadConfig } from '../models/config';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { createUserRepo } from '../models/users/user.repo';
import { createAccountRepo } from '../models/accounts/account.repo';
import { newCsrfToken, newSessionToken, sessionTokenHash } from '../models/accounts/sign-in.rules';
import { createStaffRepo } from '../models/staff/staff.repo';
import { defaultCacheDir } from './binaries';
import { freePort } from './dev-services';
import { pythonTool } from './python-tools';
import { appProcessSpecs, buildWeb } from './processes';
import { Supervisor } from './supervisor';

const ROOT = path.resolve(__dirname, '..');
const SCHEMATHESIS_VERSION = '4.32.5';
const SERVICES = ['news', 'support', 'quiz', 'web'] as const;
type Service = (typeof SERVICES)[number];

const say = (line: string) => process.stdout.write(`[fuzz] ${line}\n`);

/** schemathesis in a virtual environment of the cache, installed once per version. */
const schemathesis = (cacheDir: string): Promise<string> => pythonTool(cacheDir, { name: 'schemathesis', version: SCHEMATHESIS_VERSION, bin: 'st' }, say);

interface ServiceResult {
  service: Service;
  operations: number;
  failedOperations: number;
  crashed: string[];
  exitCode: number;
  report: string;
}

/** Operation counts from schemathesis' JUnit report: one test case per operation. */
export function junitCounts(xml: string): { tests: number; failed: number } {
  let tests = 0;
  let failed = 0;
  for (const m of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(m[1]!)?.[1] ?? 0);
    tests += attr('tests');
    failed += attr('failures') + attr('errors');
  }
  return { tests, failed };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { json: { type: 'string' }, service: { type: 'string', multiple: true } },
  });
  const only = (values.service ?? []) as Service[];
  for (const s of only) if (!SERVICES.includes(s)) throw new Error(`unknown service ${s} (${SERVICES.join(', ')})`);
  const services = only.length ? only : [...SERVICES];
  const seconds = Number(process.env.FUZZ_SECONDS ?? 90);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`FUZZ_SECONDS must be a whole number of seconds (got ${process.env.FUZZ_SECONDS})`);
  const config = loadConfig();
  const cacheDir = defaultCacheDir(config.devServices.cacheDir);
  const st = await schemathesis(cacheDir);
  // Kept after the run (the test stack's data directory is not): logs, JUnit reports.
  const outDir = path.join(ROOT, 'reports', 'fuzz');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  // The APIs, with limits high enough that the fuzzer is never throttled. Nothing else changes.
  const ports: Record<Service, number> = { news: await freePort(), support: await freePort(), quiz: await freePort(), web: await freePort() };
  const webOrigin = `http://127.0.0.1:${ports.web}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NEWS_PORT: String(ports.news),
    SUPPORT_PORT: String(ports.support),
    QUIZ_PORT: String(ports.quiz),
    WEB_PORT: String(ports.web),
    WEB_URL: webOrigin,
    WEB_SIGN_IN_PER_ADDRESS: '1000000',
    WEB_SIGN_IN_PER_IP: '1000000',
    WEB_VERIFY_PER_ADDRESS: '1000000',
    WEB_VERIFY_PER_IP: '1000000',
    NEWS_STARTER_PER_MINUTE: '1000000',
    NEWS_PRO_PER_MINUTE: '1000000',
    NEWS_BUSINESS_PER_MINUTE: '1000000',
    SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000',
    SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE: '1000000',
    AI_RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_USER_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1000000',
    NEWS_SANDBOX_PER_DAY: '1000000',
    // Registered MCP providers may not start processes during a fuzzing run: no stdio server is configured.
    AI_MCP_STDIO_PROVIDERS: '',
    LOG_LEVEL: 'warn',
  };
  const exits: Record<string, string[]> = {};
  const supervisor = new Supervisor((e) => {
    if (e.type === 'exited') (exits[e.name] ??= []).push(e.signal ?? `exit code ${e.code}`);
  });
  const stop = () => void supervisor.stop().then(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const results: ServiceResult[] = [];
  try {
    const apis = appProcessSpecs(env, (name) => ({ file: path.join(config.dataDir, 'logs', `fuzz-${name}.log`) })).filter((s) => SERVICES.includes(s.name as Service));
    // The dashboard's page (web/dist) is not what is fuzzed, but the service serves it: build it.
    if (services.includes('web')) await buildWeb(say);
    for (const spec of apis) await supervisor.start(spec);

    // Credentials: a JWT with every permission and a Business key with every scope. The key
    // belongs to another account than the token's, so the key routes the token may call (list,
    // revoke) can never revoke the key the rest of the run depends on.
    const token = await signToken(config.auth.jwtSecret!, { sub: 'fuzz-admin', email: 'fuzz@example.com', permissions: ['*'], expiresIn: '6h' });
    const conn = await mongoose.createConnection(config.mongo.uri!, { dbName: config.mongo.db }).asPromise();
    let apiKey: string;
    // The dashboard's session, as signing in makes it (the sign-in itself is fuzzed too; its
    // codes go to Mailpit, where nobody reads them).
    const sessionToken = newSessionToken();
    const csrfToken = newCsrfToken();
    try {
      await createUserRepo(conn).setPlan('fuzz-key-owner', 'business', 'fuzz-key-owner@example.com');
      ({ key: apiKey } = await createApiKeyRepo(conn).create({ userId: 'fuzz-key-owner', name: 'fuzz', mode: 'live', scopes: ['*'], expiresAt: null }));
      const now = new Date();
      await createAccountRepo(conn).createSession({ _id: sessionTokenHash(sessionToken), userId: 'fuzz-web', email: 'fuzz-web@example.com', csrfToken, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + 6 * 3600_000) });
      // An active staff owner (as the CLI's invitation and a sign-in leave it), so that the staff
      // routes are fuzzed beyond their 403. On the run's own database the run cannot take the role
      // away: it is the last active owner (409), and nobody it invites can sign in (the codes go
      // unread). Were it demoted, its calls would be documented 403s.
      await createStaffRepo(conn).insertMember({ _id: 'fuzz-web@example.com', roles: ['owner'], status: 'active', invitedBy: 'cli', invitedAt: now, activatedAt: now, updatedAt: now, version: 2 });
    } finally {
      await conn.close();
    }

    /**
     * The configuration for a service: ours, and for the dashboard its session as the value of
     * the `sessionCookie` scheme its document declares (read from the environment, never written).
     */
    const configFile = (service: Service) => {
      const base = path.join(__dirname, 'fuzz', 'schemathesis.toml');
      if (service !== 'web') return base;
      const file = path.join(outDir, 'web.schemathesis.toml');
      writeFileSync(file, `${readFileSync(base, 'utf8')}\n[auth.openapi.sessionCookie]\napi_key = "\${FUZZ_WEB_SESSION}"\n`);
      return file;
    };

    for (const service of services) {
      const report = path.join(outDir, `${service}.junit.xml`);
      const log = path.join(outDir, `${service}.log`);
      const args = [
        '--config-file', configFile(service),
        'run',
        `http://127.0.0.1:${ports[service]}/openapi.json`,
        '--phases', 'examples,coverage,fuzzing,stateful',
        '--max-time', String(seconds),
        '--workers', '2',
        ...(service === 'web'
          ? [
              // The session cookie goes through the document's own security scheme (configFile),
              // so that schemathesis knows a request without it is meant to be refused.
              '--header', `X-CSRF-Token: ${csrfToken}`,
              '--header', `Origin: ${webOrigin}`,
              // Signing out would end the session the rest of the run uses (Jest tests them).
              '--exclude-path-regex', '^/api/auth/sign-out',
            ]
          : ['--header', `Authorization: Bearer ${token}`, '--header', `X-API-Key: ${apiKey}`]),
        '--request-timeout', '30',
        '--suppress-health-check', 'all',
        '--generation-database', 'none',
        '--report', 'junit',
        '--report-junit-path', report,
        '--no-color',
      ];
      say(`${service}: fuzzing http://127.0.0.1:${ports[service]}/openapi.json for up to ${seconds}s (log: ${log})`);
      const pidBefore = supervisor.pid(service);
      const exitCode = await new Promise<number>((resolve) => {
        const child = spawn(st, args, {
          cwd: outDir,
          env: { ...process.env, SCHEMATHESIS_HOOKS: path.join(__dirname, 'fuzz', 'hooks.py'), FUZZ_WEB_SESSION: sessionToken },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => {
          // The credentials never reach a log: schemathesis prints reproduction commands.
          writeFileSync(log, out.split(token).join('<jwt>').split(apiKey).join('<api-key>').split(sessionToken).join('<session>').split(csrfToken).join('<csrf>'));
          resolve(code ?? 1);
        });
      });
      const counts = existsSync(report) ? junitCounts(readFileSync(report, 'utf8')) : { tests: 0, failed: 0 };
      const crashed = [...(exits[service] ?? [])];
      if (supervisor.pid(service) !== pidBefore && crashed.length === 0) crashed.push('restarted');
      results.push({ service, operations: counts.tests, failedOperations: counts.failed, crashed, exitCode, report });
      if (exitCode !== 0) {
        // What failed, in this run's own output (CI keeps it; the log file stays on the machine).
        const text = readFileSync(log, 'utf8');
        const start = text.search(/=+ (FAILURES|ERRORS) =+/);
        if (start >= 0) process.stdout.write(`${text.slice(start, start + 6_000).replace(/^/gm, `[fuzz:${service}] `)}\n`);
      }
      say(
        `${service}: ${counts.tests} operations, ${counts.failed} failed; ` +
          `${crashed.length ? `process exited (${crashed.join(', ')})` : 'process stayed up'}; schemathesis exit ${exitCode}` +
          (exitCode !== 0 || counts.failed ? ` — see ${log}` : ''),
      );
    }
  } finally {
    await supervisor.stop();
  }

  let passed = 0;
  let failed = 0;
  for (const r of results) {
    // A run that failed without reporting a failed operation (schema unreadable, tool error) counts as one.
    const unexplained = r.exitCode !== 0 && r.failedOperations === 0 ? 1 : 0;
    passed += r.operations - r.failedOperations + (r.crashed.length ? 0 : 1);
    failed += r.failedOperations + unexplained + (r.crashed.length ? 1 : 0);
  }
  if (results.length < services.length) failed += services.length - results.length;
  if (values.json) writeFileSync(values.json, JSON.stringify({ passed, failed, services: results }, null, 2));
  process.stdout.write(`fuzz: ${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`[fuzz] ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
