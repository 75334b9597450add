/**
 * Demo data for every service, idempotent (fixed ids; demo keys are rotated on every run).
 * Each domain adds its seeder here as it lands.
 */
import type { Connection } from 'mongoose';
import { createApiKeyRepo } from '../models/news/api-key.repo';
import { PLANS, type Plan } from '../models/news/plan.rules';
import { createUserRepo } from '../models/users/user.repo';

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
