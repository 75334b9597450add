/**
 * `npm test`: provisions the same dev services as `npm start` on free ports and in a throw-away
 * data directory (so it never collides with a running `npm start`), starts a worker, runs Jest
 * with any arguments given (`npm test -- tests/unit`), and tears everything down.
 *
 * With MONGODB_URI set, tests use that server with a database of their own, dropped at the end.
 *
 * `ops/test.ts --run <command…>` runs another command against the same provisioned stack (the
 * benchmarks use it): its environment carries every address.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { ConfigError, parseConfig } from '../models/config';
import { generateVapidKeys } from '../models/infra/web-push';
import { freePort, freePortRange, startDevServices, tcpOpen, type DevServicePorts } from './dev-services';
import { NEWS_WEB_SITE_PORTS, appProcessSpecs, buildWeb, childEnv, stopOnSignals, tsEntry } from './processes';
import { Supervisor } from './supervisor';
import { defaultCacheDir } from './binaries';
import { resolveTimeSkippingServer } from './time-skipping-server';

const ROOT = path.resolve(__dirname, '..');

/**
 * Processes tests started themselves (their own workers) carry this run's DATA_DIR; if a test
 * crashed before stopping them, they are found by it in /proc and killed, so a run leaves nothing.
 */
function reapStragglers(dataDir: string, say: (l: string) => void): void {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return; // not Linux: nothing to look at
  }
  for (const pid of entries) {
    if (Number(pid) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (env.includes(`DATA_DIR=${dataDir}`)) {
        process.kill(Number(pid), 'SIGKILL');
        say(`killed leftover process ${pid}`);
      }
    } catch {
      // gone, or not ours to read
    }
  }
}

/** A self-signed certificate for 127.0.0.1/localhost; tests serve HTTPS with it and trust it. */
async function testCertificate(dataDir: string): Promise<string> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    days: 2,
    keySize: 2048,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  } as never);
  const dir = path.join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'key.pem'), pems.private, { mode: 0o600 });
  writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
  return path.join(dir, 'cert.pem');
}

