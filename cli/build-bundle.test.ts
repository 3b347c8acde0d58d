import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { BUNDLE, ROOT, buildCli, bundleIsStale } from './build-bundle.mjs';

describe('the bundled command line', () => {
  it('is one ESM file that runs on plain node, rebuilt once a source is newer', async () => {
    await buildCli();
    expect(readdirSync(dirname(BUNDLE as string))).toEqual(['entity-memory.mjs']);
    expect(bundleIsStale()).toBe(false);

    // A bundle older than a source (cli/backend.ts), as after an edit or a pull.
    const older = new Date(statSync(join(ROOT as string, 'cli', 'backend.ts')).mtimeMs - 60_000);
    utimesSync(BUNDLE as string, older, older);
    expect(bundleIsStale()).toBe(true);
    // The bin rebuilds before it runs.
    const help = spawnSync(process.execPath, [join(ROOT as string, 'cli', 'bin.mjs'), 'help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('sessions show <id>');
    expect(bundleIsStale()).toBe(false);
    // No tsx in the bundle's way: plain node imports it.
    const direct = spawnSync(process.execPath, ['--input-type=module', '-e', `const { run } = await import(${JSON.stringify(BUNDLE)}); console.log(typeof run);`], { encoding: 'utf8' });
    expect(direct.stdout.trim()).toBe('function');
  });
});
