/**
 * Demo data for every service, idempotent (fixed ids; demo keys are rotated on every run).
 * Each domain adds its seeder here as it lands.
 */
import { Readable } from 'node:stream';
import type { Connection } from 'mongoose';
import type { EntityDoc } from '../models/news/entity.model';
import { createImportRepo, type ImportCounts } from '../models/news/import.repo';
import { queueImport, waitForImport, type QueueDeps } from '../operations/news/queue-import';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { PLANS, type Plan } from '../models/shared/plan.rules';
import { createQuickReplyRepo, createTagRepo } from '../models/support/catalog.repo';
import { ticketModel } from '../models/support/support.model';
import { createTicketRepo } from '../models/support/ticket.repo';
import { NEWSLETTER_NAME, type TicketIssue, type TicketStatus } from '../models/support/ticket.rules';
import { createUserRepo } from '../models/users/user.repo';
import { corpusEntities, corpusLines } from './news-corpus';
import { isDuplicateKey } from '../models/infra/mongo';
import { addSource, type SourceDeps } from '../operations/news/sources';
import type { SourceRepo } from '../models/news/sources/source.repo';
import { SourceInput } from '../models/news/sources/source.rules';
import { createStaffRepo } from '../models/staff/staff.repo';
import { SEED_ACTOR, type StaffRole } from '../models/staff/staff.rules';
import { inviteMember } from '../operations/staff/members';

export interface SeedContext {
  conn: Connection;
  log: (line: string) => void;
  /** NODE_ENV: the demo staff is made everywhere but production. */
  env?: 'development' | 'test' | 'production';
}

export interface Seeder {
  name: string;
  run(ctx: SeedContext): Promise<Record<string, unknown>>;
}

export const DEMO_USERS: { id: string; email: string; plan: Plan }[] = [
  ...PLANS.map((plan) => ({ id: `demo-${plan}`, email: `${plan}@demo.newsletter.dev`, plan })),
  { id: 'demo-agent', email: 'agent@demo.newsletter.dev', plan: 'starter' },
];

const usersAndKeys: Seeder = {
  name: 'users and news API keys',
  async run({ conn }) {
    const users = createUserRepo(conn);
    const keys = createApiKeyRepo(conn);
    const apiKeys: Record<string, string> = {};
    for (const u of DEMO_USERS) await users.setPlan(u.id, u.plan, u.email);
    for (const plan of PLANS) {
      const userId = `demo-${plan}`;
      await keys.revokeByName(userId, 'demo');
      const { key } = await keys.create({ userId, name: 'demo', mode: 'live', scopes: ['*'], expiresAt: null });
      apiKeys[plan] = key;
    }
    return { users: DEMO_USERS.length, apiKeys };
  },
};

/** Readers who write to support in the demo data (their e-mail domain marks the demo tickets). */
const DEMO_READER_DOMAIN = 'leitores.demo.newsletter.dev';
const DEMO_TAGS = [
  { name: 'Urgente', color: '#d93025' },
  { name: 'Entrega', color: '#1a73e8' },
  { name: 'Prêmios', color: '#f9ab00' },
  { name: 'Cadastro', color: '#188038' },
];
const DEMO_QUICK_REPLIES = [
  { title: 'Reenvio da edição', content: 'Olá! Reenviamos a edição de hoje para o seu e-mail. Confira também a caixa de promoções.', category: 'entrega' },
  { title: 'Prêmio a caminho', content: 'Seu prêmio já foi despachado e deve chegar em até 10 dias úteis. Obrigado pela paciência!', category: 'prêmios' },
  { title: 'Cadastro atualizado', content: 'Pronto! Atualizamos o seu cadastro. Qualquer coisa, é só responder este e-mail.', category: 'cadastro' },
];
const DEMO_TICKETS: { issue: TicketIssue; description: string; tag: string; status: TicketStatus; reply?: string }[] = [
  { issue: 'Não estou recebendo a edição', description: 'Desde segunda-feira a edição da manhã não chega no meu Gmail.', tag: 'Entrega', status: 'open' },
  { issue: 'Não recebi meus prêmios', description: 'Completei 30 indicações em agosto e a caneca ainda não chegou.', tag: 'Prêmios', status: 'in_progress', reply: 'Verificamos com a transportadora: a entrega está prevista para esta semana.' },
  { issue: 'Me desinscrevi e continuo recebendo', description: 'Cancelei a inscrição duas vezes e continuo recebendo os e-mails.', tag: 'Urgente', status: 'open' },
  { issue: 'Alterações de cadastro', description: 'Quero trocar o e-mail cadastrado pelo meu e-mail do trabalho.', tag: 'Cadastro', status: 'resolved', reply: 'Feito! A partir de amanhã a edição chega no novo endereço.' },
  { issue: 'Meus pontos no streak não estão contabilizando', description: 'Li todas as edições da semana e o streak voltou para zero.', tag: 'Urgente', status: 'in_progress', reply: 'Encontramos o problema e vamos recalcular o seu streak hoje.' },
  { issue: 'Prêmio com defeito', description: 'O fone que recebi como prêmio não liga.', tag: 'Prêmios', status: 'closed', reply: 'Enviamos um novo fone; o código de rastreio segue por e-mail.' },
  { issue: 'Não estou conseguindo indicar', description: 'O link de indicação dá erro quando meus amigos clicam.', tag: 'Entrega', status: 'open' },
  { issue: 'Outros', description: 'Vocês têm uma edição em inglês?', tag: 'Cadastro', status: 'resolved', reply: 'Ainda não, mas a ideia está no nosso radar. Obrigado pela sugestão!' },
];

