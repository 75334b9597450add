/**
 * The staff console's API (api/web/console.ts): the support, news, quiz and AI operations a staff
 * permission reaches, served by the dashboard under the staff session with the same permissions,
 * and nothing else (no public route, API key, webhook or a reader's own route).
 */
import { z } from 'zod';
import { consoleRoutes } from '../../api/web/console';
import { webService } from '../../api/web/service';
import { newsService } from '../../api/news/service';
import { supportService } from '../../api/support/service';
import { createQuizService } from '../../api/quiz/service';
import type { AnyRoute } from '../../api/shared/route';
import { loadConfig } from '../../models/config';
import { STAFF_PERMISSIONS } from '../../models/staff/staff.rules';

const config = loadConfig();
const mounted = consoleRoutes<never>(config);
const schemaOf = (s: z.ZodType | undefined) => (s === undefined ? undefined : z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }));
const key = (r: Pick<AnyRoute, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;

const sources: { name: string; routes: AnyRoute<unknown>[]; at: (p: string) => string }[] = [
  { name: 'support', routes: supportService.routes as AnyRoute<unknown>[], at: (p) => (p.startsWith('/support') ? `/api/staff${p}` : `/api/staff/support${p}`) },
  { name: 'news', routes: newsService.routes as AnyRoute<unknown>[], at: (p) => `/api/staff/news${p.replace(/^\/api/, '')}` },
  { name: 'quiz', routes: createQuizService(config).routes as AnyRoute<unknown>[], at: (p) => (/^\/(quiz|ai)\//.test(p) ? `/api/staff${p}` : `/api/staff/quiz${p}`) },
];

describe('the console mounts the staff operations', () => {
  it('serves every operation that needs a staff permission, at its documented place, with the same schemas', () => {
    const byKey = new Map(mounted.map((r) => [key(r), r]));
    let count = 0;
    for (const source of sources) {
      for (const route of source.routes) {
        const perms = route.auth.permissions;
        if (!perms || perms.length === 0) continue;
        if (!perms.every((p) => (STAFF_PERMISSIONS as readonly string[]).includes(p))) {
          expect(byKey.has(`${route.method.toUpperCase()} ${source.at(route.path)}`)).toBe(false); // quiz.readings: the sending system's
          continue;
        }
        const m = byKey.get(`${route.method.toUpperCase()} ${source.at(route.path)}`);
        expect(m).toBeDefined();
        for (const part of ['body', 'query', 'params', 'response'] as const) expect(schemaOf(m![part])).toEqual(schemaOf(route[part]));
        expect(m!.auth.scheme).toBe('sessionCookie');
        expect(m!.auth.describe).toBe(`dashboard session of a staff member with permission ${perms.join(', ')}`);
        count++;
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it('mounts the support routes any token reaches (a ticket, its messages) for support.agent, and no other service\'s', () => {
    const ticket = mounted.find((r) => key(r) === 'GET /api/staff/support/:id');
    expect(ticket?.auth.describe).toBe('dashboard session of a staff member with permission support.agent');
    const readerRoutes = [...sources[1]!.routes, ...sources[2]!.routes].filter((r) => r.auth.permissions?.length === 0);
    expect(readerRoutes.length).toBeGreaterThan(0);
    for (const r of readerRoutes) expect(mounted.map(key)).not.toContain(key({ method: r.method, path: (r.path.startsWith('/api') ? sources[1]! : sources[2]!).at(r.path) }));
  });

  it('never mounts a public route, an API key\'s or a provider\'s signed webhook', () => {
    const creds = new Set(mounted.map((r) => r.auth.scheme));
    expect([...creds]).toEqual(['sessionCookie']);
    expect(mounted.map(key)).not.toContain('POST /api/staff/support'); // public ticket creation
    expect(mounted.some((r) => /webhook/.test(r.path))).toBe(false);
    expect(mounted.some((r) => /\/health|openapi/.test(r.path))).toBe(false);
  });

  it('asks only for permissions a staff member can hold', () => {
    for (const r of mounted) {
      const m = /with permission (.+)$/.exec(r.auth.describe);
      expect(m).not.toBeNull();
      for (const p of m![1]!.split(', ')) expect(STAFF_PERMISSIONS).toContain(p);
    }
  });

  it('collides with none of the dashboard\'s own routes, nor with itself', () => {
    const own = new Set(webService.routes.map(key));
    const keys = mounted.map(key);
    expect(keys.filter((k) => own.has(k))).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
