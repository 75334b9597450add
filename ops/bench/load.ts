/** What the benchmark scripts share: progress lines, percentiles and timed keep-alive GETs. */
import http from 'node:http';

export const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export interface TimedRequest {
  method?: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** A JSON body (POST). */
  body?: string;
}

/**
 * A request over `agent`, resolving to its latency in ms. Answers other than 2xx are counted in
 * `statuses` (the first of each status shown), not fatal: under load a dependency timing out is
 * answered 503, which is part of the result.
 */
export function timedRequest(agent: http.Agent, r: TimedRequest, statuses: Map<number, number>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const method = r.method ?? 'GET';
    const req = http.request(r.url, { agent, method, headers: { ...r.headers, ...(r.body ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if ((status < 200 || status > 299) && !statuses.has(status)) say(`  ${method} ${r.url} answered ${status}: ${body.slice(0, 300)}`);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        resolve(performance.now() - started);
      });
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/** A JSON request over `agent`: its status and parsed body (undefined when empty). */
export function jsonRequest<T = unknown>(agent: http.Agent, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: T | undefined }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: { ...headers, ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as T) : undefined });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

export const timedGet = (agent: http.Agent, url: string, headers: Record<string, string>, statuses: Map<number, number>): Promise<number> =>
  timedRequest(agent, { url, headers }, statuses);

/**
 * A closed loop: `callers` concurrent callers run `op(0)` … `op(count - 1)`, each calling its next
 * as soon as its last one returned (the machine's capacity). The latency of each call, and the
 * wall time of the whole, in milliseconds.
 */
export async function closedLoop(callers: number, count: number, op: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; ms: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, ms: performance.now() - started };
}

/**
 * Sends `warmup` and then `requests` over `connections` concurrent keep-alive connections (each
 * connection sends its next request when its last is answered) and prints one Markdown row:
 * `| name | p50 | p99 | requests/s | answers |`. Warm-up answers are not counted.
 */
export async function measureLoad(name: string, agent: http.Agent, connections: number, requests: readonly TimedRequest[], warmup: readonly TimedRequest[]): Promise<void> {
  say(`${name}…`);
  const statuses = new Map<number, number>();
  await closedLoop(connections, warmup.length, (i) => timedRequest(agent, warmup[i]!, new Map()));
  const { latencies, ms } = await closedLoop(connections, requests.length, (i) => timedRequest(agent, requests[i]!, statuses));
  const answers = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × ${s}`).join(', ');
  process.stdout.write(`| ${name} | ${percentile(latencies, 50).toFixed(1)} ms | **${percentile(latencies, 99).toFixed(1)} ms** | ${((requests.length * 1000) / ms).toFixed(0)} | ${answers} |\n`);
}
