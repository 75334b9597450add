/**
 * No body can take a process down: every malformed JSON, multipart and JSON-lines body sent to the
 * real entry points is a 4xx in the service's envelope, and afterwards the process is the same one
 * (same pid, still running, uptime not reset).
 */
import http from 'node:http';
import { startServiceProcess, type ServiceProcess } from '../helpers/processes';
import { tokenFor } from '../helpers/service';
import { buildTicket } from '../helpers/support';

jest.setTimeout(120_000);

let support: ServiceProcess;
let news: ServiceProcess;
let quiz: ServiceProcess;
let agent: string;
let admin: string;
let reader: string;
beforeAll(async () => {
  [support, news, quiz] = await Promise.all([startServiceProcess('support'), startServiceProcess('news'), startServiceProcess('quiz')]);
  agent = `Bearer ${await tokenFor('agent-malformed', ['support.agent'])}`;
  admin = `Bearer ${await tokenFor('admin-malformed', ['news.admin'])}`;
  reader = `Bearer ${await tokenFor('reader-malformed', [], 'reader-malformed@example.com')}`;
});
afterAll(async () => {
  await Promise.all([support, news, quiz].map((s) => s?.stop()));
});

interface Raw {
  status: number;
  body: Record<string, unknown>;
}

/** A request with exactly these bytes and headers (no client-side framing or fixing). */
async function raw(base: string, method: string, path: string, headers: Record<string, string>, body: Buffer | string): Promise<Raw> {
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, body: parsed };
}

async function newTicketId(): Promise<number> {
  const res = await raw(support.base, 'POST', '/support', { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.77.0.1' }, JSON.stringify(buildTicket()));
  expect(res.status).toBe(201);
  return (res.body.data as { id: number }).id;
}

const CRLF = '\r\n';
const multipart = (parts: string) => ({ headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ', Authorization: '' }, body: parts });

describe('malformed bodies', () => {
  it('multipart uploads with broken parts are 400 and the support process stays up', async () => {
    const pid = support.child.pid;
    const uptime = await support.uptimeSeconds();
    const id = await newTicketId();
    const cases: [string, string][] = [
      ['part header without a colon', `--XyZ${CRLF}Content-Disposition form-data; name="arquivo"; filename="a.txt"${CRLF}${CRLF}hello${CRLF}--XyZ--${CRLF}`],
      ['body cut off inside the file', `--XyZ${CRLF}Content-Disposition: form-data; name="arquivo"; filename="a.txt"${CRLF}Content-Type: text/plain${CRLF}${CRLF}hello wor`],
      ['body cut off inside the part header', `--XyZ${CRLF}Content-Disposition: form-data; name="arq`],
      ['header block that never ends', `--XyZ${CRLF}${'X-Long: aaaaaaaa'.repeat(8_000)}`],
      ['garbage after the preamble', `\u0000\u0001\u0002--XyZ--${CRLF}--XyZ${CRLF}${CRLF}`],
      ['a field sent twice (found by fuzzing)', `--XyZ${CRLF}Content-Disposition: form-data; name="mensagemId"${CRLF}${CRLF}1${CRLF}--XyZ${CRLF}Content-Disposition: form-data; name="mensagemId"${CRLF}${CRLF}2${CRLF}--XyZ${CRLF}Content-Disposition: form-data; name="arquivo"; filename="a.txt"${CRLF}Content-Type: text/plain${CRLF}${CRLF}hello${CRLF}--XyZ--${CRLF}`],
      ['no file part at all', `--XyZ${CRLF}Content-Disposition: form-data; name="mensagemId"${CRLF}${CRLF}1${CRLF}--XyZ--${CRLF}`],
    ];
    for (const [what, body] of cases) {
      const m = multipart(body);
      const res = await raw(support.base, 'POST', `/support/${id}/anexos`, { ...m.headers, Authorization: agent }, m.body);
      expect({ what, status: res.status, success: res.body.success }).toEqual({ what, status: 400, success: false });
      expect(typeof res.body.message).toBe('string');
    }
    const noBoundary = await raw(support.base, 'POST', `/support/${id}/anexos`, { 'Content-Type': 'multipart/form-data', Authorization: agent }, 'x');
    expect(noBoundary.status).toBe(400);
    expect(support.child.pid).toBe(pid);
    expect(support.child.exitCode).toBeNull();
    expect(await support.uptimeSeconds()).toBeGreaterThanOrEqual(uptime);
  });

  it('malformed JSON, unsupported charsets and broken compression are 4xx in each service envelope', async () => {
    const uptimes = await Promise.all([support, news, quiz].map((s) => s.uptimeSeconds()));
    const cases: [ServiceProcess, string, string, Record<string, string>, Buffer | string, number][] = [
      [support, 'POST', '/support', { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.77.0.2' }, '{"nome": "Ana",', 400],
      [support, 'POST', '/support', { 'Content-Type': 'application/json; charset=ebcdic', 'X-Forwarded-For': '10.77.0.3' }, '{}', 400],
      [support, 'POST', '/support', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-Forwarded-For': '10.77.0.4' }, 'not gzip at all', 400],
      [support, 'POST', '/support', { 'Content-Type': 'application/json', 'Content-Encoding': 'br-and-more', 'X-Forwarded-For': '10.77.0.5' }, '{}', 415],
      [support, 'POST', '/support', { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '10.77.0.6' }, 'nome=%E0%A4%A&email=%', 400],
      [news, 'PUT', '/api/preferences', { 'Content-Type': 'application/json', Authorization: reader }, '[1, 2,', 400],
      [news, 'POST', '/api/keys', { 'Content-Type': 'application/json', Authorization: reader }, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 400],
      [quiz, 'POST', '/ai/chat', { 'Content-Type': 'application/json', Authorization: reader }, '{"prompt": "oi"', 400],
      [quiz, 'POST', '/ai/chat', { 'Content-Type': 'application/json', Authorization: reader }, '{"prompt": "\u0000\ud800"}', 400],
    ];
    for (const [svc, method, path, headers, body, status] of cases) {
      const res = await raw(svc.base, method, path, headers, body);
      expect({ path, status: res.status, success: res.body.success }).toEqual({ path, status, success: false });
    }
    for (const [i, svc] of [support, news, quiz].entries()) {
      expect(svc.child.exitCode).toBeNull();
      expect(await svc.uptimeSeconds()).toBeGreaterThanOrEqual(uptimes[i]!);
    }
  });

  it('a JSON-lines import whose client goes away mid-body leaves the news process up', async () => {
    const pid = news.child.pid;
    const uptime = await news.uptimeSeconds();
    const url = new URL(`${news.base}/api/admin/articles/import`);
    await new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Content-Type': 'application/x-ndjson', Authorization: admin, 'Content-Length': '1000000' } });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write('{"title": "cortado no meio", "summary": ');
      setTimeout(() => req.destroy(), 300);
    });
    // Invalid UTF-8 and a cut last line are the import's business (counted per line), not a crash.
    const bad = await raw(news.base, 'POST', '/api/admin/articles/import', { 'Content-Type': 'application/x-ndjson', Authorization: admin }, Buffer.concat([Buffer.from('{"title": "a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n{"title": ')]));
    expect(bad.status).toBe(202);
    const wrongType = await raw(news.base, 'POST', '/api/admin/articles/import', { 'Content-Type': 'application/json', Authorization: admin }, '{"title": "x"}');
    expect(wrongType.status).toBe(415);
    expect(news.child.pid).toBe(pid);
    expect(news.child.exitCode).toBeNull();
    expect(await news.uptimeSeconds()).toBeGreaterThanOrEqual(uptime);
  });
});
