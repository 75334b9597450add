/**
 * Operator CLI: `npm run cli -- <command>`. Progress goes to stderr; the result is printed alone
 * on the last line of stdout, so scripts can take it with `| tail -1`.
 *
 *   token --sub ID [--email E] [--perm p1,p2] [--expires 12h]
 *   apikey create --user ID --plan starter|pro|business [--scopes s1,s2] [--test] [--expires none|30d|90d|1y|YYYY-MM-DD] [--name N]
 *   seed
 */
import { parseArgs } from 'node:util';
import { signToken } from '../models/auth/token.rules';
import { type Config, loadConfigOrExit } from '../models/config';
import { connectMongo } from '../models/infra/mongo';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { normaliseScopes, resolveExpiry } from '../models/news/api-key.rules';
import { isPlan } from '../models/news/plan.rules';
import { createUserRepo } from '../models/users/user.repo';
import { seedAll } from './seed';

class UsageError extends Error {}

const USAGE = `usage: npm run cli -- <command>
  token --sub ID [--email E] [--perm p1,p2] [--expires 12h]
  apikey create --user ID --plan starter|pro|business [--scopes s1,s2] [--test] [--expires none|30d|90d|1y|YYYY-MM-DD] [--name N]
  seed`;

const info = (line: string) => process.stderr.write(`${line}\n`);
const csv = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);

async function withDb<T>(config: Config, fn: (conn: Awaited<ReturnType<typeof connectMongo>['ready']>) => Promise<T>): Promise<T> {
  const mongo = connectMongo(config);
  const timeout = setTimeout(() => {
    info('MongoDB is not reachable: is `npm start` running, or MONGODB_URI set?');
    process.exit(69);
  }, 15_000);
  try {
    const conn = await mongo.ready;
    clearTimeout(timeout);
    return await fn(conn);
  } finally {
    clearTimeout(timeout);
    await mongo.close();
  }
}

async function token(config: Config, args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { sub: { type: 'string' }, email: { type: 'string' }, perm: { type: 'string' }, expires: { type: 'string' } },
  });
  if (!values.sub) throw new UsageError('token needs --sub ID');
  const secret = config.auth.jwtSecret;
  if (!secret) throw new UsageError('JWT_SECRET is not configured, so no token can be signed here');
  return await signToken(secret, {
    sub: values.sub,
    email: values.email,
    permissions: csv(values.perm),
    expiresIn: values.expires ?? '12h',
    issuer: config.auth.issuer,
    audience: config.auth.audience,
  });
}

async function apikey(config: Config, args: string[]): Promise<string> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError('apikey supports: create');
  const { values } = parseArgs({
    args: rest,
    options: {
      user: { type: 'string' },
      plan: { type: 'string' },
      scopes: { type: 'string' },
      test: { type: 'boolean', default: false },
      expires: { type: 'string', default: 'none' },
      name: { type: 'string', default: 'cli' },
    },
  });
  if (!values.user) throw new UsageError('apikey create needs --user ID');
  if (!values.plan || !isPlan(values.plan)) throw new UsageError('apikey create needs --plan starter|pro|business');
  const plan = values.plan;
  let scopes;
  let expiresAt;
  try {
    scopes = normaliseScopes(csv(values.scopes));
    expiresAt = resolveExpiry(values.expires);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return await withDb(config, async (conn) => {
    await createUserRepo(conn).setPlan(values.user!, plan);
    const { key, record } = await createApiKeyRepo(conn).create({
      userId: values.user!,
      name: values.name,
      mode: values.test ? 'test' : 'live',
      scopes,
      expiresAt,
    });
    info(`created ${record.mode} key ${record.displayPrefix}… for ${record.userId} (plan ${plan}, scopes ${record.scopes.join(',')}, expires ${record.expiresAt?.toISOString() ?? 'never'}); it is shown only now`);
    return key;
  });
}

async function seed(config: Config): Promise<string> {
  return await withDb(config, async (conn) => JSON.stringify(await seedAll({ conn, log: info })));
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  const config = loadConfigOrExit();
  try {
    let result: string;
    if (command === 'token') result = await token(config, args);
    else if (command === 'apikey') result = await apikey(config, args);
    else if (command === 'seed') result = await seed(config);
    else throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
    process.stdout.write(`${result}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      info(`${(err as Error).message}\n${USAGE}`);
      return 64;
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    info(`cli failed: ${err.message}`);
    process.exit(1);
  },
);