/**
 * Support demo data: tags, quick replies, and tickets in every status with reader messages and
 * agents' replies, written through the repositories (history and counters as the API writes
 * them). Idempotent: tags and quick replies by name, tickets only when no demo ticket exists.
 */
const supportDemo: Seeder = {
  name: 'support tickets, messages, tags and quick replies',
  async run({ conn }) {
    const tags = createTagRepo(conn);
    const replies = createQuickReplyRepo(conn);
    const tickets = createTicketRepo(conn);
    for (const t of DEMO_TAGS) await tags.create(t); // undefined when the name exists
    const tagIds = new Map((await tags.list()).map((t) => [t.name, t._id]));
    const titles = new Set((await replies.list()).map((r) => r.title));
    for (const r of DEMO_QUICK_REPLIES) if (!titles.has(r.title)) await replies.create(r, 'demo-agent');
    const demoEmail = { $regex: `@${DEMO_READER_DOMAIN.replace(/\./g, '\\.')}$` };
    const existing = await ticketModel(conn).countDocuments({ email: demoEmail });
    if (existing === 0) {
      for (const [i, d] of DEMO_TICKETS.entries()) {
        const email = `leitor${i + 1}@${DEMO_READER_DOMAIN}`;
        let ticket = await tickets.create({ main: 'Suporte', issue: d.issue, description: d.description, email, newsletter: NEWSLETTER_NAME }, email);
        await tickets.addTag(ticket._id, tagIds.get(d.tag)!);
        // The description is the reader's first message; then the agent's reply and, where it
        // solved things, the reader's thanks.
        if (d.reply) await tickets.addMessage(ticket, { conteudo: d.reply, remetente: 'agent@demo.newsletter.dev', origem: 'admin' });
        ticket = (await tickets.findById(ticket._id))!;
        if (d.status === 'resolved') await tickets.addMessage(ticket, { conteudo: 'Obrigado, deu certo!', remetente: email, origem: 'usuario' });
        if (ticket.status !== d.status) await tickets.changeStatus(ticket, d.status, 'agent@demo.newsletter.dev', 'patch');
      }
    }
    return {
      support: {
        tickets: await ticketModel(conn).countDocuments({ email: demoEmail }),
        tags: DEMO_TAGS.length,
        quickReplies: DEMO_QUICK_REPLIES.length,
      },
    };
  },
};

/**
 * The demo staff (issue 38): an owner and a support agent, invited (by `seed`, with no mail sent),
 * each a member once its address signs in to the dashboard with a code (Mailpit catches it in
 * development). Idempotent: a member already there is left as it is. Never in production, where
 * whoever reads a demo address's mail would become an owner: there the first owner comes from
 * `npm run cli -- staff add`.
 */
export const DEMO_STAFF: { email: string; roles: StaffRole[] }[] = [
  { email: 'owner@demo.newsletter.dev', roles: ['owner'] },
  { email: 'agent@demo.newsletter.dev', roles: ['support.agent'] },
];

const staffDemo: Seeder = {
  name: 'staff (an owner and a support agent)',
  async run({ conn, env }) {
    if (env === 'production') return { staff: { skipped: 'production: add the first owner with npm run cli -- staff add EMAIL --role owner' } };
    const staff = createStaffRepo(conn);
    for (const m of DEMO_STAFF) {
      if (await staff.findMember(m.email)) continue;
      // No mailer: nobody is mailed, so there is no link to make (webOrigin).
      await inviteMember({ staff, webOrigin: '', now: () => new Date() }, { actor: SEED_ACTOR, email: m.email, roles: m.roles });
    }
    return { staff: Object.fromEntries(DEMO_STAFF.map((m) => [m.email, m.roles])) };
  },
};

