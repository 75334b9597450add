/**
 * Code samples of an operation in curl, TypeScript and Python (`x-codeSamples`, as Redocly, Scalar
 * and ReadMe show them), made from the route's worked example (route.ts `example`) and the
 * service's address, so that a sample is the example request and cannot drift from the document:
 * the TypeScript one calls the published typed client (clients/, openapi-fetch), the Python one
 * `requests`. Credentials come from the environment, never from the sample.
 */
import type { AnyRoute } from './route';

export interface CodeSample {
  lang: 'Shell' | 'TypeScript' | 'Python';
  label: string;
  source: string;
}

/** The credential each scheme sends, as a header, and the environment variable the samples read it from. */
const CREDENTIALS: Record<string, { header: string; value: (v: string) => string; env: string }> = {
  apiKeyAuth: { header: 'X-API-Key', value: (v) => v, env: 'NEWS_API_KEY' },
  bearerAuth: { header: 'Authorization', value: (v) => `Bearer ${v}`, env: 'API_TOKEN' },
  adminBearer: { header: 'Authorization', value: (v) => `Bearer ${v}`, env: 'ADMIN_TOKEN' },
};

/** The typed client of each service (clients/src/index.ts) and the options its credential goes in. */
const CLIENTS: Record<string, { factory: string; variable: string }> = {
  news: { factory: 'createNewsClient', variable: 'news' },
  support: { factory: 'createSupportClient', variable: 'support' },
  quiz: { factory: 'createQuizClient', variable: 'quiz' },
  web: { factory: 'createWebClient', variable: 'dashboard' },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value written as a Python literal. */
function python(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[\n${value.map((v) => `${inner}${python(v, inner)}`).join(',\n')},\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0 ? '{}' : `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${python(v, inner)}`).join(',\n')},\n${indent}}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as a TypeScript literal (single quotes, bare keys), indented under `indent`. */
function typescript(value: unknown, indent: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (typeof value !== 'object') return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value.map((v) => typescript(v, inner));
    const oneLine = `[${items.join(', ')}]`;
    return oneLine.length <= 80 && !oneLine.includes('\n') ? oneLine : `[\n${items.map((i) => `${inner}${i}`).join(',\n')},\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${IDENTIFIER.test(k) ? k : `'${k}'`}: ${typescript(v, inner)}`);
  if (entries.length === 0) return '{}';
  const oneLine = `{ ${entries.join(', ')} }`;
  return oneLine.length <= 80 && !oneLine.includes('\n') ? oneLine : `{\n${entries.map((e) => `${inner}${e}`).join(',\n')},\n${indent}}`;
}

/** Text in single quotes for a POSIX shell. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The query string of the example: a list comma-separated (explode: false, as the documents say). */
function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  const text = params.toString().replace(/%2C/g, ',');
  return text ? `?${text}` : '';
}

