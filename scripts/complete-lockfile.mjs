#!/usr/bin/env node
/**
 * Records in package-lock.json the platform-specific optional packages that a partial npm registry mirror may not
 * serve (biome, swc and resolver binaries for macOS, Windows, musl...). `npm install` leaves them out when it cannot
 * fetch their manifests, and `npm ci` on those platforms then refuses the lockfile as out of sync. Each entry carries
 * the version its parent pins and the platform its name says, so npm skips it on any other machine, as it would with
 * a lockfile written against the full registry. Run it after `npm install` changes the lockfile, if you install from
 * such a mirror; against the public registry it finds nothing to add.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu =
    CPU.find((c) => parts.includes(c)) ?? (parts.includes('gnueabihf') || parts.includes('eabi') ? 'arm' : undefined);
  const libc = parts.some((p) => p.startsWith('musl')) ? 'musl' : parts.includes('gnu') ? 'glibc' : undefined;
  return { ...(os && { os: [os] }), ...(cpu && { cpu: [cpu] }), ...(libc && { libc: [libc] }) };
}

let added = 0;
for (const [path, node] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(node.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    packages[`node_modules/${name}`] = {
      version,
      ...(node.dev && { dev: true }),
      optional: true,
      ...platformOf(name),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: recorded ${added} platform package(s) the registry did not list`);
