import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Supervisor, type SupervisorEvent } from '../../ops/supervisor';
import { alive } from '../helpers/processes';

const waitFor = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('Supervisor', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sup-'));

  it('waits for readiness, restarts a crashed process and stops it on request', async () => {
    const events: SupervisorEvent[] = [];
    const sup = new Supervisor((e) => events.push(e));
    const marker = path.join(dir, 'ready');
    await sup.start({
      name: 'sleeper',
      command: process.execPath,
      args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000)`],
      output: { file: path.join(dir, 'sleeper.log') },
      ready: async () => existsSync(marker),
    });
    const first = sup.pid('sleeper')!;
    expect(alive(first)).toBe(true);
    process.kill(first, 'SIGKILL');
    await waitFor(() => sup.pid('sleeper') !== undefined && sup.pid('sleeper') !== first);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['started', 'ready', 'exited', 'restarting']));
    const second = sup.pid('sleeper')!;
    await sup.stop();
    expect(alive(second)).toBe(false);
  });

  it('runs beforeStart before every start and restart, afterStop once stopped, and shows watch each line', async () => {
    const calls: string[] = [];
    const lines: string[] = [];
    const sup = new Supervisor();
    await sup.start({
      name: 'talker',
      command: process.execPath,
      args: ['-e', `process.stdout.write('one\\ntw'); setTimeout(() => process.stdout.write('o\\n'), 50); setInterval(() => {}, 1000)`],
      output: { file: path.join(dir, 'talker.log') },
      beforeStart: async () => {
        calls.push('beforeStart');
      },
      afterStop: async () => {
        calls.push('afterStop');
      },
      watch: (line) => lines.push(line),
    });
    await waitFor(() => lines.length >= 2);
    expect(lines.slice(0, 2)).toEqual(['one', 'two']); // a line split across chunks is joined
    const first = sup.pid('talker')!;
    process.kill(first, 'SIGKILL');
    await waitFor(() => sup.pid('talker') !== undefined && sup.pid('talker') !== first);
    expect(calls).toEqual(['beforeStart', 'beforeStart']);
    await sup.stop();
    expect(calls).toEqual(['beforeStart', 'beforeStart', 'afterStop']);
  });

  it('leaves no grandchild behind when stopping', async () => {
    const sup = new Supervisor();
    const pidFile = path.join(dir, 'grandchild.pid');
    const script = `
      const { spawn } = require('child_process');
      const g = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      setInterval(() => {}, 1000);`;
    await sup.start({
      name: 'parent',
      command: process.execPath,
      args: ['-e', script],
      output: { file: path.join(dir, 'parent.log') },
      ready: async () => existsSync(pidFile),
      stopTimeoutMs: 2_000,
    });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(grandchild)).toBe(true);
    await sup.stop();
    await waitFor(() => !alive(grandchild), 5_000);
  });

  it('reports a process that never becomes ready, naming its log', async () => {
    const sup = new Supervisor();
    writeFileSync(path.join(dir, 'never.log'), '');
    await expect(
      sup.start({
        name: 'never',
        command: process.execPath,
        args: ['-e', 'setInterval(() => {}, 1000)'],
        output: { file: path.join(dir, 'never.log') },
        ready: async () => false,
        readyTimeoutMs: 500,
      }),
    ).rejects.toThrow(/never did not become ready within 1s \(see .*never\.log\)/);
    await sup.stop();
  });
});