/** The three samples of a route of `service` served at `baseUrl`; none for a provider's webhook (Stripe and Meta call it, not a client). */
export function codeSamples(service: string, baseUrl: string, route: AnyRoute<unknown>): CodeSample[] {
  if (route.auth.signed || route.auth.scheme === 'metaVerifyToken') return [];
  const example = route.example ?? {};
  const params = (isObject(example.params) ? example.params : {}) as Record<string, unknown>;
  const query = (isObject(example.query) ? example.query : {}) as Record<string, unknown>;
  const templatePath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const concretePath = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(String(params[name] ?? `{${name}}`)));
  const url = `${baseUrl.replace(/\/$/, '')}${concretePath}${queryString(query)}`;
  const method = route.method.toUpperCase();
  const credential = route.auth.scheme ? CREDENTIALS[route.auth.scheme] : undefined;
  const cookie = route.auth.scheme === 'sessionCookie';
  const writes = route.method !== 'get';
  const mediaType = route.bodyType ?? 'application/json';
  const body = example.body;
  const multipart = mediaType === 'multipart/form-data';
  // A stream of Server-Sent Events stays open: read as it comes, never as one body.
  const events = ([] as string[]).concat(route.produces ?? []).includes('text/event-stream');

  // curl
  const curl = [`curl -sS ${events ? '-N ' : ''}${route.method === 'get' ? '' : `-X ${method} `}${shellQuote(url)}`];
  if (events) curl.push(`-H 'Accept: text/event-stream'`);
  if (credential) curl.push(`-H "${credential.header}: ${credential.value(`$${credential.env}`)}"`);
  if (cookie) curl.push('-b "nl_session=$SESSION"', ...(writes ? ['-H "X-CSRF-Token: $CSRF_TOKEN"'] : []));
  if (route.idempotent) curl.push('-H "Idempotency-Key: $(uuidgen)"');
  if (multipart) {
    for (const [k, v] of Object.entries(isObject(body) ? body : {})) curl.push(k === 'arquivo' ? `-F ${shellQuote(`${k}=@${String(v)}`)}` : `-F ${shellQuote(`${k}=${String(v)}`)}`);
  } else if (body !== undefined) {
    curl.push(`-H 'Content-Type: ${mediaType}'`, typeof body === 'string' ? `--data-binary ${shellQuote(body)}` : `--data ${shellQuote(JSON.stringify(body))}`);
  }

  // TypeScript: the published client, typed by the document.
  const client = CLIENTS[service] ?? { factory: 'createNewsClient', variable: 'client' };
  const auth =
    route.auth.scheme === 'apiKeyAuth'
      ? `, apiKey: process.env.${credential!.env}`
      : credential
        ? `, token: process.env.${credential.env}`
        : cookie
          ? `, headers: { cookie: \`nl_session=\${process.env.SESSION}\`${writes ? `, 'x-csrf-token': process.env.CSRF_TOKEN!` : ''} }`
          : '';
  const options: string[] = [];
  const paramsParts = [
    ...(Object.keys(params).length ? [`path: ${typescript(params, '    ')}`] : []),
    ...(Object.keys(query).length ? [`query: ${typescript(query, '    ')}`] : []),
  ];
  if (route.idempotent) paramsParts.push(`header: { 'Idempotency-Key': crypto.randomUUID() }`);
  if (paramsParts.length) options.push(`params: {\n    ${paramsParts.join(',\n    ')},\n  }`);
  if (events) options.push(`parseAs: 'stream'`);
  // A body the client does not serialise as JSON (a form, JSON lines) is handed over as it is.
  if (multipart) options.push('body: form as never', 'bodySerializer: () => form');
  else if (typeof body === 'string') options.push('body: lines', 'bodySerializer: () => lines', `headers: { 'content-type': '${mediaType}' }`);
  else if (body !== undefined) options.push(`body: ${typescript(body, '  ')}`);
  // JSON lines: one value a line, written as the values they are.
  const bodyLines =
    typeof body === 'string'
      ? [
          `const lines = ${typescript(
            body
              .split('\n')
              .filter((l) => l.trim() !== '')
              .map((l) => JSON.parse(l) as unknown),
            '',
          )}\n  .map((line) => JSON.stringify(line))\n  .join('\\n');`,
        ]
      : [];
  const formLines = multipart
    ? [
        'const form = new FormData();',
        ...Object.entries(isObject(body) ? body : {}).map(([k, v]) =>
          k === 'arquivo' ? `form.append('${k}', new Blob([await readFile(${JSON.stringify(String(v))})]), ${JSON.stringify(String(v))});` : `form.append('${k}', ${JSON.stringify(String(v))});`,
        ),
      ]
    : [];
  const ts = [
    `import { ${client.factory} } from '@newsletter-platform/clients';`,
    ...(multipart ? ["import { readFile } from 'node:fs/promises';"] : []),
    '',
    `const ${client.variable} = ${client.factory}({ baseUrl: '${baseUrl.replace(/\/$/, '')}'${auth} });`,
    ...formLines,
    ...bodyLines,
    `const { data, error } = await ${client.variable}.${method}('${templatePath}'${options.length ? `, {\n  ${options.join(',\n  ')},\n}` : ''});`,
    'if (error) throw new Error(JSON.stringify(error));',
    ...(events
      ? ['// Each event as it comes: `event:`, `id:` and `data:` lines, a blank line between events.', 'const reader = data!.pipeThrough(new TextDecoderStream()).getReader();', 'for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) process.stdout.write(chunk.value);']
      : ['console.log(data);']),
  ];

  // Python: requests.
  const headers: string[] = [];
  if (credential) headers.push(`"${credential.header}": ${credential.value('') ? `"${credential.value('')}" + ` : ''}os.environ["${credential.env}"]`);
  if (cookie && writes) headers.push('"X-CSRF-Token": os.environ["CSRF_TOKEN"]');
  if (route.idempotent) headers.push('"Idempotency-Key": str(uuid.uuid4())');
  if (typeof body === 'string') headers.push(`"Content-Type": "${mediaType}"`);
  const args = [`"${url.split('?')[0]}"`];
  if (Object.keys(query).length) args.push(`params=${python(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v])), '    ')}`);
  if (headers.length) args.push(`headers={${headers.join(', ')}}`);
  if (cookie) args.push('cookies={"nl_session": os.environ["SESSION"]}');
  if (multipart) {
    const fields = Object.entries(isObject(body) ? body : {});
    const file = fields.find(([k]) => k === 'arquivo');
    const data = Object.fromEntries(fields.filter(([k]) => k !== 'arquivo').map(([k, v]) => [k, String(v)]));
    if (Object.keys(data).length) args.push(`data=${python(data, '    ')}`);
    if (file) args.push(`files={"arquivo": open(${JSON.stringify(String(file[1]))}, "rb")}`);
  } else if (typeof body === 'string') args.push(`data=${JSON.stringify(body)}.encode()`);
  else if (body !== undefined) args.push(`json=${python(body, '    ')}`);
  args.push(events ? 'stream=True' : 'timeout=30');
  if (events) args.push('timeout=(10, None)');
  const imports = ['os', ...(route.idempotent ? ['uuid'] : []), 'requests'];
  const py = [
    ...imports.map((m) => `import ${m}`),
    '',
    `response = requests.${route.method}(\n    ${args.join(',\n    ')},\n)`,
    'response.raise_for_status()',
    `print(response.json()${route.produces ? '' : '["data"]'})`,
  ];
  if (route.produces) py[py.length - 1] = 'print(response.text)';
  if (events) py.splice(py.length - 1, 1, '# Each event as it comes: event:, id: and data: lines, a blank line between events.', 'for line in response.iter_lines(decode_unicode=True):', '    print(line)');

  return [
    { lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'TypeScript', label: 'TypeScript (@newsletter-platform/clients)', source: ts.join('\n') },
    { lang: 'Python', label: 'Python (requests)', source: py.join('\n') },
  ];
}
