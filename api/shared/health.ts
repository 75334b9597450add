/**
 * GET /health: 200 when MongoDB, Temporal and MinIO all answer within the timeout, otherwise 503
 * in the service's envelope naming the dependencies that did not.
 *
 * It is public, so its probe is shared (issue 35): requests during a probe, or within
 * {@link PROBE_REUSE_MS} of its end, get its answer. A flood of /health costs the dependencies at
 * most one probe a second, and a monitor still sees a change within a second.
 */
import type { Context } from 'koa';
import type { Envelope } from './envelope';
import type { HealthCheck } from './infra';

export interface CheckResult {
  status: 'up' | 'down';
  latencyMs: number;
  error?: string;
}

const TIMEOUT_MS = 2_000;
/** How long a probe's answer is given to later requests. */
export const PROBE_REUSE_MS = 1_000;

async function runCheck(check: HealthCheck): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      }),
    ]);
    return { status: 'up', latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    // Only the error's kind goes out: messages may carry hosts or credentials.
    const reason = (err as { code?: string }).code ?? (err as Error).name ?? 'Error';
    return { status: 'down', latencyMs: Math.round(performance.now() - started), error: String(reason) };
  } finally {
    clearTimeout(timer);
  }
}

type Results = (readonly [string, CheckResult])[];

/** Runs every check once per `reuseMs`: callers meanwhile share the probe in flight, or the last one. */
export function sharedProbe(checks: HealthCheck[], reuseMs: number = PROBE_REUSE_MS, now: () => number = performance.now.bind(performance)): () => Promise<Results> {
  let last: { endedAt: number; results: Results } | undefined;
  let running: Promise<Results> | undefined;
  return async () => {
    if (last && now() - last.endedAt < reuseMs) return last.results;
    running ??= Promise.all(checks.map(async (c) => [c.name, await runCheck(c)] as const)).then((results) => {
      last = { endedAt: now(), results };
      running = undefined;
      return results;
    });
    return await running;
  };
}

export function healthHandler(service: string, checks: HealthCheck[], envelope: Envelope, startedAt: number) {
  const probe = sharedProbe(checks);
  return async (ctx: Context): Promise<void> => {
    const results = await probe();
    const byName = Object.fromEntries(results);
    const down = results.filter(([, r]) => r.status === 'down').map(([n]) => n);
    const uptimeSeconds = Math.round((Date.now() - startedAt) / 1000);
    ctx.set('Cache-Control', 'no-store');
    if (down.length === 0) {
      ctx.status = 200;
      ctx.body = { success: true, data: { status: 'ok', service, uptimeSeconds, checks: byName } };
      return;
    }
    ctx.status = 503;
    ctx.body = {
      ...envelope.failure({
        status: 503,
        code: 'DEPENDENCY_UNAVAILABLE',
        message: `Unavailable: ${down.join(', ')}`,
        details: { unavailable: down },
      }),
      data: { status: 'degraded', service, uptimeSeconds, checks: byName },
    };
  };
}
