/**
 * One alert per reader and article across channels, claimed a page at a time (news_alert_claims,
 * claimMany) on the real database: a page's claims in one insert; the same page again (a retried
 * activity) holds the same readers; another channel never takes a reader a channel already holds;
 * two pages racing for the same readers on different channels give each reader exactly one; a
 * handed-over claim is held by the next channel.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { loadConfig } from '../../models/config';
import { ALERT_CLAIM_COLLECTION, createAlertClaimRepo } from '../../models/news/alert-claim.repo';

let conn: mongoose.Connection;
const at = new Date('2026-11-27T12:00:00Z');

beforeAll(async () => {
  const config = loadConfig();
  conn = await mongoose.createConnection(config.mongo.uri!, { dbName: `claims_${randomUUID().slice(0, 8)}` }).asPromise();
});

afterAll(async () => {
  await conn?.dropDatabase().catch(() => undefined);
  await conn?.close();
});

const readers = (n: number, prefix = 'u') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

it('claims a page in one go, and a retry of the page holds the same readers', async () => {
  const claims = createAlertClaimRepo(conn);
  const ids = readers(50);
  const first = await claims.claimMany('a1', ids.map((userId) => ({ userId, channel: 'email' as const })), at);
  expect([...first].sort()).toEqual([...ids].sort());
  const again = await claims.claimMany('a1', ids.map((userId) => ({ userId, channel: 'email' as const })), at);
  expect(again.size).toBe(50);
  expect(await conn.db!.collection(ALERT_CLAIM_COLLECTION).countDocuments({ articleId: 'a1' })).toBe(50);
  expect(await claims.claimMany('a1', [], at)).toEqual(new Set());
});

it('another channel never takes a reader another holds; a new reader in the same page is claimed', async () => {
  const claims = createAlertClaimRepo(conn);
  await claims.claimMany('a2', [{ userId: 'r1', channel: 'push' }], at);
  const held = await claims.claimMany(
    'a2',
    [
      { userId: 'r1', channel: 'email' },
      { userId: 'r2', channel: 'email' },
    ],
    at,
  );
  expect(held).toEqual(new Set(['r2']));
  expect(await claims.channelOf('a2', 'r1')).toBe('push');
  // One reader's claim (the WhatsApp alerts') answers the same.
  expect(await claims.claim('a2', 'r1', 'whatsapp', at)).toBe(false);
  expect(await claims.claim('a2', 'r1', 'push', at)).toBe(true);
  expect(await claims.claim('a2', 'r3', 'whatsapp', at)).toBe(true);
  // The same reader of another article is another claim.
  expect(await claims.claimMany('a3', [{ userId: 'r1', channel: 'email' }], at)).toEqual(new Set(['r1']));
});

it('two pages racing for the same readers on different channels tell each reader once', async () => {
  const claims = createAlertClaimRepo(conn);
  const ids = readers(100, 'race');
  const [byPush, byMail] = await Promise.all([
    claims.claimMany('a4', ids.map((userId) => ({ userId, channel: 'push' as const })), at),
    claims.claimMany('a4', ids.map((userId) => ({ userId, channel: 'email' as const })), at),
  ]);
  for (const id of ids) expect(Number(byPush.has(id)) + Number(byMail.has(id))).toBe(1);
  const stored = await conn.db!.collection<{ userId: string; channel: string }>(ALERT_CLAIM_COLLECTION).find({ articleId: 'a4' }).toArray();
  expect(stored).toHaveLength(100);
  for (const doc of stored) expect((doc.channel === 'push' ? byPush : byMail).has(doc.userId)).toBe(true);
});

it('a claim handed over to the next channel is held by it, and no longer by the first', async () => {
  const claims = createAlertClaimRepo(conn);
  await claims.claimMany('a5', [{ userId: 'h1', channel: 'push' }], at);
  expect(await claims.handOver('a5', 'h1', 'push', 'email')).toBe(true);
  expect(await claims.claimMany('a5', [{ userId: 'h1', channel: 'email' }], at)).toEqual(new Set(['h1']));
  expect(await claims.claimMany('a5', [{ userId: 'h1', channel: 'push' }], at)).toEqual(new Set());
});