export const SEEDERS: Seeder[] = [usersAndKeys, supportDemo, staffDemo];

export async function seedAll(ctx: SeedContext): Promise<Record<string, unknown>> {
  const summary: Record<string, unknown> = {};
  for (const seeder of SEEDERS) {
    ctx.log(`seeding ${seeder.name}…`);
    Object.assign(summary, await seeder.run(ctx));
  }
  return summary;
}

/**
 * The News API corpus: `entities` entities written directly (upserts by fixed id), then
 * `articles` articles imported through the news import workflow like any import (needs the
 * worker). Re-running with the same sizes adds nothing (URLs are deduplicated).
 */
export async function seedNewsCorpus(
  deps: Omit<QueueDeps, 'imports'> & { conn: Connection; log: (line: string) => void },
  sizes: { articles: number; entities: number },
): Promise<{ entities: number; articles: ImportCounts & { importId: string; state: string } }> {
  const now = new Date();
  const entities = corpusEntities(sizes.entities, now);
  const coll = deps.conn.db!.collection<EntityDoc>('entities');
  // Inserts, keeping entities already there (fixed ids).
  for (let i = 0; i < entities.length; i += 1_000) {
    await coll.insertMany(entities.slice(i, i + 1_000).map(({ sector: _sector, ...e }) => e), { ordered: false }).catch((err: { writeErrors?: unknown[] }) => {
      if (!(err.writeErrors ?? [err]).every(isDuplicateKey)) throw err;
    });
  }
  deps.log(`entities: ${entities.length} written; queueing ${sizes.articles} articles…`);
  const started = Date.now();
  const imports = createImportRepo(deps.conn);
  const doc = await queueImport({ ...deps, imports }, Readable.from(corpusLines(sizes.articles, entities, now)), { source: 'seed', requestedBy: 'cli', maxBytes: Number.MAX_SAFE_INTEGER });
  const done = await waitForImport({ imports }, doc._id, 6 * 3_600_000, (d) => deps.log(`  ${d.linesDone}/${sizes.articles} lines, ${d.inserted} inserted (${Math.round((Date.now() - started) / 1000)} s)`));
  const { linesDone, inserted, duplicates, invalid, unlinkedMentions } = done;
  return { entities: entities.length, articles: { importId: done._id, state: done.state, linesDone, inserted, duplicates, invalid, unlinkedMentions } };
}

/** A site of the news sites double, as its control API lists it (tests/doubles/news-web-double.ts). */
interface DoubleSite {
  name: string;
  feedUrl: string;
  tier: 1 | 2 | 3;
  language: 'pt';
  defaultSector?: string | null;
}

/**
 * Registers the sites of the news sites double as sources (development: `npm start` runs it), so
 * the pipeline runs with no setup: their pollers start at once. Idempotent: a feed already read
 * by a source is left alone.
 */
export async function seedSources(deps: SourceDeps & { sources: Pick<SourceRepo, 'byFeed'>; log: (line: string) => void }, doubleUrl: string): Promise<{ added: number; existing: number } | { skipped: string }> {
  let res: Response;
  try {
    res = await fetch(`${doubleUrl}/__control/info`, { signal: AbortSignal.timeout(5_000) });
  } catch {
    const skipped = `no news sites double answers at ${doubleUrl} (is \`npm start\` running?): no sources registered`;
    deps.log(skipped);
    return { skipped };
  }
  if (!res.ok) throw new Error(`the news sites double at ${doubleUrl} answered ${res.status}`);
  const { sites } = (await res.json()) as { sites: DoubleSite[] };
  const repo = deps.sources;
  let added = 0;
  let existing = 0;
  for (const site of sites) {
    if (await repo.byFeed(site.feedUrl)) {
      existing++;
      continue;
    }
    const input = SourceInput.parse({ name: site.name, feedUrl: site.feedUrl, tier: site.tier, language: site.language, defaultSector: site.defaultSector ?? null, pollIntervalMinutes: 1 });
    await addSource(deps, input);
    added++;
  }
  deps.log(`news sources: ${added} added, ${existing} already there (the news sites double at ${doubleUrl})`);
  return { added, existing };
}
