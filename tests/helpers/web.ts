/**
 * The dashboard's service in-process (its API checked against its OpenAPI document like every
 * test service), signed in the way a browser is: the code read from the mail in Mailpit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createWebService, makeWebDeps, type WebDeps } from '../../api/web/service';
import type { Logger } from '../../models/infra/logger';
import { startTestService, testConfig, type TestService } from './service';
import { latestCode } from './mailpit';

export type WebService = TestService<WebDeps> & { origin: string };

/**
 * The web service; `listen` also serves it on a port of loopback (for a browser), with WEB_URL
 * set to it so that its same-origin check and its links name that port.
 */
export async function startWebService(env: Record<string, string> = {}, o: { listen?: boolean; logger?: Logger } = {}): Promise<WebService & { server?: http.Server }> {
  let server: http.Server | undefined;
  let origin = env.WEB_URL ? new URL(env.WEB_URL).origin : 'http://127.0.0.1:3000';
  if (o.listen && !env.WEB_URL) {
    server = http.createServer();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  // Tests sign in many times from one address (127.0.0.1): the per-IP limits are not what they test
  // unless they say so (with TRUST_PROXY and a client IP of their own).
  const svc = await startTestService(createWebService, makeWebDeps, { config: testConfig({ WEB_URL: origin, WEB_SIGN_IN_PER_IP: '100000', WEB_VERIFY_PER_IP: '100000', ...env }), ...(o.logger ? { logger: o.logger } : {}) });
  server?.on('request', svc.callback);
  return {
    ...svc,
    origin,
    ...(server ? { server } : {}),
    close: async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await svc.close();
    },
  };
}

/** A browser's requests: the dashboard's Origin, its cookie, and the CSRF token once signed in. */
export class Browser {
  cookie = '';
  csrf = '';
  /** `forwardedFor`: the client IP a proxy reports (services started with TRUST_PROXY=true). */
  constructor(
    private readonly svc: WebService,
    private readonly forwardedFor?: string,
    /** The scheme a proxy that ended TLS reports (X-Forwarded-Proto). */
    private readonly forwardedProto?: 'https',
  ) {}

  private prepare(req: request.Test, withCsrf: boolean): request.Test {
    req.set('Origin', this.svc.origin);
    if (this.forwardedFor) req.set('X-Forwarded-For', this.forwardedFor);
    if (this.forwardedProto) req.set('X-Forwarded-Proto', this.forwardedProto);
    if (this.cookie) req.set('Cookie', this.cookie);
    if (withCsrf && this.csrf) req.set('X-CSRF-Token', this.csrf);
    return req;
  }

  get = (path: string) => this.prepare(request(this.svc.callback).get(path), false);
  post = (path: string, body?: object) => this.prepare(request(this.svc.callback).post(path), true).send(body);
  put = (path: string, body?: object) => this.prepare(request(this.svc.callback).put(path), true).send(body);
  patch = (path: string, body?: object) => this.prepare(request(this.svc.callback).patch(path), true).send(body);
  delete = (path: string) => this.prepare(request(this.svc.callback).delete(path), true);

  /** Keeps the session cookie a response set (or cleared). */
  keep(res: request.Response): request.Response {
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const session = set.find((c) => c.startsWith('nl_session='));
    if (session) this.cookie = session.split(';')[0]!.endsWith('=') ? '' : session.split(';')[0]!;
    if (res.body?.data?.csrfToken) this.csrf = res.body.data.csrfToken as string;
    return res;
  }

  /** Signs in (or up) as `email` with the code Mailpit received. */
  async signIn(email: string): Promise<request.Response> {
    const since = new Date();
    await this.post('/api/auth/sign-in', { email, locale: 'en' }).expect(202);
    const code = await latestCode(email, since);
    return this.keep(await this.post('/api/auth/verify', { email, code }).expect(200));
  }
}