async function main(): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'newsletter-test-'));
  const say = (line: string) => process.stdout.write(`[test] ${line}\n`);
  let config;
  try {
    config = parseConfig({ ...process.env, NODE_ENV: 'test', DATA_DIR: dataDir });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78;
    }
    throw err;
  }
  const supervisor = new Supervisor((e) => {
    if (e.type === 'restarting') say(`restarting ${e.name} (#${e.restarts})`);
  });
  stopOnSignals(supervisor, say);

  const ports: DevServicePorts = {
    temporal: await freePort(),
    temporalUi: await freePort(),
    temporalHttp: await freePort(),
    temporalMetrics: await freePort(),
    ferretdb: await freePort(),
    postgres: await freePort(),
    minio: await freePort(),
    minioConsole: await freePort(),
    stripeMock: await freePort(),
    mailpitSmtp: await freePort(),
    mailpitUi: await freePort(),
  };
  const openaiPort = await freePort();
  const whatsappPort = await freePort();
  const pushPort = await freePort();
  const pushCertDir = path.join(dataDir, 'push-double');
  const vapid = generateVapidKeys();
  // The news sites double's control port, then its sites' ports (consecutive, so one allow-list entry names them).
  const newsWebPort = await freePortRange(1 + NEWS_WEB_SITE_PORTS);
  const webPort = await freePort();
  // The mail receiver's listeners, where a test serves them (tests start receivers in-process or
  // as a process of their own); never the defaults, which a developer's `npm start` may hold, and
  // inherited by the `npm start` stacks tests run (tests/integration/stack, start-signals).
  const mailSmtpPort = await freePort();
  const mailLmtpPort = await freePort();
  const externalMongo = config.mongo.uri;
  const mongoUri = externalMongo ?? `mongodb://127.0.0.1:${ports.ferretdb}/`;
  const mongoDb = externalMongo ? `test_${randomBytes(4).toString('hex')}` : config.mongo.db;
  say(`services in ${dataDir} (temporal :${ports.temporal}, minio :${ports.minio}, ${externalMongo ? `MONGODB_URI db ${mongoDb}` : `ferretdb :${ports.ferretdb} on postgres :${ports.postgres}`})`);

  const started = Date.now();
  let code = 1;
  // Fetched (first time only) while the dev services start; tests of workflow timing use it.
  const timeSkippingServer = resolveTimeSkippingServer({ configured: process.env.TEMPORAL_TEST_SERVER_BIN, cacheDir: defaultCacheDir(config.devServices.cacheDir), log: say });
  timeSkippingServer.catch(() => undefined);
  try {
    await startDevServices(supervisor, {
      dataDir,
      ports,
      namespace: config.temporal.namespace,
      minio: { accessKey: config.minio.accessKey, secretKey: config.minio.secretKey },
      ferretdb: !externalMongo,
      // Tests always use stripe-mock: a real key in the developer's shell must not be charged.
      stripeMock: true,
      // Mail always goes to Mailpit: tests read it back through its API (tests/helpers/mailpit.ts).
      mailpit: true,
      temporalUi: false,
      bins: config.devServices.bins,
      cacheDir: config.devServices.cacheDir,
      ferretdbDebugAddr: config.devServices.ferretdbDebugAddr,
      searchPath: process.env.PATH,
      log: say,
    });
    const env = childEnv(config, {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      MONGODB_URI: mongoUri,
      MONGODB_DB: mongoDb,
      // The development database's PostgreSQL, for statistics and index upkeep (ops/dev-database.ts).
      ...(externalMongo ? {} : { DEV_POSTGRES_PORT: String(ports.postgres) }),
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      MINIO_ENDPOINT: `http://127.0.0.1:${ports.minio}`,
      MINIO_ACCESS_KEY: config.minio.accessKey,
      MINIO_SECRET_KEY: config.minio.secretKey,
      JWT_SECRET: config.auth.jwtSecret!,
      // Every process mints and checks the desk's Message-IDs and file links with one key.
      SUPPORT_MAIL_SECRET: config.support.mail.secret,
      // Stripe's API is stripe-mock (Stripe's own wire-compatible mock); webhooks are signed with this secret.
      STRIPE_SECRET_KEY: 'sk_test_stripemock',
      STRIPE_API_URL: `http://127.0.0.1:${ports.stripeMock}`,
      STRIPE_WEBHOOK_SECRET: config.billing.webhookSecret!,
      // Mailgun's inbound webhook is signed with this key (tests sign their deliveries with it; the fuzzer's go unsigned: 401).
      MAILGUN_WEBHOOK_SIGNING_KEY: `key-${randomBytes(16).toString('hex')}`,
      // Mail goes to Mailpit, never to an SMTP server of the developer's shell.
      SMTP_URL: `smtp://127.0.0.1:${ports.mailpitSmtp}`,
      MAILPIT_URL: `http://127.0.0.1:${ports.mailpitUi}`,
      // The dashboard, where a test serves it (tests start their services in-process).
      WEB_PORT: String(webPort),
      WEB_URL: `http://127.0.0.1:${webPort}`,
      SUPPORT_MAIL_SMTP_PORT: String(mailSmtpPort),
      SUPPORT_MAIL_LMTP_PORT: String(mailLmtpPort),
      // The paid AI provider is replaced by a wire-compatible double (tests/doubles).
      OPENAI_BASE_URL: `http://127.0.0.1:${openaiPort}/v1`,
      OPENAI_API_KEY: 'test-key',
      // WhatsApp's Cloud API is a wire-compatible double (tests/doubles); webhooks are signed with this secret.
      WHATSAPP_API_URL: `http://127.0.0.1:${whatsappPort}/v21.0`,
      WHATSAPP_DOUBLE_URL: `http://127.0.0.1:${whatsappPort}`,
      WHATSAPP_ACCESS_TOKEN: `EAAtest${randomBytes(24).toString('hex')}`,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      WHATSAPP_APP_SECRET: randomBytes(16).toString('hex'),
      WHATSAPP_VERIFY_TOKEN: randomBytes(16).toString('hex'),
      WHATSAPP_RELAY_SCHEDULE_ENABLED: 'false',
      // Web Push goes to the push double (tests/doubles/push-double.ts, HTTPS with its own
      // certificate), which plays the browser too: its endpoints are on loopback, allowed here only.
      WEB_PUSH_VAPID_SUBJECT: 'mailto:push-tests@newsletter.example',
      WEB_PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
      WEB_PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
      WEB_PUSH_CA_FILE: path.join(pushCertDir, 'push-double.crt'),
      WEB_PUSH_ALLOW_HOSTS: `127.0.0.1:${pushPort}`,
      WEB_PUSH_TIMEOUT_MS: '3000',
      PUSH_DOUBLE_URL: `https://127.0.0.1:${pushPort}`,
      // The double of the news sites (its sites on the ports after its control port, on loopback,
      // which the fetcher's SSRF guard refuses unless allowed: those ports only, not Mailpit's or MinIO's).
      NEWS_WEB_DOUBLE_URL: `http://127.0.0.1:${newsWebPort}`,
      NEWS_FETCH_ALLOW_HOSTS: `127.0.0.1:${newsWebPort + 1}-${newsWebPort + NEWS_WEB_SITE_PORTS}`,
      // The double's slow host answers after 5 s: a poll gives up sooner.
      NEWS_FETCH_TIMEOUT_MS: '2000',
      // Every test's request comes from 127.0.0.1, and many test a 401: the limit of failed
      // authentications per client IP is tested with addresses of its own (route-limits.test.ts).
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1000000',
      // Provider timeouts are exercised in seconds, not minutes.
      AI_REQUEST_TIMEOUT_MS: '3000',
      // HTTP tools and MCP servers the tests run on loopback over TLS with a throw-away CA.
      AI_TOOL_HOST_ALLOWLIST: '127.0.0.1,localhost',
      AI_TOOL_CA_FILE: await testCertificate(dataDir),
      // The one stdio MCP server tests may start, by name: the MCP double (tests/doubles/mcp-server.ts).
      AI_MCP_STDIO_PROVIDERS: JSON.stringify({ 'style-guide': { command: process.execPath, args: ['--import', 'tsx', path.join(ROOT, 'tests/doubles/mcp-server.ts'), 'stdio', '100'] } }),
      // The shared worker makes no schedule that could fire mid-run; the schedule's test makes its own.
      QUIZ_SCHEDULE_ENABLED: 'false',
      BILLING_RELAY_SCHEDULE_ENABLED: 'false',
      SUPPORT_MAIL_RELAY_SCHEDULE_ENABLED: 'false',
      NEWS_DIGEST_SCHEDULE_ENABLED: 'false',
      NEWS_WEBHOOK_RELAY_SCHEDULE_ENABLED: 'false',
      // A staff reply's mail goes at once (the delay for files uploaded with it is tested on the time-skipping server).
      SUPPORT_MAIL_SEND_DELAY_SECONDS: '0',
      TEMPORAL_TEST_SERVER_BIN: await timeSkippingServer,
    });
    await supervisor.start({
      name: 'openai-double',
      ...tsEntry('tests/doubles/openai-double.main.ts'),
      args: [...tsEntry('tests/doubles/openai-double.main.ts').args, String(openaiPort)],
      env,
      cwd: ROOT,
      output: { file: path.join(dataDir, 'logs', 'openai-double.log') },
      ready: () => tcpOpen(openaiPort),
    });
    await supervisor.start({
      name: 'whatsapp-double',
      ...tsEntry('tests/doubles/whatsapp-double.main.ts'),
      args: [...tsEntry('tests/doubles/whatsapp-double.main.ts').args, String(whatsappPort)],
      env,
      cwd: ROOT,
      output: { file: path.join(dataDir, 'logs', 'whatsapp-double.log') },
      ready: () => tcpOpen(whatsappPort),
    });
    await supervisor.start({
      name: 'push-double',
      ...tsEntry('tests/doubles/push-double.main.ts'),
      args: [...tsEntry('tests/doubles/push-double.main.ts').args, String(pushPort), pushCertDir],
      env,
      cwd: ROOT,
      output: { file: path.join(dataDir, 'logs', 'push-double.log') },
      ready: () => tcpOpen(pushPort),
    });
    await supervisor.start({
      name: 'news-web-double',
      ...tsEntry('tests/doubles/news-web-double.main.ts'),
      // Its control API on the chosen port, its sites on the ones after it (listed at /__control/info).
      args: [...tsEntry('tests/doubles/news-web-double.main.ts').args, String(newsWebPort), '60000'],
      env,
      cwd: ROOT,
      output: { file: path.join(dataDir, 'logs', 'news-web-double.log') },
      ready: () => tcpOpen(newsWebPort),
    });
    const [worker] = appProcessSpecs(env, (name) => ({ file: path.join(dataDir, 'logs', `${name}.log`) }));
    // The dashboard's page, which the web service serves (its browser test opens it).
    await Promise.all([supervisor.start(worker!), buildWeb(say)]);
    const args = process.argv.slice(2);
    const [command, ...commandArgs] =
      args[0] === '--run' ? args.slice(1) : [process.execPath, path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), ...args];
    say(`services ready in ${((Date.now() - started) / 1000).toFixed(1)}s; running ${args[0] === '--run' ? args.slice(1).join(' ') : 'jest'}`);

    code = await new Promise<number>((resolve) => {
      const child = spawn(command!, commandArgs, { cwd: ROOT, env, stdio: 'inherit' });
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
  } catch (err) {
    say(`setup failed: ${(err as Error).message}`);
    code = 1;
  } finally {
    await supervisor.stop();
    reapStragglers(dataDir, say);
    if (externalMongo) {
      const conn = await mongoose.createConnection(externalMongo, { dbName: mongoDb }).asPromise().catch(() => undefined);
      await conn?.dropDatabase().catch(() => undefined);
      await conn?.close();
    }
    if (code === 0) rmSync(dataDir, { recursive: true, force: true });
    else say(`kept ${dataDir} (logs in ${path.join(dataDir, 'logs')})`);
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`[test] ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
