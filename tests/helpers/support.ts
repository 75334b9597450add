/** The support service in-process (behind a trusted proxy, so each test can be its own client IP). */
import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeSupportDeps, supportService, type SupportDeps } from '../../api/support/service';
import { TICKET_ISSUES } from '../../models/support/ticket.rules';
import { startTestService, testConfig, tokenFor, type TestService } from './service';

export type SupportService = TestService<SupportDeps>;

export const startSupportService = (overrides: Record<string, string> = {}) =>
  startTestService(supportService, makeSupportDeps, { config: testConfig({ TRUST_PROXY: 'true', ...overrides }) });

/** A client with its own IP (its own rate-limit window) and, optionally, a token. */
export function client(svc: SupportService, token?: string) {
  const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const withHeaders = (t: request.Test) => {
    t.set('X-Forwarded-For', ip);
    return token ? t.set('Authorization', `Bearer ${token}`) : t;
  };
  const agent = request(svc.callback);
  return {
    ip,
    get: (path: string) => withHeaders(agent.get(path)),
    post: (path: string, body?: object) => withHeaders(agent.post(path)).send(body ?? {}),
    patch: (path: string, body: object) => withHeaders(agent.patch(path)).send(body),
    put: (path: string, body: object) => withHeaders(agent.put(path)).send(body),
    delete: (path: string) => withHeaders(agent.delete(path)),
  };
}

export const agentToken = (sub = `agent-${randomUUID().slice(0, 6)}`) => tokenFor(sub, ['support.agent'], `${sub}@newsletter.dev`);
export const readerToken = (email: string) => tokenFor(`reader-${randomUUID().slice(0, 6)}`, [], email);

/** A valid ticket body with a unique e-mail. */
export function buildTicket(overrides: Record<string, unknown> = {}) {
  return {
    main: 'Entrega',
    issue: TICKET_ISSUES[1],
    description: 'Não recebo a edição da manhã desde segunda-feira.',
    email: `leitor-${randomUUID().slice(0, 8)}@example.com`,
    newsletter: 'The News',
    ...overrides,
  };
}

/** Inserts `n` open tickets directly (bulk tests need many). */
export async function insertTickets(svc: SupportService, n: number): Promise<number[]> {
  return await svc.deps.tickets.insertMany(Array.from({ length: n }, (_, i) => buildTicket({ email: `bulk-${randomUUID().slice(0, 8)}-${i}@example.com` })));
}

/** Polls a bulk operation (as ever-new client IPs, never meeting the per-IP limit) until it ends. */
export async function waitForBulk(svc: SupportService, jwt: string, operationId: string, until: (op: any) => boolean = (op) => ['completed', 'cancelled', 'failed'].includes(op.state), timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await client(svc, jwt).get(`/support/bulk/${operationId}`).expect(200);
    if (until(res.body.data)) return res.body.data;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`bulk operation ${operationId} did not reach the expected state within ${timeoutMs} ms`);
}
