/** Index builds the development database aborts as deadlocks are repeated; other failures are not. */
import { buildIndexesRacing } from '../../models/infra/mongo';

const failing = (errors: Error[]) => {
  let calls = 0;
  return {
    build: async () => {
      calls += 1;
      const err = errors.shift();
      if (err) throw err;
      return 'built';
    },
    calls: () => calls,
  };
};

it('repeats a build aborted as a deadlock, until it succeeds', async () => {
  const b = failing([new Error('deadlock detected'), Object.assign(new Error('x'), { code: 16908292 })]);
  await expect(buildIndexesRacing(b.build)).resolves.toBe('built');
  expect(b.calls()).toBe(3);
});

it('gives up after five deadlocks, and at once on any other failure', async () => {
  const deadlocks = failing(Array.from({ length: 6 }, () => new Error('deadlock detected')));
  await expect(buildIndexesRacing(deadlocks.build)).rejects.toThrow('deadlock detected');
  expect(deadlocks.calls()).toBe(5);
  const other = failing([new Error('index key too large')]);
  await expect(buildIndexesRacing(other.build)).rejects.toThrow('index key too large');
  expect(other.calls()).toBe(1);
});
