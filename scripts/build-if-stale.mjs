#!/usr/bin/env node
// pretest:e2e: the end-to-end tests run the built app, so build first when there is no build or
// when any source file is newer than it. A fresh build is left alone (CI builds once).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SOURCES = ['app', 'pages', 'components', 'lib', 'server', 'trpc', 'proxy.ts', 'instrumentation.ts', 'next.config.ts', 'postcss.config.mjs', 'package.json', 'package-lock.json', 'tsconfig.json'];
const buildId = join(root, '.next', 'BUILD_ID');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
const changedAt = Math.max(...SOURCES.map((source) => newestMtime(join(root, source))));
if (builtAt === 0 || changedAt > builtAt) {
  console.log(builtAt === 0 ? 'No build yet: building.' : 'Sources changed since the last build: rebuilding.');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
} else {
  console.log('The build is up to date.');
}
