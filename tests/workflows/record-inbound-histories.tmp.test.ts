/** Throwaway: records the replay fixtures of the inbound workflows (deleted once written). */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { supportInboundRelayWorkflow } from '../../workflows/support/inbound-relay.workflow';
import { supportInboundMailWorkflow } from '../../workflows/support/inbound.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(90_000);
const suite = workflowSuite();
const DIR = path.resolve(__dirname, '../fixtures/histories');

it('records', async () => {
  const acts = {
    processInboundMail: async () => ({ state: 'processed', kind: 'message', ticketId: 123, messageId: 9001, threadedBy: 'token' }),
    giveUpInboundMail: async () => undefined,
    forwardStoredMail: async () => ({ forwarded: 1 }),
  };
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  await run(async () => {
    const a = await suite.client.start(supportInboundMailWorkflow, { taskQueue, workflowId: 'support-inbound-rec-1', args: [{ id: 'rec-1' }] });
    await a.result();
    writeFileSync(path.join(DIR, 'supportInboundMailWorkflow.json'), `${historyToJSON(await a.fetchHistory())}\n`);
    const b = await suite.client.start(supportInboundRelayWorkflow, { taskQueue, workflowId: 'support-inbound-relay-1', args: [{ olderThanMs: 30_000, limit: 1_000 }] });
    await b.result();
    writeFileSync(path.join(DIR, 'supportInboundRelayWorkflow.json'), `${historyToJSON(await b.fetchHistory())}\n`);
  });
});
