/**
 * /health is public: a flood of it must not become a flood of pings to MongoDB, Temporal and MinIO
 * (issue 35). Requests share the probe in flight, and its answer for a second after it.
 */
import { sharedProbe } from '../../api/shared/health';
import type { HealthCheck } from '../../api/shared/infra';

function countingCheck(name: HealthCheck['name'], answer: () => Promise<void> = async () => undefined) {
  const check = { name, calls: 0, check: async () => {
    check.calls += 1;
    await answer();
  } };
  return check;
}

describe('the health probe', () => {
  it('runs each dependency check once for a burst of 150 requests', async () => {
    const mongo = countingCheck('mongodb', () => new Promise((r) => setTimeout(r, 20)));
    const probe = sharedProbe([mongo], 1_000);
    const answers = await Promise.all(Array.from({ length: 150 }, () => probe()));
    expect(mongo.calls).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toEqual([['mongodb', expect.objectContaining({ status: 'up' })]]);
  });

  it('gives the last answer for the reuse time only, then probes again and sees a change', async () => {
    let clock = 0;
    let down = false;
    const minio = countingCheck('minio', async () => {
      if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    });
    const probe = sharedProbe([minio], 1_000, () => clock);
    expect((await probe())[0]![1].status).toBe('up');
    down = true;
    clock = 999;
    expect((await probe())[0]![1].status).toBe('up');
    expect(minio.calls).toBe(1);
    clock = 1_000;
    expect((await probe())[0]![1]).toEqual(expect.objectContaining({ status: 'down', error: 'ECONNREFUSED' }));
    expect(minio.calls).toBe(2);
  });
});
