import { readFileSync } from 'node:fs';
import net from 'node:net';
import { FETCH_BAD_PORTS, freePort, freePortRange } from '../../ops/dev-services';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

it('hands out distinct listenable ports below the ephemeral range (no outgoing connection can hold them)', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 40; i += 1) ports.push(await freePort());
  expect(new Set(ports).size).toBe(40);
  expect(ports.every((p) => p >= 10_000 && p < ephemeralLow)).toBe(true);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
  expect((server.address() as net.AddressInfo).port).toBe(ports[0]);
  await new Promise((resolve) => server.close(resolve));
});

describe("the Fetch standard's bad ports (fetch refuses them: a service on one is unreachable)", () => {
  afterEach(() => jest.restoreAllMocks());

  it('every port of the list is one Node’s fetch refuses, and 10080 (the one inside our range) among them', async () => {
    expect(FETCH_BAD_PORTS.has(10_080)).toBe(true);
    for (const port of FETCH_BAD_PORTS) {
      const err = await fetch(`http://127.0.0.1:${port}/`).then(() => undefined, (e: Error) => e);
      expect((err?.cause as Error | undefined)?.message).toBe('bad port');
    }
  });

  it('freePort passes over 10080 when chance lands on it (CI: a quiz process on 10080 never answered /health)', async () => {
    const span = ephemeralLow - 1 - 10_000 + 1;
    const draws = [(80 + 0.5) / span, (5_000 + 0.5) / span];
    jest.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? 0.5);
    expect(await freePort()).toBe(15_000);
  });

  it('freePortRange passes over a range that holds 10080', async () => {
    const count = 3;
    const span = ephemeralLow - count - 10_000 + 1;
    const draws = [(79 + 0.5) / span, (6_000 + 0.5) / span];
    jest.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? 0.5);
    expect(await freePortRange(count)).toBe(16_000);
  });
});
