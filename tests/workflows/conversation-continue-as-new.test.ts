/**
 * whatsappConversationWorkflow continuing as new after maxMessagesPerRun, carrying the flow, the
 * queue and the ids it handled, on the stack's Temporal dev server with its activities mocked. Not
 * on the time-skipping server, for the reason subscription-continue-as-new.test.ts gives.
 */
import { activities, conversationOn, handledAll, replies } from '../helpers/conversation';
import { quiescent, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite({ server: 'dev' });
const conversation = conversationOn(suite, 30 * 60_000);

it('continues as new after maxMessagesPerRun, carrying the flow, the queue and the ids it handled', async () => {
  const acts = activities();
  const c = await conversation(acts, { maxMessagesPerRun: 1 });
  // Both queued before the worker runs: the first run handles one and carries the other.
  const first = await c.say('cadastro');
  const second = await c.say('Maria');
  const firstRunId = (await c.handle.describe()).runId;
  await c.run(async () => {
    await handledAll(acts, [first, second]);
    await c.say('cadastro', first); // redelivered after two continue-as-new
    await quiescent(c.handle);

    expect(replies(acts)).toEqual(['Vamos criar sua conta. Qual é o seu nome?', 'Prazer, Maria! Agora, qual é o seu e-mail?']);
    expect(acts.loadInbound.mock.calls.map(([id]) => id)).toEqual([first, second]);
    expect((await c.handle.describe()).runId).not.toBe(firstRunId);
    expect(await c.view()).toMatchObject({ flow: 'signup', pending: 0 });
  });
});
