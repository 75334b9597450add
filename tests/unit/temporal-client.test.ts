/**
 * The APIs' Temporal client closing while a call is being retried (models/infra/temporal.ts).
 * Temporal is unreachable here (a closed port), so the SDK's retry interceptor keeps retrying
 * the call on timers; the handle is closed meanwhile, as a service's shutdown does.
 */
import { createTemporalClient, type TemporalHandle } from '../../models/infra/temporal';
import { toFailure } from '../../api/shared/errors';
import { CLOSED_PORT, testConfig } from '../helpers/service';

const unreachable = () => createTemporalClient(testConfig({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` }));
const start = (h: TemporalHandle) => h.client.workflow.start('anyWorkflow', { taskQueue: 'nowhere', workflowId: `closing-${crypto.randomUUID()}` });

it('a call being retried when the handle closes fails as Temporal unavailable (503), instead of throwing from a timer and never settling', async () => {
  const handle = unreachable();
  const settled = start(handle).then(
    () => 'started',
    (err: unknown) => err,
  );
  // The first attempt is refused at once; the retries that follow wait 0.1 s, 0.17 s, 0.29 s…
  await new Promise((r) => setTimeout(r, 700));
  await handle.close();
  // Before, the retry's timer called the closed channel: grpc-js threw "Channel has been shut
  // down" out of the timer (Jest fails the file for it) and this promise never settled.
  const outcome = await Promise.race([settled, new Promise((r) => setTimeout(() => r('not settled 10 s after close'), 10_000))]);
  expect(outcome).toBeInstanceOf(Error);
  expect(toFailure(outcome).failure).toMatchObject({ status: 503, code: 'DEPENDENCY_UNAVAILABLE' });
});

it('a call made after the handle closed fails as Temporal unavailable too', async () => {
  const handle = unreachable();
  await handle.close();
  const outcome = await start(handle).then(
    () => 'started',
    (err: unknown) => err,
  );
  expect(toFailure(outcome).failure).toMatchObject({ status: 503, code: 'DEPENDENCY_UNAVAILABLE' });
});
