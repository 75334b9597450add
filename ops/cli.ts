/**
 * Operator CLI: `npm run cli -- <command>`. Progress goes to stderr; the result is printed alone
 * on the last line of stdout, so scripts can take it with `| tail -1`.
 *
 *   token --sub ID [--email E] [--perm p1,p2] [--expires 12h]
 *   apikey create --user ID --plan starter|pro|business [--scopes s1,s2] [--test] [--expires none|30d|90d|1y|YYYY-MM-DD] [--name N]
 *   seed [--articles N] [--entities M]   (default 300 articles; --articles 0 for none)
 *   import --file articles.jsonl
 *   migrate
 *   edition --date YYYY-MM-DD --edition morning|night --file edition.md [--title T] [--published-at ISO]
 *   source add --name N --feed URL [--tier 1|2|3] [--language pt|en|es] [--sector CODE] [--every MINUTES] [--disabled]
 *   source list
 *   source disable|enable --id ID
 *   staff add EMAIL --role R [--role R2 | --role R1,R2] [--no-mail] [--locale pt|en]
 *   staff list
 *   staff remove EMAIL
 *   vapid-keys
 */
import { createReadStream, readFileSync } from 'node:fs';
import type { Connection } from 'mongoose';
import { parseArgs } from 'node:util';
import { decodeJwt } from 'jose';
import { signToken } from '../models/auth/token.rules';
import { type Config, loadConfigOrExit } from '../models/config';
import { connectMongo } from '../models/infra/mongo';
import { generateVapidKeys } from '../models/infra/web-push';
import { createStorage, ensureBucket, type Storage } from '../models/infra/storage';
import { createTemporalClient, type TemporalHandle } from '../models/infra/temporal';
import { createImportRepo } from '../models/news/import.repo';
import { queueImport, waitForImport } from '../operations/news/queue-import';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { normaliseScopes, resolveExpiry } from '../models/news/api-key.rules';
import { migrateArticles } from '../models/news/article.migrate';
import { migrateSupport } from '../models/support/support.migrate';
import { isPlan } from '../models/shared/plan.rules';
import { createUserRepo } from '../models/users/user.repo';
import { createEditionRepo } from '../models/quiz/edition.repo';
import { EditionContent, EditionDate, EditionName } from '../models/quiz/edition.rules';
import { analyze, devPostgres, rebuildOldIndexes } from './dev-database';
import { seedAll, seedNewsCorpus, seedSources } from './seed';
import { addSource, changeSource } from '../operations/news/sources';
import { createSourceRepo } from '../models/news/sources/source.repo';
import { SourceInput, sourceState } from '../models/news/sources/source.rules';
import { AppError } from '../models/errors';
import { seedEditions } from './quiz-editions';
import { createAccountRepo } from '../models/accounts/account.repo';
import { Email } from '../models/accounts/sign-in.rules';
import { createMailer } from '../models/infra/mail';
import { createStaffRepo } from '../models/staff/staff.repo';
import { CLI_ACTOR, parseRoleList } from '../models/staff/staff.rules';
import { inviteMember, listMembers, memberView, removeMember } from '../operations/staff/members';

class UsageError extends Error {}

/** Articles `seed` imports unless told: enough for every list, search and feed to show something. */
const DEFAULT_SEED_ARTICLES = 300;

