/**
 * Temporal's time-skipping test server, for tests of workflow timing (`@temporalio/testing`'s
 * TestWorkflowEnvironment.createTimeSkipping). The SDK would download a native build from
 * temporal.download, which this machine kind cannot reach; the same server is published on Maven
 * Central as `io.temporal:temporal-test-server`, so it is fetched from there with Maven (pinned
 * version; Maven checks each jar's published checksum) into the platform cache and started through a
 * small launcher the SDK runs as an existing executable (`<launcher> <port>`).
 *
 * Order: TEMPORAL_TEST_SERVER_BIN, then the cache, then a Maven fetch (needs Java 17+ and Maven).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BinaryError, withLock } from './binaries';

export const TEST_SERVER = { group: 'io.temporal', artifact: 'temporal-test-server', version: '1.38.0', mainClass: 'io.temporal.testserver.TestServer' } as const;

const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function testServerDir(cacheDir: string): string {
  return path.join(cacheDir, 'bin', `${TEST_SERVER.artifact}-${TEST_SERVER.version}`);
}

export async function resolveTimeSkippingServer(options: { configured: string | undefined; cacheDir: string; log: (line: string) => void }): Promise<string> {
  if (options.configured) {
    if (!executable(options.configured)) throw new BinaryError(`TEMPORAL_TEST_SERVER_BIN=${options.configured} is not an executable file`);
    return options.configured;
  }
  const dir = testServerDir(options.cacheDir);
  const launcher = path.join(dir, 'temporal-test-server');
  if (executable(launcher)) return launcher;
  await withLock(path.join(options.cacheDir, 'locks', `${TEST_SERVER.artifact}-${TEST_SERVER.version}`), options.log, async () => {
    if (!executable(launcher)) await fetch(dir, launcher, options.log);
  });
  return launcher;
}

async function fetch(dir: string, launcher: string, log: (line: string) => void): Promise<void> {
  for (const [tool, args] of [['java', ['-version']], ['mvn', ['-v']]] as const) {
    if (spawnSync(tool, [...args], { stdio: 'ignore' }).status !== 0) {
      throw new BinaryError(`the time-skipping test server needs ${tool} (Java 17+ and Maven fetch it from Maven Central), or set TEMPORAL_TEST_SERVER_BIN`);
    }
  }
  const work = `${dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const started = Date.now();
  log(`fetching Temporal's time-skipping test server ${TEST_SERVER.version} from Maven Central (first time only)…`);
  writeFileSync(
    path.join(work, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local.newsletter-platform</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
<dependencies><dependency><groupId>${TEST_SERVER.group}</groupId><artifactId>${TEST_SERVER.artifact}</artifactId><version>${TEST_SERVER.version}</version></dependency></dependencies>
</project>\n`,
  );
  try {
    const output: string[] = [];
    const code = await new Promise<number | null>((resolve, reject) => {
      const mvn = spawn('mvn', ['-B', '-q', '--strict-checksums', 'dependency:copy-dependencies', `-DoutputDirectory=${path.join(work, 'lib')}`], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
      mvn.stdout.on('data', (d: Buffer) => output.push(d.toString()));
      mvn.stderr.on('data', (d: Buffer) => output.push(d.toString()));
      mvn.on('error', reject);
      mvn.on('exit', resolve);
    });
    if (code !== 0) throw new BinaryError(`mvn could not fetch ${TEST_SERVER.artifact} ${TEST_SERVER.version} (exit ${code}):\n${output.join('').slice(-2_000)}`);
    const jars = readdirSync(path.join(work, 'lib')).filter((f) => f.endsWith('.jar'));
    if (!jars.includes(`${TEST_SERVER.artifact}-${TEST_SERVER.version}.jar`)) throw new BinaryError(`mvn fetched no ${TEST_SERVER.artifact} jar`);
    rmSync(path.join(work, 'pom.xml'));
    // The SDK runs `<launcher> <port>`; the server's own main takes the port (time skipping on).
    writeFileSync(
      path.join(work, 'temporal-test-server'),
      `#!/bin/sh\n# Temporal's time-skipping test server ${TEST_SERVER.version} (ops/time-skipping-server.ts)\nexec java -XX:+UseSerialGC -Xss1m -cp "$(dirname "$0")/lib/*" ${TEST_SERVER.mainClass} "$@"\n`,
    );
    chmodSync(path.join(work, 'temporal-test-server'), 0o755);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`time-skipping test server ready in ${Math.round((Date.now() - started) / 1000)}s: ${launcher}`);
}
