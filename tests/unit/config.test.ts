import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../models/config';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'cfg-'));

describe('config', () => {
  it('uses the documented defaults in development', () => {
    const c = parseConfig({ DATA_DIR: tmp() });
    expect(c.env).toBe('development');
    expect(c.http.ports).toEqual({ news: 3001, support: 3002, quiz: 3003 });
    expect(c.temporal.address).toBe('127.0.0.1:7233');
    expect(c.temporal.uiPort).toBe(8233);
    expect(c.mongo.uri).toBeUndefined();
  });

  it('Web Push is off without VAPID keys, on with all three, and a partial or malformed set stops start-up naming it', () => {
    expect(parseConfig({ DATA_DIR: tmp() }).webPush).toEqual({ vapid: undefined, caFile: undefined, allowHosts: [], timeoutMs: 10_000 });
    const keys = { WEB_PUSH_VAPID_PUBLIC_KEY: `B${'A'.repeat(86)}`, WEB_PUSH_VAPID_PRIVATE_KEY: 'A'.repeat(43) };
    const on = parseConfig({ DATA_DIR: tmp(), WEB_PUSH_VAPID_SUBJECT: 'mailto:ops@example.com', ...keys, WEB_PUSH_ALLOW_HOSTS: '127.0.0.1:4433' });
    expect(on.webPush).toMatchObject({ vapid: { subject: 'mailto:ops@example.com', publicKey: keys.WEB_PUSH_VAPID_PUBLIC_KEY }, allowHosts: ['127.0.0.1:4433'] });
    expect(() => parseConfig({ DATA_DIR: tmp(), ...keys })).toThrow(/WEB_PUSH_VAPID_SUBJECT, WEB_PUSH_VAPID_PUBLIC_KEY and WEB_PUSH_VAPID_PRIVATE_KEY go together/);
    expect(() => parseConfig({ DATA_DIR: tmp(), WEB_PUSH_VAPID_SUBJECT: 'ops@example.com', ...keys })).toThrow(/WEB_PUSH_VAPID_SUBJECT: must be a mailto: or https: contact/);
    expect(() => parseConfig({ DATA_DIR: tmp(), WEB_PUSH_VAPID_SUBJECT: 'mailto:ops@example.com', ...keys, WEB_PUSH_VAPID_PRIVATE_KEY: 'short' })).toThrow(/WEB_PUSH_VAPID_PRIVATE_KEY/);
  });

  it('reads the service ports from NEWS_PORT, SUPPORT_PORT and QUIZ_PORT', () => {
    const c = parseConfig({ DATA_DIR: tmp(), NEWS_PORT: '4001', SUPPORT_PORT: '4002', QUIZ_PORT: '4003' });
    expect(c.http.ports).toEqual({ news: 4001, support: 4002, quiz: 4003 });
  });

  it('generates development secrets once and keeps them in the data directory', () => {
    const dir = tmp();
    const a = parseConfig({ DATA_DIR: dir });
    const b = parseConfig({ DATA_DIR: dir });
    expect(a.auth.jwtSecret).toBeDefined();
    expect(a.auth.jwtSecret!.length).toBeGreaterThanOrEqual(32);
    expect(b.auth.jwtSecret).toBe(a.auth.jwtSecret);
    expect(b.minio.secretKey).toBe(a.minio.secretKey);
    const file = path.join(dir, 'secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).JWT_SECRET).toBe(a.auth.jwtSecret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('stops production start-up with one line naming JWT_SECRET when it is missing', () => {
    const env = { NODE_ENV: 'production', DATA_DIR: tmp(), MONGODB_URI: 'mongodb://db/', MINIO_ACCESS_KEY: 'abc', MINIO_SECRET_KEY: 'abcdefgh' };
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(/^Invalid configuration: JWT_SECRET is required when NODE_ENV=production$/);
  });

  /** A production environment verifying tokens with a JWKS, complete. */
  const jwksProduction = (): Record<string, string> => ({
    NODE_ENV: 'production',
    DATA_DIR: tmp(),
    MONGODB_URI: 'mongodb://db/',
    MINIO_ACCESS_KEY: 'abc',
    MINIO_SECRET_KEY: 'abcdefgh',
    JWT_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
    JWT_ISSUER: 'https://id.example.com/',
    JWT_AUDIENCE: 'newsletter-platform',
    WEB_SECRET: 'w'.repeat(32),
    SMTP_URL: 'smtp://mail.example.com:587',
    SUPPORT_MAIL_SECRET: 'm'.repeat(32),
  });

  it('does not require JWT_SECRET in production when tokens are verified with a JWKS URL', () => {
    const c = parseConfig(jwksProduction());
    expect(c.auth.jwtSecret).toBeUndefined();
    expect(c.auth.jwksUrl).toBe('https://id.example.com/.well-known/jwks.json');
  });

  it.each(['JWT_ISSUER', 'JWT_AUDIENCE'])('requires %s in production under a JWKS (another application of the same identity provider is not us)', (name) => {
    const env = jwksProduction();
    delete env[name];
    expect(() => parseConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${name} is required when NODE_ENV=production$`));
  });

  it.each([
    [undefined, 0],
    ['false', 0],
    ['true', 1],
    ['2', 2],
  ])('reads TRUST_PROXY=%s as %i trusted proxy hops', (value, hops) => {
    expect(parseConfig({ DATA_DIR: tmp(), ...(value === undefined ? {} : { TRUST_PROXY: value }) }).http.proxyHops).toBe(hops);
  });

  it('refuses a TRUST_PROXY that is neither a flag nor a small number of hops', () => {
    expect(() => parseConfig({ DATA_DIR: tmp(), TRUST_PROXY: 'all' })).toThrow(/TRUST_PROXY/);
  });

  it("requires the desk's mail secret in production, generates one in development, and reads the desk's mail settings", () => {
    const env = { ...jwksProduction() } as Record<string, string>;
    delete env.SUPPORT_MAIL_SECRET;
    expect(() => parseConfig(env)).toThrow(/^Invalid configuration: SUPPORT_MAIL_SECRET is required when NODE_ENV=production$/);
    const dev = parseConfig({ DATA_DIR: tmp() });
    expect(dev.support.mail).toMatchObject({ address: 'support@localhost', attachMaxBytes: 10 * 1024 * 1024, inbound: { host: '127.0.0.1', smtpPort: 2525, lmtpPort: 2424, maxBytes: 30 * 1024 * 1024 }, mailgunSigningKey: undefined });
    expect(dev.support.mail.secret.length).toBeGreaterThanOrEqual(32);
    // A plus-address cannot be the desk's: the part after + is each ticket's token.
    expect(() => parseConfig({ DATA_DIR: tmp(), SUPPORT_MAIL_ADDRESS: 'support+x@example.com' })).toThrow(/SUPPORT_MAIL_ADDRESS/);
    expect(parseConfig({ DATA_DIR: tmp(), SUPPORT_MAIL_ADDRESS: 'Help@Example.com' }).support.mail.address).toBe('help@example.com');
  });

  it('requires the dashboard secret in production, and sends Checkout back to the dashboard by default', () => {
    const env = { NODE_ENV: 'production', DATA_DIR: tmp(), MONGODB_URI: 'mongodb://db/', MINIO_ACCESS_KEY: 'abc', MINIO_SECRET_KEY: 'abcdefgh', JWT_SECRET: 'j'.repeat(32), SMTP_URL: 'smtp://mail.example.com:587', SUPPORT_MAIL_SECRET: 'm'.repeat(32) };
    expect(() => parseConfig(env)).toThrow(/^Invalid configuration: WEB_SECRET is required when NODE_ENV=production$/);
    expect(() => parseConfig({ ...env, WEB_SECRET: 'w'.repeat(32), WEB_URL: 'http://dash.example.com' })).toThrow(/WEB_URL must be an https:\/\/ address/);
    expect(parseConfig({ ...env, WEB_SECRET: 'w'.repeat(32), WEB_URL: 'https://dash.example.com' }).web.url).toBe('https://dash.example.com');
    const dev = parseConfig({ DATA_DIR: tmp(), WEB_URL: 'https://dash.example.com' });
    expect(dev.billing.returnUrl).toBe('https://dash.example.com/account/billing');
    expect(dev.web.secret.length).toBeGreaterThanOrEqual(32);
    expect(parseConfig({ DATA_DIR: tmp(), BILLING_RETURN_URL: 'https://x.example.com/b' }).billing.returnUrl).toBe('https://x.example.com/b');
  });

  it.each([
    ['NEWS_PORT', 'seventy', /NEWS_PORT/],
    ['MONGODB_URI', 'postgres://x', /MONGODB_URI: must be a mongodb:\/\/ URI/],
    ['JWT_SECRET', 'short', /JWT_SECRET: must be at least 32 characters/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['MINIO_BUCKET', 'Bad_Bucket', /MINIO_BUCKET/],
    ['WHATSAPP_VERIFY_TOKEN', 'x'.repeat(257), /WHATSAPP_VERIFY_TOKEN: at most 256 characters/],
  ])('names %s when its value is invalid', (name, value, message) => {
    expect(() => parseConfig({ DATA_DIR: tmp(), [name]: value })).toThrow(message);
  });

  it('parses the MinIO endpoint into host, port and TLS', () => {
    const c = parseConfig({ DATA_DIR: tmp(), MINIO_ENDPOINT: 'https://files.example.com' });
    expect(c.minio).toMatchObject({ endPoint: 'files.example.com', port: 443, useSSL: true });
  });
  // Issue 35: stdio MCP servers are the operator's, by name; the API only names one.
  it('reads the stdio MCP servers, by name, from AI_MCP_STDIO_PROVIDERS (none when empty)', () => {
    expect(parseConfig({ DATA_DIR: tmp() }).ai.mcpStdioProviders).toEqual({});
    expect(parseConfig({ DATA_DIR: tmp(), AI_MCP_STDIO_PROVIDERS: '' }).ai.mcpStdioProviders).toEqual({});
    const c = parseConfig({ DATA_DIR: tmp(), AI_MCP_STDIO_PROVIDERS: '{"docs":{"command":"node","args":["docs-server.js","--stdio"]},"kb":{"command":"/usr/bin/kb-mcp"}}' });
    expect(c.ai.mcpStdioProviders).toEqual({ docs: { command: 'node', args: ['docs-server.js', '--stdio'] }, kb: { command: '/usr/bin/kb-mcp', args: [] } });
  });

  it.each([
    ['node docs-server.js', /AI_MCP_STDIO_PROVIDERS.*JSON object/],
    ['["node"]', /AI_MCP_STDIO_PROVIDERS/],
    ['{"Docs!":{"command":"node"}}', /AI_MCP_STDIO_PROVIDERS.*names/],
    ['{"docs":{"command":""}}', /AI_MCP_STDIO_PROVIDERS/],
    ['{"docs":{"command":"node","args":"-e 1"}}', /AI_MCP_STDIO_PROVIDERS/],
    ['{"docs":{"command":"node","env":{"A":"1"}}}', /AI_MCP_STDIO_PROVIDERS/],
  ])('refuses AI_MCP_STDIO_PROVIDERS=%s', (value, message) => {
    expect(() => parseConfig({ DATA_DIR: tmp(), AI_MCP_STDIO_PROVIDERS: value })).toThrow(message);
  });
});
