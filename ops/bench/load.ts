/** What the benchmark scripts share: progress lines, percentiles and timed keep-alive GETs. */
import http from 'node:http';

export const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/**
 * A GET over `agent`, resolving to its latency in ms. Answers other than 200 are counted in
 * `statuses` (the first of each status shown), not fatal: under load a dependency timing out is
 * answered 503, which is part of the result.
 */
export function timedGet(agent: http.Agent, url: string, headers: Record<string, string>, statuses: Map<number, number>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status !== 200 && !statuses.has(status)) say(`  GET ${url} answered ${status}: ${body.slice(0, 300)}`);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          resolve(performance.now() - started);
        });
      })
      .on('error', reject);
  });
}
