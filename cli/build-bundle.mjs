#!/usr/bin/env node
// The command line as one bundled ESM file (cli/dist/entity-memory.mjs): started by plain node
// it answers in a fraction of the 1.5–2.4 s that tsx took to start. `npm run build` runs this;
// cli/bin.mjs runs it too when a source is newer than the bundle (`node cli/build-bundle.mjs` by hand).
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(ROOT, 'cli', 'dist', 'entity-memory.mjs');
/** What the bundle is made of: a change below these makes it stale. */
const SOURCES = ['cli', 'lib', 'trpc/types.ts', 'package.json'];

function newestSourceMs(path) {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return /\.(ts|mjs|json)$/.test(path) && !/\.test\.ts$/.test(path) ? info.mtimeMs : 0;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'dist' || entry === 'node_modules' || entry === 'testing') continue;
    newest = Math.max(newest, newestSourceMs(join(path, entry)));
  }
  return newest;
}

export function bundleIsStale() {
  const built = statSync(BUNDLE, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return SOURCES.some((source) => newestSourceMs(join(ROOT, source)) > built);
}

/** Builds the bundle and puts it in place in one rename: a CLI started meanwhile reads the old one or the new one, never half. */
export async function buildCli() {
  // Loaded here: the bin checks staleness on every command and needs esbuild only to rebuild.
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['cli/main.ts'],
    outfile: BUNDLE,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    legalComments: 'none',
    minify: true,
    // Bundled CommonJS packages call require() for node's own modules.
    banner: { js: "import { createRequire as __emCreateRequire } from 'node:module'; const require = __emCreateRequire(import.meta.url);" },
  });
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const partial = `${BUNDLE}.${process.pid}.tmp`;
  writeFileSync(partial, result.outputFiles[0].contents);
  renameSync(partial, BUNDLE);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
  process.stdout.write(`built ${BUNDLE}\n`);
}
