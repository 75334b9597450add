/**
 * Bulk operations over a whole queue view, and the bulk tag and assignment operations (issue 38),
 * through the real worker: a view's tickets are taken when the operation starts; tags go on and
 * off; a manager reassigns, an agent only takes what no one has; refusals change nothing.
 */
import { randomUUID } from 'node:crypto';
import { createStaffRepo } from '../../models/staff/staff.repo';
import { inviteMember } from '../../operations/staff/members';
import { tokenFor } from '../helpers/service';
import { agentToken, client, insertTickets, waitForBulk, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(60_000);

let svc: SupportService;
beforeAll(async () => {
  svc = await startSupportService();
});
afterAll(() => svc?.close());

const who = (name: string) => `${name}-${randomUUID().slice(0, 6)}`;

/** Tickets of a newsletter of their own: a view no other test's tickets fall into. */
async function ticketsOfNewsletter(n: number): Promise<{ ids: number[]; newsletter: string }> {
  const ids = await insertTickets(svc, n);
  const newsletter = `Bulk ${randomUUID().slice(0, 8)}`;
  await svc.deps.mongo.conn.collection('tickets').updateMany({ _id: { $in: ids } } as never, { $set: { newsletter } });
  return { ids, newsletter };
}

async function aTag(): Promise<number> {
  const sub = who('tagger');
  const res = await client(svc, await agentToken(sub)).post('/support/tags', { name: who('t'), color: '#123456' }).expect(201);
  return res.body.data.id as number;
}

describe('a whole view', () => {
  it('tags every ticket the view selects when it starts, and takes a tag off them', async () => {
    const { ids, newsletter } = await ticketsOfNewsletter(7);
    const [tag, old] = [await aTag(), await aTag()];
    for (const id of ids) await svc.deps.tickets.addTag(id, old);
    const jwt = await agentToken(who('agent'));
    const res = await client(svc, jwt).post('/support/bulk/tags', { filter: { view: 'unassigned', newsletter }, add: [tag], remove: [old] }).expect(202);
    expect(res.body.data).toMatchObject({ type: 'tags', total: 7 });
    expect(await waitForBulk(svc, jwt, res.body.data.operationId)).toMatchObject({ state: 'completed', succeeded: 7, failed: 0 });
    for (const t of await svc.deps.tickets.findByIds(ids)) expect(t.tags).toEqual([tag]);
  });

  it('resolves a whole view', async () => {
    const { ids, newsletter } = await ticketsOfNewsletter(4);
    const jwt = await agentToken(who('agent'));
    const res = await client(svc, jwt).post('/support/bulk/status', { filter: { newsletter, status: 'open' }, status: 'resolved' }).expect(202);
    expect(res.body.data.total).toBe(4);
    expect(await waitForBulk(svc, jwt, res.body.data.operationId)).toMatchObject({ state: 'completed', succeeded: 4 });
    expect((await svc.deps.tickets.findByIds(ids)).map((t) => t.status)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
  });

  it.each([
    ['both ids and a view', { ticketIds: [1], filter: { view: 'open' }, status: 'closed' }],
    ['neither', { status: 'closed' }],
    ['a view that selects nothing', { filter: { newsletter: 'no such newsletter at all' }, status: 'closed' }],
    ['an unknown filter', { filter: { sender: 'x' }, status: 'closed' }],
  ])('refuses %s with 400, starting nothing', async (_label, body) => {
    const jwt = await agentToken(who('agent'));
    const before = await svc.deps.mongo.conn.collection('bulk_operations').countDocuments();
    const res = await client(svc, jwt).post('/support/bulk/status', body).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(await svc.deps.mongo.conn.collection('bulk_operations').countDocuments()).toBe(before);
  });

  it('refuses tags that do not exist (404) and a tag both added and removed (400)', async () => {
    const jwt = await agentToken(who('agent'));
    await client(svc, jwt).post('/support/bulk/tags', { ticketIds: [1], add: [987654321] }).expect(404);
    const tag = await aTag();
    await client(svc, jwt).post('/support/bulk/tags', { ticketIds: [1], add: [tag], remove: [tag] }).expect(400);
    await client(svc, jwt).post('/support/bulk/tags', { ticketIds: [1] }).expect(400);
  });
});

describe('bulk assignment', () => {
  it('lets an agent take the tickets no one has, reporting the others', async () => {
    const { ids } = await ticketsOfNewsletter(3);
    const [a, b] = [who('ana'), who('bruno')];
    await client(svc, await agentToken(b)).put(`/support/${ids[0]}/assignee`, { assignee: `${b}@newsletter.dev` }).expect(200);
    const jwt = await agentToken(a);
    const res = await client(svc, jwt).post('/support/bulk/assign', { ticketIds: ids, assignee: `${a}@newsletter.dev` }).expect(202);
    const done = await waitForBulk(svc, jwt, res.body.data.operationId);
    expect(done).toMatchObject({ state: 'completed', succeeded: 2, failed: 1, errors: [{ ticketId: ids[0], error: `assigned to ${b}@newsletter.dev` }] });
    expect((await svc.deps.tickets.findByIds(ids)).map((t) => t.assignee)).toEqual([`${b}@newsletter.dev`, `${a}@newsletter.dev`, `${a}@newsletter.dev`]);
    // Someone else: a manager's.
    await client(svc, jwt).post('/support/bulk/assign', { ticketIds: ids, assignee: `${b}@newsletter.dev` }).expect(403);
  });

  it('lets a manager reassign every ticket to an active agent, and refuses an address that is no agent', async () => {
    const { ids, newsletter } = await ticketsOfNewsletter(3);
    const b = who('bruno');
    await client(svc, await agentToken(b)).put(`/support/${ids[0]}/assignee`, { assignee: `${b}@newsletter.dev` }).expect(200);
    const carla = `${who('carla')}@newsletter.dev`;
    const sub = who('chefe');
    const jwt = await tokenFor(sub, ['support.manager', 'support.agent'], `${sub}@newsletter.dev`);
    await client(svc, jwt).post('/support/bulk/assign', { filter: { newsletter }, assignee: carla }).expect(400);
    await inviteMember({ staff: createStaffRepo(svc.deps.mongo.conn), now: () => new Date() } as never, { actor: 'cli', email: carla, roles: ['support.agent'] });
    await svc.deps.mongo.conn.collection('staff_members').updateOne({ _id: carla as never }, { $set: { status: 'active' } });
    const res = await client(svc, jwt).post('/support/bulk/assign', { filter: { newsletter }, assignee: carla }).expect(202);
    expect(await waitForBulk(svc, jwt, res.body.data.operationId)).toMatchObject({ state: 'completed', succeeded: 3 });
    expect((await svc.deps.tickets.findByIds(ids)).map((t) => t.assignee)).toEqual([carla, carla, carla]);
  });
});
