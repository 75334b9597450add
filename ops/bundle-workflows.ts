/**
 * Prebundles the workflow code for production images (temporalio/samples-typescript `production`):
 * the worker then starts without webpack. Usage: node dist/ops/bundle-workflows.js <out.js>
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: bundle-workflows <out.js>');
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, '..', 'workflows') });
  writeFileSync(out, code);
  process.stdout.write(`${out}\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
