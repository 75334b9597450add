/**
 * One-document reads and writes by `_id` are index lookups on the database the tests run against.
 * On FerretDB v1 this holds only for string/ObjectId `_id` filters and only with our patched build
 * (ops/binaries.ts): a regression makes every ticket operation scan its whole collection.
 */
import { ticketKey } from '../../models/support/support.model';
import { buildTicket, startSupportService, type SupportService } from '../helpers/support';

let svc: SupportService;
beforeAll(async () => {
  svc = await startSupportService();
});
afterAll(() => svc?.close());

it('finds a ticket by its key through the _id index, not by scanning', async () => {
  const ticket = await svc.deps.tickets.create(buildTicket(), 'test');
  const db = svc.deps.mongo.conn.db!;
  const explained = await db.command({ explain: { find: 'tickets', filter: { _id: ticketKey(ticket._id) } } });
  const plan = JSON.stringify(explained.queryPlanner);
  if (explained.serverInfo?.ferretdbVersion) {
    expect(explained.filterPushdown).toBe(true);
    expect(plan).toMatch(/SEARCH tickets_\w+ USING INDEX tickets_\w+__id_/);
  } else {
    expect(plan).toMatch(/IDHACK|EXPRESS_IXSCAN|IXSCAN/);
  }
  expect((await svc.deps.tickets.findById(ticket._id))?.email).toBe(ticket.email);
});
