/**
 * The code samples of the four documents (`x-codeSamples`, issue 37) are code that runs: every
 * operation a client calls has one in curl, TypeScript and Python; the TypeScript ones type-check
 * against the published clients (clients/src, typed by the documents themselves), so a sample
 * with a wrong path, parameter or body does not compile; the Python ones parse, and the curl
 * ones are valid shell.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';
import { openApiDocuments } from '../../ops/openapi/docs';

interface Sample {
  lang: string;
  label: string;
  source: string;
}
type Operation = { operationId: string; security?: unknown[]; parameters?: { in: string; name: string }[]; requestBody?: unknown; 'x-codeSamples'?: Sample[] };

const ROOT = path.resolve(__dirname, '..', '..');
const documents = openApiDocuments() as unknown as Record<string, { paths: Record<string, Record<string, Operation>> }>;
const operations = Object.entries(documents).flatMap(([service, doc]) =>
  Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ service, name: `${service} ${method.toUpperCase()} ${p}`, op }))),
);
/** A provider calls these (Stripe's, Meta's and Mailgun's webhooks; Mailgun signs in the body), not a client: no samples. */
const PROVIDER_HEADERS = new Set(['Stripe-Signature', 'X-Hub-Signature-256', 'hub.verify_token']);
const PROVIDER_BODIES = ['#/components/schemas/MailgunInboundRequest'];
const calledByProviders = (op: Operation) =>
  (op.parameters ?? []).some((p) => PROVIDER_HEADERS.has(p.name)) || PROVIDER_BODIES.some((ref) => JSON.stringify(op.requestBody ?? {}).includes(`"${ref}"`));
const samples = (lang: string) => operations.flatMap(({ name, op }) => (op['x-codeSamples'] ?? []).filter((s) => s.lang === lang).map((s) => ({ name, source: s.source })));

it('gives every operation a client calls a sample in curl, TypeScript and Python, and none to the webhooks', () => {
  const wrong = operations.flatMap(({ name, op }) => {
    const langs = (op['x-codeSamples'] ?? []).map((s) => s.lang).join(',');
    const expected = calledByProviders(op) ? '' : 'Shell,TypeScript,Python';
    return langs === expected ? [] : [`${name}: ${langs || 'none'}`];
  });
  expect(wrong).toEqual([]);
  expect(operations.filter(({ op }) => calledByProviders(op)).length).toBe(4);
});

it('has TypeScript samples that type-check against the published clients', () => {
  const files = new Map(samples('TypeScript').map(({ name, source }, i) => [path.join(ROOT, 'clients', `sample-${i}.ts`), { name, source: `export {};\n${source}\n` }]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    baseUrl: ROOT,
    paths: { '@newsletter-platform/clients': ['clients/src/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (f) => files.get(path.resolve(f))?.source ?? readFile(f);
  host.fileExists = (f) => files.has(path.resolve(f)) || fileExists(f);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, language) => {
    const sample = files.get(path.resolve(f));
    return sample ? ts.createSourceFile(f, sample.source, language, true) : getSourceFile(f, language);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? (files.get(path.resolve(d.file.fileName))?.name ?? d.file.fileName) : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(files.size).toBeGreaterThan(100);
  expect(problems).toEqual([]);
}, 120_000);

it('has Python samples that parse', () => {
  const sources = samples('Python');
  const check = 'import ast, json, sys\nfor s in json.load(sys.stdin):\n    try:\n        ast.parse(s["source"])\n    except SyntaxError as e:\n        print(s["name"] + ": " + str(e))\n';
  const out = execFileSync('python3', ['-c', check], { input: JSON.stringify(sources), encoding: 'utf8' });
  expect(sources.length).toBeGreaterThan(100);
  expect(out.trim()).toBe('');
});

it('has curl samples that are valid shell', () => {
  const sources = samples('Shell');
  const wrong = sources.flatMap(({ name, source }) => {
    try {
      execFileSync('bash', ['-n'], { input: source, stdio: ['pipe', 'ignore', 'pipe'] });
      return source.startsWith('curl ') ? [] : [`${name}: not a curl command`];
    } catch (err) {
      return [`${name}: ${String((err as { stderr?: Buffer }).stderr ?? err)}`];
    }
  });
  expect(sources.length).toBeGreaterThan(100);
  expect(wrong).toEqual([]);
});
