#!/usr/bin/env node
// The cluster tests start their own Postgres and HAProxy from Debian's packages, and a user's move
// copies with rsync; like
// ensure-chromium.mjs, this installs them with apt-get when they are missing (as root only).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const hasPostgres = existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').some((major) => existsSync(`/usr/lib/postgresql/${major}/bin/initdb`));
const hasHaproxy = spawnSync('sh', ['-c', 'command -v haproxy']).status === 0;
const hasRsync = spawnSync('sh', ['-c', 'command -v rsync']).status === 0;
const missing = [...(hasPostgres ? [] : ['postgresql']), ...(hasHaproxy ? [] : ['haproxy']), ...(hasRsync ? [] : ['rsync'])];
if (missing.length > 0) {
  if (process.getuid?.() !== 0) {
    console.error(`The cluster tests need ${missing.join(' and ')}: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing ${missing.join(', ')} with apt-get for the cluster tests…`);
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  // Debian starts a system cluster and service on install; the tests start their own.
  spawnSync('sh', ['-c', 'command -v service >/dev/null && (service postgresql stop; service haproxy stop) >/dev/null 2>&1'], { stdio: 'ignore' });
}
