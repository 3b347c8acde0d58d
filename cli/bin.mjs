#!/usr/bin/env node
// The `entity-memory` command: the bundled CLI (cli/dist, built by `npm run build`), rebuilt
// first when a source is newer, so a checkout that was edited never runs stale code.
import { pathToFileURL } from 'node:url';
import { BUNDLE, buildCli, bundleIsStale } from './build-bundle.mjs';

if (bundleIsStale()) await buildCli();
const { run } = await import(pathToFileURL(BUNDLE).href);
process.exitCode = await run(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
