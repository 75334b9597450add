/**
 * docker-compose.yml validated against the Compose Specification (no Docker engine runs here),
 * plus the services, ports, health checks and variables a deployment needs; and .env.example
 * documenting every variable the config reads.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { EnvSchema, parseConfig } from '../../models/config';

const ROOT = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

/**
 * The Compose Specification schema that Docker Compose itself embeds, from compose-go on the Go
 * module proxy (pinned; Go is already a dev requirement for the dev services).
 */
const COMPOSE_GO = 'github.com/compose-spec/compose-go/v2@v2.16.2';
function composeSchema(): object {
  const r = spawnSync('go', ['mod', 'download', '-json', COMPOSE_GO], { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`could not fetch ${COMPOSE_GO} with go: ${r.stderr || r.error?.message}`);
  const dir = (JSON.parse(r.stdout) as { Dir: string }).Dir;
  return JSON.parse(readFileSync(path.join(dir, 'schema', 'compose-spec.json'), 'utf8')) as object;
}
const validateCompose = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(composeSchema());

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema (compose-go\'s)', () => {
    const ok = validateCompose(compose);
    expect(validateCompose.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('would be caught by the schema if a service were malformed', () => {
    const broken = structuredClone(compose);
    broken.services.news.portz = ['3001:3001'];
    expect(validateCompose(broken)).toBe(false);
    expect(validateCompose.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ instancePath: '/services/news', params: { unevaluatedProperty: 'portz' } })]),
    );
  });

  it('runs MongoDB as a replica set, Temporal with its UI, MinIO, the three APIs, the dashboard, the worker and the mail receiver', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['mail', 'minio', 'mongo', 'news', 'quiz', 'support', 'temporal', 'temporal-db', 'temporal-ui', 'web', 'worker'].sort(),
    );
    expect(compose.services.mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(compose.services.news.environment.MONGODB_URI).toContain('replicaSet=rs0');
  });

  it('gives every service a health check and a restart policy', () => {
    for (const [name, svc] of Object.entries<any>(compose.services)) {
      expect({ name, healthcheck: Boolean(svc.healthcheck?.test) }).toEqual({ name, healthcheck: true });
      expect({ name, restart: svc.restart }).toEqual({ name, restart: 'unless-stopped' });
    }
  });

  it('publishes the APIs and the dashboard for the proxy in front of them, on loopback unless told', () => {
    const ports = (svc: string) => compose.services[svc].ports as string[];
    expect(ports('news')).toEqual(['${BIND_ADDRESS:-127.0.0.1}:3001:3001']);
    expect(ports('support')).toEqual(['${BIND_ADDRESS:-127.0.0.1}:3002:3002']);
    expect(ports('quiz')).toEqual(['${BIND_ADDRESS:-127.0.0.1}:3003:3003']);
    expect(ports('web')).toEqual(['${BIND_ADDRESS:-127.0.0.1}:3000:3000']);
  });

  it('runs the mail receiver from the image, SMTP published on port 25 of the same address, LMTP on the compose network only', () => {
    const mail = compose.services.mail;
    expect(mail.command).toEqual(['node', 'dist/api/mail/server.js']);
    expect(mail.ports).toEqual(['${BIND_ADDRESS:-127.0.0.1}:25:2525']);
    // It listens on the container's interfaces, on the ports it publishes and health-checks.
    expect(mail.environment).toMatchObject({ SUPPORT_MAIL_INBOUND_HOST: '0.0.0.0', SUPPORT_MAIL_SMTP_PORT: 2525, SUPPORT_MAIL_LMTP_PORT: 2424 });
    expect(mail.healthcheck.test.join(' ')).toContain('connect(2525');
    // Longer than the grace its messages in flight are given (SHUTDOWN_GRACE_SECONDS, 10 s).
    expect(mail.stop_grace_period).toBe('30s');
  });

  it('publishes nothing internal to the network: Temporal, MongoDB and MinIO stay inside; the UIs on loopback only', () => {
    // Temporal's gRPC and UI have no authentication here: whoever reaches them reads histories
    // (prompts, phones, addresses) and can signal workflows (issue 35).
    for (const svc of ['temporal', 'temporal-db', 'mongo', 'worker']) expect({ svc, ports: compose.services[svc].ports }).toEqual({ svc, ports: undefined });
    expect(compose.services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    expect(compose.services.minio.ports).toEqual(['127.0.0.1:9001:9001']);
    // Every published port names its address: a bare "port:port" would bind every interface.
    for (const [name, svc] of Object.entries<any>(compose.services)) {
      for (const p of (svc.ports ?? []) as string[]) expect({ name, p }).toEqual({ name, p: expect.stringMatching(/^(127\.0\.0\.1|\$\{BIND_ADDRESS:-127\.0\.0\.1\}):\d+:\d+$/) });
    }
  });

  it('gives the apps, the worker and the mail receiver a configuration that passes production validation', () => {
    const secrets: Record<string, string> = { JWT_SECRET: 'x'.repeat(48), MINIO_ROOT_PASSWORD: 'y'.repeat(24), WEB_SECRET: 'w'.repeat(48), SUPPORT_MAIL_SECRET: 'm'.repeat(48), SMTP_URL: 'smtp://mailer:secret@mail.example.com:587' };
    const configOf = (svc: string) => {
      const env = compose.services[svc].environment as Record<string, string | number>;
      expect(env.NODE_ENV).toBe('production');
      // Substitute compose's ${VAR:?…} / ${VAR:-default} the way compose would with secrets set.
      const resolved = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          String(v).replace(/\$\{([A-Z_]+)(?::[-?]([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) =>
            secrets[name] ?? fallback ?? '',
          ),
        ]),
      );
      return parseConfig(resolved);
    };
    for (const svc of ['news', 'support', 'quiz', 'web', 'worker', 'mail']) {
      const config = configOf(svc);
      expect(config.isProduction).toBe(true);
      expect(config.mongo.uri).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      expect(config.temporal.address).toBe('temporal:7233');
      expect(config.minio).toMatchObject({ endPoint: 'minio', port: 9000 });
    }
    expect(compose.services.news.environment.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/);
    expect(compose.services.web.environment.WEB_SECRET).toMatch(/^\$\{WEB_SECRET:\?/);
    expect(compose.services.support.environment.SUPPORT_MAIL_SECRET).toMatch(/^\$\{SUPPORT_MAIL_SECRET:\?/);
    expect(configOf('mail').support.mail.inbound).toEqual({ host: '0.0.0.0', smtpPort: 2525, lmtpPort: 2424, maxBytes: 30 * 1024 * 1024, trustedRelays: [] });
    expect(compose.services.worker.environment.SUPPORT_MAIL_TRUSTED_RELAYS).toBe('${SUPPORT_MAIL_TRUSTED_RELAYS:-}');
  });
});

describe('.env.example', () => {
  const documented = new Set(
    readFileSync(path.join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=/.exec(l)?.[1])
      .filter(Boolean),
  );

  it('documents every variable the config reads', () => {
    const missing = Object.keys(EnvSchema.shape).filter((k) => !documented.has(k));
    expect(missing).toEqual([]);
  });

  it('documents nothing the config does not read', () => {
    const unknown = [...documented].filter((k) => !(k! in EnvSchema.shape));
    expect(unknown).toEqual([]);
  });
});
