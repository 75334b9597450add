import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../ops/dev-services';

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
