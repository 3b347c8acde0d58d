#!/usr/bin/env node
// pretest:e2e: the browser tests drive Debian's Chromium (Playwright's own download cannot work
// on these machines). Install it when it is missing and we may (root with apt-get); otherwise say
// exactly what to run.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = existsSync('/usr/bin/apt-get');
  if (!root || !apt) {
    console.error(`The end-to-end tests need ${CHROMIUM}: install it with \`apt-get install -y chromium\` (as root).`);
    process.exit(1);
  }
  console.log(`${CHROMIUM} is missing: installing Debian's chromium.`);
  execSync('apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium', { stdio: 'inherit', shell: '/bin/bash' });
}
