/**
 * Demo data for every service, idempotent (fixed ids; demo keys are rotated on every run).
 * Each domain adds its seeder here as it lands.
 */
import { Readable } from 'node:stream';
import type { Connection } from 'mongoose';
import type { EntityDoc } from '../models/news/entity.model';
import type { ImportCounts } from '../models/news/import.repo';
import { queueImport, waitForImport, type QueueDeps } from '../models/news/import.queue';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { PLANS, type Plan } from '../models/news/plan.rules';
import { createUserRepo } from '../models/users/user.repo';
import { corpusEntities, corpusLines } from './news-corpus';
import { isDuplicateKey } from '../models/infra/mongo';

export interface SeedContext {
  conn: Connection;
  log: (line: string) => void;
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

export const SEEDERS: Seeder[] = [usersAndKeys];

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
 * `articles` articles imported through the news ingest workflow like any import (needs the
 * worker). Re-running with the same sizes adds nothing (URLs are deduplicated).
 */
export async function seedNewsCorpus(
  deps: QueueDeps & { log: (line: string) => void },
  sizes: { articles: number; entities: number },
): Promise<{ entities: number; articles: ImportCounts & { importId: string; state: string } }> {
  const now = new Date();
  const entities = corpusEntities(sizes.entities, now);
  const coll = deps.conn.db!.collection<EntityDoc>('entities');
  // Inserts, keeping entities already there (fixed ids). Not upserts: FerretDB v1 stalled on a
  // bulk of upserts into this collection (its connection pool ran dry; docs/decisions.md).
  for (let i = 0; i < entities.length; i += 1_000) {
    await coll.insertMany(entities.slice(i, i + 1_000).map(({ sector: _sector, ...e }) => e), { ordered: false }).catch((err: { writeErrors?: unknown[] }) => {
      if (!(err.writeErrors ?? [err]).every(isDuplicateKey)) throw err;
    });
  }
  deps.log(`entities: ${entities.length} written; queueing ${sizes.articles} articles…`);
  const started = Date.now();
  const doc = await queueImport(deps, Readable.from(corpusLines(sizes.articles, entities, now)), { source: 'seed', requestedBy: 'cli', maxBytes: Number.MAX_SAFE_INTEGER });
  const done = await waitForImport(deps.conn, doc._id, 6 * 3_600_000, (d) => deps.log(`  ${d.linesDone}/${sizes.articles} lines, ${d.inserted} inserted (${Math.round((Date.now() - started) / 1000)} s)`));
  const { linesDone, inserted, duplicates, invalid, unlinkedMentions } = done;
  return { entities: entities.length, articles: { importId: done._id, state: done.state, linesDone, inserted, duplicates, invalid, unlinkedMentions } };
}
