/**
 * Replays every recorded workflow history (tests/fixtures/histories/<workflowType>*.json) against
 * the current workflow code: a change that would break runs already in flight fails here.
 * Record new fixtures with `npm run record-history`. All replays live in this one file so Jest
 * creates one Temporal Runtime per run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import * as workflows from '../../workflows';

const DIR = path.resolve(__dirname, '../fixtures/histories');
const fixtures = readdirSync(DIR).filter((f) => f.endsWith('.json'));

beforeAll(() => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
});

describe('workflow replay', () => {
  it('has a recorded history for every workflow type', () => {
    const recorded = new Set(fixtures.map((f) => f.replace(/(-[^.]*)?\.json$/, '')));
    expect(Object.keys(workflows).filter((t) => !recorded.has(t))).toEqual([]);
  });

  it.each(fixtures)('replays %s deterministically', async (file) => {
    // The SDK converts the proto3 JSON form itself.
    const history: unknown = JSON.parse(readFileSync(path.join(DIR, file), 'utf8'));
    await expect(
      Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows'), replayName: file }, history),
    ).resolves.toBeUndefined();
  });
});
