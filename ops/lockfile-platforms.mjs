#!/usr/bin/env node
// The registry this project installs from serves only the Linux builds of some packages with
// per-platform binaries (@swc/core-*, @unrs/resolver-binding-*), so `npm install` leaves the other
// platforms out of package-lock.json and `npm ci` then refuses the lockfile as out of sync.
// This adds the missing optional entries with their os/cpu/libc, exactly as npm writes them on a
// registry that has them; npm skips them on every other platform without fetching anything.
// Run after any `npm install` that changes the lockfile: node ops/lockfile-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'wasm32'];

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const added = [];
for (const [where, pkg] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${where}/${key}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS.find((o) => tokens.includes(o));
    const cpu = CPU.find((c) => tokens.includes(c));
    if (!os || !cpu) continue; // not a per-platform build: leave it to npm
    const entry = { version: version.replace(/^[\^~]/, ''), cpu: [cpu], os: [os], optional: true };
    if (pkg.dev) entry.dev = true;
    if (tokens.includes('musl') || tokens.includes('musleabihf')) entry.libc = ['musl'];
    else if (os === 'linux' && tokens.some((t) => t.startsWith('gnu'))) entry.libc = ['glibc'];
    lock.packages[key] = entry;
    added.push(`${name}@${entry.version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(added.length ? `added ${added.length} platform entries:\n  ${added.join('\n  ')}\n` : 'lockfile complete\n');
