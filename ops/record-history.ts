/**
 * Records a finished workflow's history as a replay fixture:
 *   npm run record-history -- <workflowId> tests/fixtures/histories/<type>.json
 * Replay tests (tests/integration/replay.test.ts) run every fixture through the current workflow
 * code, so a change that breaks determinism for runs already in flight fails CI.
 */
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { loadConfigOrExit } from '../models/config';
import { createTemporalClient } from '../models/infra/temporal';

async function main(): Promise<void> {
  const [workflowId, out] = process.argv.slice(2);
  if (!workflowId || !out) throw new Error('usage: record-history <workflowId> <out.json>');
  const temporal = createTemporalClient(loadConfigOrExit());
  try {
    const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
    // The proto3 JSON form `temporal workflow show --output json` also produces.
    writeFileSync(out, `${historyToJSON(history)}\n`);
    process.stdout.write(`${out}\n`);
  } finally {
    await temporal.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