const USAGE = `usage: npm run cli -- <command>
  token --sub ID [--email E] [--perm p1,p2] [--expires 12h]
  apikey create --user ID --plan starter|pro|business [--scopes s1,s2] [--test] [--expires none|30d|90d|1y|YYYY-MM-DD] [--name N]
  seed [--articles N] [--entities M]   (demo data; 300 articles unless --articles N; articles need the worker: npm start)
  import --file articles.jsonl         (JSON lines; waits until the import has ended)
  migrate                              (upgrades data stored by earlier releases; safe to repeat)
  edition --date YYYY-MM-DD --edition morning|night --file edition.md [--title T] [--published-at ISO]
                                       (creates or replaces a newsletter edition; the title defaults to the file's first line)
  source add --name N --feed URL [--tier 1|2|3] [--language pt|en|es] [--sector CODE] [--every MINUTES] [--disabled]
  source list                          (every news source with its health)
  source disable|enable --id ID        (stops or starts its poller)
  staff add EMAIL --role R [--role R2] [--no-mail] [--locale pt|en]
                                       (invites a staff member: owner, support.manager, support.agent, news.admin, quiz.admin, ai.edit,
                                        platform.ops; repeat --role or separate by commas; mails the sign-in link unless --no-mail)
  staff list                           (every staff member, invited and active)
  staff remove EMAIL                   (removes a member and ends its sessions; never the last owner)
  vapid-keys                           (a new Web Push key pair for WEB_PUSH_VAPID_PUBLIC_KEY and _PRIVATE_KEY: make it once and keep it)`;

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
  const signed = await signToken(secret, {
    sub: values.sub,
    email: values.email,
    permissions: csv(values.perm),
    expiresIn: values.expires ?? '12h',
    issuer: config.auth.issuer,
    audience: config.auth.audience,
  });
  const { exp, iat } = decodeJwt(signed);
  if (exp! - iat! > config.auth.maxLifetimeSeconds) {
    throw new UsageError(`--expires ${values.expires} is longer than JWT_MAX_LIFETIME_HOURS (${config.auth.maxLifetimeSeconds / 3600} h): the APIs would refuse the token`);
  }
  return signed;
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

interface Platform {
  conn: Connection;
  storage: Storage;
  temporal: TemporalHandle;
  config: Config;
}

/** MongoDB plus MinIO and Temporal (imports are staged in MinIO and applied by the worker). */
async function withPlatform<T>(config: Config, fn: (deps: Platform) => Promise<T>): Promise<T> {
  return await withDb(config, async (conn) => {
    const storage = createStorage(config);
    await ensureBucket(storage, config.minio.region);
    const temporal = createTemporalClient(config);
    try {
      return await fn({ conn, storage, temporal, config });
    } finally {
      await temporal.close();
    }
  });
}

