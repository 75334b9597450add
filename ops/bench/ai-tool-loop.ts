/**
 * Benchmark: orchestration overhead per tool iteration of POST /ai/chat-with-tools.
 *
 * In one run, against the OpenAI double answering at once:
 *  - through the API: HTTP → Koa (auth, rate limit) → Temporal workflow → worker → activities;
 *  - directly: the same model calls (same client, same double) and the same tool code, in-process.
 * Requests with FEW and MANY tool rounds are interleaved. The added latency of a request is
 * API − direct; the added latency per iteration is the slope between the two sizes,
 * ((API − direct)[MANY] − (API − direct)[FEW]) / (MANY − FEW), at p50 and p99, so the fixed cost of a
 * request (auth, rate limit, starting the workflow, waiting for its result) is reported apart.
 *
 * Run with `npm run bench:ai` (provisions the stack like `npm test`). Prints Markdown.
 */
import http from 'node:http';
import os from 'node:os';
import { createAiActivities } from '../../activities/ai.activities';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { createQuizService, makeQuizDeps } from '../../api/quiz/service';
import { BUILTIN_TOOLS, type ToolSpec } from '../../models/ai/tool.rules';
import { signToken } from '../../models/auth/token.rules';
import { loadConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { type ChatMessage, createLlmClient } from '../../models/infra/llm';
import { createOutbound } from '../../models/infra/outbound';
import { openAiDoubleControl, type Step } from '../../tests/doubles/openai-double';

const FEW = 1;
const MANY = 5;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 150);
const WARMUP = 15;

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

function script(iterations: number): Step[] {
  return [
    ...Array.from({ length: iterations }, () => ({ kind: 'tool_calls' as const, calls: [{ name: 'calculate_price', arguments: { plan: 'pro', quantity: 2, billingPeriod: 'monthly' } }] })),
    { kind: 'reply', content: 'done' },
  ];
}

/** BENCH_TRACE=1: where the time of the last API run went, from its workflow history. */
async function trace(client: ReturnType<typeof makeQuizDeps>['temporal']['client'], workflowId: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let prev: number | undefined;
  for (const e of history.events ?? []) {
    const t = Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
    process.stdout.write(`${String(e.eventId).padStart(3)} ${String(e.eventType).padEnd(4)} +${prev === undefined ? 0 : (t - prev).toFixed(1)} ms\n`);
    prev = t;
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const double = openAiDoubleControl(config.ai.baseUrl!);
  const infra = createInfra(config, 'quiz', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = makeQuizDeps(infra);
  const app = createApp(createQuizService(config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;

  const token = (user: string) => signToken(config.auth.jwtSecret!, { sub: user, permissions: ['ai.view'] });
  let lastWorkflowId = '';
  async function viaApi(i: number, iterations: number): Promise<number> {
    // A user per request: each has its own rate-limit window and script.
    const user = `bench-api-${iterations}-${i}`;
    await double.script(user, script(iterations));
    const auth = `Bearer ${await token(user)}`;
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/ai/chat-with-tools`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'price?', tools: ['calculate_price'] }),
    });
    const body = (await res.json()) as { data?: { toolResults: unknown[] } };
    const took = performance.now() - started;
    if (res.status !== 200 || body.data?.toolResults.length !== iterations) throw new Error(`unexpected API answer ${res.status}`);
    lastWorkflowId = res.headers.get('x-workflow-id') ?? lastWorkflowId;
    return took;
  }

  const llm = createLlmClient(config);
  const tools = createAiActivities({ conn, llm, outbound: createOutbound(config), mcpStdioProviders: {} });
  const spec: ToolSpec = { ...BUILTIN_TOOLS.find((t) => t.name === 'calculate_price')!, kind: 'builtin' };
  async function direct(i: number, iterations: number): Promise<number> {
    const user = `bench-direct-${iterations}-${i}`;
    await double.script(user, script(iterations));
    const started = performance.now();
    const messages: ChatMessage[] = [{ role: 'user', content: 'price?' }];
    for (;;) {
      const reply = await llm.complete({ model: config.ai.models.mini, messages, user, tools: [spec], maxTokens: config.ai.maxTokens });
      if (reply.toolCalls.length === 0) break;
      messages.push({ role: 'assistant', content: null, tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      for (const c of reply.toolCalls) {
        const out = await tools.runTool({ spec, call: { name: c.name, arguments: c.arguments }, userId: user });
        messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(out.result) });
      }
    }
    return performance.now() - started;
  }

  const samples = { apiFew: [] as number[], apiMany: [] as number[], directFew: [] as number[], directMany: [] as number[] };
  for (let i = 0; i < REQUESTS + WARMUP; i += 1) {
    const row = [await viaApi(i, FEW), await viaApi(i, MANY), await direct(i, FEW), await direct(i, MANY)];
    if (i < WARMUP) continue;
    samples.apiFew.push(row[0]!);
    samples.apiMany.push(row[1]!);
    samples.directFew.push(row[2]!);
    samples.directMany.push(row[3]!);
  }
  if (process.env.BENCH_TRACE) await trace(deps.temporal.client, lastWorkflowId);

  server.close();
  await closeInfra(infra);

  const p = (xs: number[], q: number) => percentile(xs, q);
  const line = (q: number) => {
    const addedFew = p(samples.apiFew, q) - p(samples.directFew, q);
    const addedMany = p(samples.apiMany, q) - p(samples.directMany, q);
    const perIteration = (addedMany - addedFew) / (MANY - FEW);
    return `| p${q} | ${p(samples.apiFew, q).toFixed(1)} / ${p(samples.directFew, q).toFixed(1)} | ${p(samples.apiMany, q).toFixed(1)} / ${p(samples.directMany, q).toFixed(1)} | ${(addedFew - perIteration * FEW).toFixed(1)} | **${perIteration.toFixed(1)}** |`;
  };
  process.stdout.write(
    [
      '',
      `AI tool loop: ${REQUESTS} requests (+${WARMUP} warm-up) each of ${FEW} and ${MANY} tool rounds (+ the final answer), API and direct interleaved`,
      `date ${new Date().toISOString()}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      '',
      `| | ${FEW} round: API / direct (ms) | ${MANY} rounds: API / direct (ms) | fixed cost per request (ms) | added per iteration (ms) |`,
      '|---|---:|---:|---:|---:|',
      line(50),
      line(99),
      '',
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
