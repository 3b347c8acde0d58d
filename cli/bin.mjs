#!/usr/bin/env node
// The `entity-memory` command: runs cli/main.ts through tsx, which the app already depends on.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const { run } = await import(fileURLToPath(new URL('./main.ts', import.meta.url)));
process.exitCode = await run(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