const count = (name: string, v: string | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number`);
  return Number(v);
};

async function seed(config: Config, args: string[]): Promise<string> {
  const { values } = parseArgs({ args, options: { articles: { type: 'string' }, entities: { type: 'string' } } });
  const articles = count('articles', values.articles, DEFAULT_SEED_ARTICLES);
  const entities = count('entities', values.entities, Math.min(5_000, Math.max(300, Math.round(articles / 20))));
  // Editions are written from the articles stored for each of the last 14 days (after the corpus).
  const editions = async (conn: Connection) => {
    info('writing the editions of the last 14 days…');
    return await seedEditions(conn, config.quiz.timeZone);
  };
  // After a bulk load the development database needs statistics before it orders lists from
  // their indexes (ops/dev-database.ts); MongoDB needs nothing.
  const statistics = () => (analyze(devPostgres(config)) ? info('statistics gathered') : undefined);
  // In development the news sites double's feeds become sources (npm start runs it). Not in
  // tests: their pollers would keep adding articles to the database other tests count.
  const doubleUrl = config.env === 'development' ? config.devServices.newsWebDoubleUrl : undefined;
  const sources = async (deps: Platform) =>
    doubleUrl ? await seedSources({ sources: createSourceRepo(deps.conn), temporal: deps.temporal, taskQueuePrefix: config.temporal.taskQueuePrefix, log: info }, doubleUrl) : undefined;
  if (articles === 0 && values.entities === undefined) {
    const summary = await withDb(config, async (conn) => {
      const s = { ...(await seedAll({ conn, log: info, env: config.env })), quiz: await editions(conn) };
      statistics();
      return s;
    });
    return JSON.stringify(doubleUrl ? { ...summary, sources: await withPlatform(config, sources) } : summary);
  }
  return await withPlatform(config, async (deps) => {
    const summary = await seedAll({ conn: deps.conn, log: info, env: config.env });
    info(`seeding the news corpus (${articles} articles, ${entities} entities)…`);
    const news = await seedNewsCorpus({ ...deps, log: info }, { articles, entities });
    const quiz = await editions(deps.conn);
    statistics();
    return JSON.stringify({ ...summary, news, quiz, sources: await sources(deps) });
  });
}

async function importArticles(config: Config, args: string[]): Promise<string> {
  const { values } = parseArgs({ args, options: { file: { type: 'string' } } });
  if (!values.file) throw new UsageError('import needs --file articles.jsonl');
  const file = values.file;
  return await withPlatform(config, async (deps) => {
    const imports = createImportRepo(deps.conn);
    const doc = await queueImport({ ...deps, imports }, createReadStream(file), { source: 'cli', requestedBy: 'cli', maxBytes: Number.MAX_SAFE_INTEGER });
    info(`import ${doc._id} queued (${doc.bytes} bytes)`);
    const done = await waitForImport({ imports }, doc._id, 6 * 3_600_000, (d) => info(`  ${d.linesDone} lines read, ${d.inserted} inserted`));
    const { _id: id, state, linesDone, inserted, duplicates, invalid, unlinkedMentions, errors, error } = done;
    return JSON.stringify({ id, state, linesDone, inserted, duplicates, invalid, unlinkedMentions, errors: errors.slice(0, 10), error });
  });
}

async function edition(config: Config, args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { date: { type: 'string' }, edition: { type: 'string' }, file: { type: 'string' }, title: { type: 'string' }, 'published-at': { type: 'string' } },
  });
  if (!values.file) throw new UsageError('edition needs --file edition.md');
  const date = EditionDate.safeParse(values.date);
  if (!date.success) throw new UsageError(`edition needs --date YYYY-MM-DD (Monday to Saturday): ${date.error.issues[0]!.message}`);
  const name = EditionName.safeParse(values.edition);
  if (!name.success) throw new UsageError('edition needs --edition morning|night');
  const text = readFileSync(values.file, 'utf8');
  const firstLine = text.split('\n').find((l) => l.trim())?.replace(/^#+\s*/, '').trim() ?? '';
  const content = EditionContent.safeParse({ title: values.title ?? firstLine, text, publishedAt: values['published-at'] });
  if (!content.success) throw new UsageError(content.error.issues.map((i) => `${i.path.join('.') || 'edition'}: ${i.message}`).join('; '));
  return await withDb(config, async (conn) => {
    const { doc, created } = await createEditionRepo(conn).put(date.data, name.data, content.data);
    return JSON.stringify({ id: doc._id, created, title: doc.title, characters: doc.text.length });
  });
}

async function source(config: Config, args: string[]): Promise<string> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      feed: { type: 'string' },
      tier: { type: 'string' },
      language: { type: 'string' },
      sector: { type: 'string' },
      every: { type: 'string' },
      disabled: { type: 'boolean', default: false },
      id: { type: 'string' },
    },
  });
  return await withPlatform(config, async (deps) => {
    const sourceDeps = { sources: createSourceRepo(deps.conn), temporal: deps.temporal, taskQueuePrefix: config.temporal.taskQueuePrefix };
    if (sub === 'list') {
      const all = await sourceDeps.sources.list();
      return JSON.stringify(all.map((s) => ({ id: s._id, name: s.name, feedUrl: s.feedUrl, tier: s.tier, enabled: s.enabled, state: sourceState(s), every: s.pollIntervalMinutes, health: s.health })));
    }
    if (sub === 'add') {
      const input = SourceInput.safeParse({
        name: values.name,
        feedUrl: values.feed,
        ...(values.tier ? { tier: Number(values.tier) } : {}),
        ...(values.language ? { language: values.language } : {}),
        ...(values.sector ? { defaultSector: values.sector } : {}),
        ...(values.every ? { pollIntervalMinutes: Number(values.every) } : {}),
        enabled: !values.disabled,
      });
      if (!input.success) throw new UsageError(input.error.issues.map((i) => `${i.path.join('.') || 'source'}: ${i.message}`).join('; '));
      const doc = await addSource(sourceDeps, input.data);
      info(`source ${doc.name} added; its poller is news-source-${doc._id}`);
      return JSON.stringify({ id: doc._id, name: doc.name, feedUrl: doc.feedUrl, enabled: doc.enabled });
    }
    if (sub === 'disable' || sub === 'enable') {
      if (!values.id) throw new UsageError(`source ${sub} needs --id ID`);
      const doc = await changeSource(sourceDeps, values.id, { enabled: sub === 'enable' });
      return JSON.stringify({ id: doc._id, name: doc.name, enabled: doc.enabled });
    }
    throw new UsageError('source supports: add, list, disable, enable');
  });
}


/** Staff accounts (issue 38): the first owner comes from here. Changes are recorded in the audit log as done by `cli`. */
async function staff(config: Config, args: string[]): Promise<string> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { role: { type: 'string', multiple: true }, 'no-mail': { type: 'boolean', default: false }, locale: { type: 'string', default: 'en' } },
  });
  const address = () => {
    if (positionals.length !== 1) throw new UsageError(`staff ${sub} needs one EMAIL`);
    const email = Email.safeParse(positionals[0]);
    if (!email.success) throw new UsageError(`staff ${sub}: ${positionals[0]} is not an e-mail address`);
    return email.data;
  };
  if (sub === 'list') {
    if (positionals.length) throw new UsageError('staff list takes no arguments');
    return await withDb(config, async (conn) => JSON.stringify((await listMembers({ staff: createStaffRepo(conn) })).map(memberView)));
  }
  if (sub === 'add') {
    const email = address();
    let roles;
    try {
      roles = parseRoleList(values.role ?? []);
    } catch (err) {
      throw new UsageError(`staff add: ${(err as Error).message}`);
    }
    const locale = values.locale;
    if (locale !== 'pt' && locale !== 'en') throw new UsageError('staff add: --locale pt|en');
    const mailer = values['no-mail'] ? undefined : createMailer(config);
    try {
      return await withDb(config, async (conn) => {
        const member = await inviteMember(
          { staff: createStaffRepo(conn), mailer, webOrigin: new URL(config.web.url).origin, now: () => new Date() },
          { actor: CLI_ACTOR, email, roles, locale },
        );
        info(`${member._id} invited as ${member.roles.join(', ')}${mailer ? ' (the sign-in link was mailed)' : ''}: a member once the address signs in to the dashboard with a mailed code`);
        return JSON.stringify(memberView(member));
      });
    } finally {
      mailer?.close();
    }
  }
  if (sub === 'remove') {
    const email = address();
    return await withDb(config, async (conn) => {
      const { member, sessionsEnded } = await removeMember({ staff: createStaffRepo(conn), accounts: createAccountRepo(conn), now: () => new Date() }, { actor: CLI_ACTOR, email });
      return JSON.stringify({ email: member._id, sessionsEnded });
    });
  }
  throw new UsageError('staff supports: add, list, remove');
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  const config = loadConfigOrExit();
  try {
    let result: string;
    if (command === 'token') result = await token(config, args);
    else if (command === 'apikey') result = await apikey(config, args);
    else if (command === 'seed') result = await seed(config, args);
    else if (command === 'migrate') {
      result = await withDb(config, async (conn) =>
        JSON.stringify({
          articles: await migrateArticles(conn, info),
          support: await migrateSupport(conn, info),
          // The development database only: indexes of an earlier release moved to the ordered access method.
          indexes: await rebuildOldIndexes(conn, devPostgres(config), info),
        }),
      );
    }
    else if (command === 'import') result = await importArticles(config, args);
    else if (command === 'edition') result = await edition(config, args);
    else if (command === 'source') result = await source(config, args);
    else if (command === 'staff') result = await staff(config, args);
    else if (command === 'vapid-keys') result = JSON.stringify(generateVapidKeys());
    else throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
    process.stdout.write(`${result}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      info(`${(err as Error).message}\n${USAGE}`);
      return 64;
    }
    if (err instanceof AppError) {
      info(err.message);
      return 65; // EX_DATAERR: an unknown id, a feed read already…
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
