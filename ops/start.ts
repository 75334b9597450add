/**
 * `npm start`: provisions and supervises everything a developer needs, then the APIs, the worker
 * and the mail receiver. Ctrl-C (SIGINT) or SIGTERM stops every process it started.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrExit } from '../models/config';
import { generateVapidKeys } from '../models/infra/web-push';
import { assertPortFree, freePort, reservePort, startDevServices, tcpOpen, type DevServicePorts } from './dev-services';
import { NEWS_WEB_SITE_PORTS, appProcessSpecs, buildWeb, childEnv, stopOnSignals, tsEntry } from './processes';
import { Supervisor } from './supervisor';

/** The Cloud API double's credentials in development (not secrets: the double runs on loopback). */
const DEV_WHATSAPP_TOKEN = 'EAAdevelopmentaccesstoken';
const DEV_WHATSAPP_PHONE_NUMBER_ID = '100000000000001';
/** Ports the news sites double takes after its control port (one per site and fault origin). */

/**
 * The development VAPID key pair, made once per data directory and kept: browsers subscribed with
 * it (a real Chrome's FCM subscription as much as the double's) stay valid across restarts.
 */
function devVapidKeys(dataDir: string): { publicKey: string; privateKey: string } {
  const file = path.join(dataDir, 'push-vapid.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { publicKey: string; privateKey: string };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const keys = generateVapidKeys();
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
}

function portOf(address: string): number {
  const port = Number(address.split(':').pop());
  if (!Number.isInteger(port)) throw new Error(`cannot read a port from "${address}"`);
  return port;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // What happens to the stack also goes to a file: the terminal (or the pipe reader) may be gone.
  mkdirSync(path.join(config.dataDir, 'logs'), { recursive: true });
  const logFile = path.join(config.dataDir, 'logs', 'start.log');
  const say = (line: string) => {
    const text = `[start] ${line}\n`;
    if (process.stdout.writable) process.stdout.write(text);
    appendFileSync(logFile, `${new Date().toISOString()} ${text}`);
  };
  const supervisor = new Supervisor((e) => {
    if (e.type === 'started') say(`${e.name} started (pid ${e.pid})`);
    if (e.type === 'exited') say(`${e.name} exited (${e.signal ?? `code ${e.code}`})`);
    if (e.type === 'restarting') say(`restarting ${e.name} in ${e.inMs} ms (restart #${e.restarts})`);
    if (e.type === 'ready') say(`${e.name} ready (${(e.ms / 1000).toFixed(1)}s)`);
  });
  stopOnSignals(supervisor, say);

  const ports: DevServicePorts = {
    temporal: portOf(config.temporal.address),
    temporalUi: config.temporal.uiPort,
    temporalHttp: 0,
    temporalMetrics: 0,
    ferretdb: config.devServices.ferretdbPort,
    postgres: config.devServices.postgresPort,
    minio: config.minio.port,
    minioConsole: config.minio.consolePort,
    stripeMock: config.devServices.stripeMockPort,
    mailpitSmtp: config.devServices.mailpitSmtpPort,
    mailpitUi: config.devServices.mailpitUiPort,
  };
  // Without a real Stripe key, billing talks to stripe-mock (Stripe's own mock of its API).
  const useStripeMock = config.billing.stripe === undefined;
  const useFerret = config.mongo.uri === undefined;
  const wanted: [number, string][] = [
    [ports.temporal, 'Temporal'],
    [ports.temporalUi, 'Temporal UI'],
    [ports.minio, 'MinIO'],
    [ports.minioConsole, 'MinIO console'],
    [config.http.ports.news, 'news API'],
    [config.http.ports.support, 'support API'],
    [config.http.ports.quiz, 'quiz API'],
    [config.web.port, 'dashboard'],
    [config.support.mail.inbound.smtpPort, 'mail receiver (SMTP)'],
    [config.support.mail.inbound.lmtpPort, 'mail receiver (LMTP)'],
  ];
  if (useStripeMock) wanted.push([ports.stripeMock, 'stripe-mock']);
  // Without SMTP_URL, mail (sign-in codes) goes to Mailpit, which keeps it for its web UI.
  const useMailpit = config.mail.smtpUrl === undefined;
  if (useMailpit) wanted.push([ports.mailpitSmtp, 'Mailpit SMTP'], [ports.mailpitUi, 'Mailpit web UI']);
  // Without real WhatsApp credentials, messages go to the Cloud API double (tests/doubles).
  const useWhatsAppDouble = config.whatsapp.api === undefined;
  const whatsappDoublePort = config.devServices.whatsappDoublePort;
  if (useWhatsAppDouble) wanted.push([whatsappDoublePort, 'WhatsApp Cloud API double']);
  // Without OPENAI_API_KEY, enrichment, quizzes and AI chat use the OpenAI double (tests/doubles).
  const useOpenAiDouble = config.ai.apiKey === undefined;
  const openaiDoublePort = config.devServices.openaiDoublePort;
  if (useOpenAiDouble) wanted.push([openaiDoublePort, 'OpenAI double']);
  // Without VAPID keys, Web Push is on against the push double (tests/doubles), with a kept key pair.
  const usePushDouble = config.webPush.vapid === undefined;
  const pushDoublePort = config.devServices.pushDoublePort;
  const pushCertDir = path.join(config.dataDir, 'push-double');
  if (usePushDouble) wanted.push([pushDoublePort, 'Web Push double']);
  // A customer's webhook receiver (tests/doubles), allowed on loopback like the news sites double.
  const webhookDoublePort = config.devServices.webhookDoublePort;
  wanted.push([webhookDoublePort, 'webhook receiver double']);
  // The news sites the seeded sources read (tests/doubles/news-web-double.ts): its control API on
  // this port, its sites on the ones after it.
  const newsWebPort = config.devServices.newsWebDoublePort;
  for (let i = 0; i <= NEWS_WEB_SITE_PORTS; i++) wanted.push([newsWebPort + i, 'news sites double']);
  if (useFerret) wanted.push([ports.ferretdb, 'FerretDB'], [ports.postgres, 'PostgreSQL (FerretDB\'s storage)']);
  for (const [port, what] of wanted) {
    await assertPortFree(port, what);
    // Free now, but ours: a port picked below must not be one a later service is configured for.
    reservePort(port);
  }
  // Temporal's HTTP and metrics ports default to random free ones; we pick them to know them.
  ports.temporalHttp = await freePort();
  ports.temporalMetrics = await freePort();

  say(`data directory: ${config.dataDir}`);
  await startDevServices(supervisor, {
    dataDir: config.dataDir,
    ports,
    namespace: config.temporal.namespace,
    minio: { accessKey: config.minio.accessKey, secretKey: config.minio.secretKey },
    ferretdb: useFerret,
    stripeMock: useStripeMock,
    mailpit: useMailpit,
    temporalUi: true,
    bins: config.devServices.bins,
    cacheDir: config.devServices.cacheDir,
    ferretdbDebugAddr: config.devServices.ferretdbDebugAddr,
    searchPath: process.env.PATH,
    log: say,
  });

  const vapid = usePushDouble ? devVapidKeys(config.dataDir) : undefined;
  const pushEnv: Record<string, string> = vapid
    ? {
        WEB_PUSH_VAPID_SUBJECT: 'mailto:push@localhost.localdomain',
        WEB_PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
        WEB_PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
        WEB_PUSH_CA_FILE: path.join(pushCertDir, 'push-double.crt'),
        // The double's endpoints are on loopback, which the SSRF check refuses unless allowed.
        WEB_PUSH_ALLOW_HOSTS: [...new Set([...config.webPush.allowHosts, `127.0.0.1:${pushDoublePort}`])].join(','),
        PUSH_DOUBLE_URL: `https://127.0.0.1:${pushDoublePort}`,
      }
    : {};
  const env = childEnv(config, {
    MONGODB_URI: config.mongo.uri ?? `mongodb://127.0.0.1:${ports.ferretdb}/`,
    DATA_DIR: config.dataDir,
    ...(useStripeMock ? { STRIPE_SECRET_KEY: 'sk_test_stripemock', STRIPE_API_URL: `http://127.0.0.1:${ports.stripeMock}` } : {}),
    ...(useMailpit ? { SMTP_URL: `smtp://127.0.0.1:${ports.mailpitSmtp}`, MAILPIT_URL: `http://127.0.0.1:${ports.mailpitUi}` } : {}),
    ...(useWhatsAppDouble ? { WHATSAPP_API_URL: `http://127.0.0.1:${whatsappDoublePort}/v21.0`, WHATSAPP_ACCESS_TOKEN: DEV_WHATSAPP_TOKEN, WHATSAPP_PHONE_NUMBER_ID: DEV_WHATSAPP_PHONE_NUMBER_ID } : {}),
    ...pushEnv,
    ...(useOpenAiDouble ? { OPENAI_BASE_URL: `http://127.0.0.1:${openaiDoublePort}/v1`, OPENAI_API_KEY: 'development-double' } : {}),
    // The sites double is on loopback, which the fetcher refuses unless allowed (SSRF guard).
    NEWS_WEB_DOUBLE_URL: `http://127.0.0.1:${newsWebPort}`,
    // Its sites' ports only: loopback also serves Mailpit (sign-in codes), MinIO and Temporal.
    // And the webhook receiver double's, so that an endpoint can be registered on it.
    NEWS_FETCH_ALLOW_HOSTS: [...new Set([...config.news.fetch.allowHosts, `127.0.0.1:${newsWebPort + 1}-${newsWebPort + NEWS_WEB_SITE_PORTS}`, `127.0.0.1:${webhookDoublePort}`])].join(','),
  });
  // A double of an external service (tests/doubles): its process, listening on `port`.
  const startDouble = async (name: string, port: number, extraArgs: string[] = []) => {
    const entry = tsEntry(`tests/doubles/${name}.main.ts`);
    await supervisor.start({
      name,
      ...entry,
      args: [...entry.args, String(port), ...extraArgs],
      env,
      cwd: path.resolve(__dirname, '..'),
      output: { file: path.join(config.dataDir, 'logs', `${name}.log`) },
      ready: () => tcpOpen(port),
    });
  };
  if (useOpenAiDouble) await startDouble('openai-double', openaiDoublePort);
  await startDouble('news-web-double', newsWebPort);
  if (useWhatsAppDouble) await startDouble('whatsapp-double', whatsappDoublePort);
  if (usePushDouble) await startDouble('push-double', pushDoublePort, [pushCertDir]);
  await startDouble('webhook-receiver-double', webhookDoublePort);
  await buildWeb(say);
  for (const spec of appProcessSpecs(env, 'inherit')) await supervisor.start(spec);

  const host = config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host;
  say('everything is up:');
  say(`  dashboard     ${config.web.url}   (sign up there; the code arrives in the mail below)`);
  say(`  news API      http://${host}:${config.http.ports.news}   (docs: /docs, /openapi.json)`);
  say(`  support API   http://${host}:${config.http.ports.support}`);
  say(`  quiz+AI API   http://${host}:${config.http.ports.quiz}`);
  const mailIn = config.support.mail.inbound;
  say(`  Mail in       SMTP ${mailIn.host}:${mailIn.smtpPort}, LMTP ${mailIn.host}:${mailIn.lmtpPort}, for ${config.support.mail.address} and its +tag addresses`);
  say(`  Temporal UI   http://127.0.0.1:${ports.temporalUi}   (gRPC ${config.temporal.address})`);
  say(`  MinIO         http://127.0.0.1:${ports.minio}   (console :${ports.minioConsole}; credentials in ${path.join(config.dataDir, 'secrets.json')})`);
  say(`  Stripe        ${useStripeMock ? `stripe-mock on http://127.0.0.1:${ports.stripeMock} (webhook secret in ${path.join(config.dataDir, 'secrets.json')})` : 'STRIPE_SECRET_KEY (real Stripe)'}`);
  say(`  WhatsApp      ${useWhatsAppDouble ? `Cloud API double on http://127.0.0.1:${whatsappDoublePort} (sent messages: /__control/messages; app secret and verify token in ${path.join(config.dataDir, 'secrets.json')})` : 'WHATSAPP_ACCESS_TOKEN (real Cloud API)'}`);
  say(`  Webhooks      receiver double on http://127.0.0.1:${webhookDoublePort} (an endpoint: http://127.0.0.1:${webhookDoublePort}/hooks/<name>, its secret set by PUT /__control/endpoints/<name>; deliveries: GET /__control/endpoints/<name>/deliveries)`);
  say(`  Web Push      ${usePushDouble ? `push double on https://127.0.0.1:${pushDoublePort} (subscribe as a browser: POST /__control/subscriptions; pushes it decrypted: /__control/messages; VAPID keys in ${path.join(config.dataDir, 'push-vapid.json')})` : 'WEB_PUSH_VAPID_* (real push services)'}`);
  say(`  Mail          ${useMailpit ? `Mailpit on http://127.0.0.1:${ports.mailpitUi} (SMTP :${ports.mailpitSmtp})` : 'SMTP_URL'}`);
  say(`  AI provider   ${useOpenAiDouble ? `OpenAI double on http://127.0.0.1:${openaiDoublePort}/v1 (no OPENAI_API_KEY)` : 'OPENAI_API_KEY'}`);
  say(`  News sites    double on http://127.0.0.1:${newsWebPort} (its sites on :${newsWebPort + 1}–${newsWebPort + NEWS_WEB_SITE_PORTS}); \`npm run cli -- seed\` registers them as sources`);
  say(`  MongoDB       ${useFerret ? `FerretDB on mongodb://127.0.0.1:${ports.ferretdb}/ (PostgreSQL with DocumentDB on :${ports.postgres})` : 'MONGODB_URI'} (database ${config.mongo.db})`);
  say(`  logs of dev services: ${path.join(config.dataDir, 'logs')}; Ctrl-C stops everything`);
}

main().catch((err: Error) => {
  process.stderr.write(`[start] ${err.message}\n`);
  process.exitCode = 1;
  process.kill(process.pid, 'SIGTERM');
});
