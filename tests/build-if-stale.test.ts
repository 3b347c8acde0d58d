import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildIfStale, buildState } from '../scripts/build-if-stale.mjs';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project whose `npm run build` is a small script: writes .next/BUILD_ID, or fails. */
function project(build: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'em-build-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build } }));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib', 'a.ts'), 'export {};\n');
  return dir;
}
const WRITES_BUILD = `node -e "require('fs').mkdirSync('.next',{recursive:true});require('fs').writeFileSync('.next/BUILD_ID','x')"`;

function logs(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
  return lines;
}

describe('build-if-stale', () => {
  it('builds when there is no build, saying so; then leaves a fresh build alone', () => {
    const dir = project(WRITES_BUILD);
    const lines = logs();
    expect(buildState(dir)).toBe('missing');
    expect(buildIfStale(dir)).toBe(0);
    expect(lines).toEqual(['No build found: building the app (about a minute)…']);
    expect(buildState(dir)).toBe('fresh');
    expect(buildIfStale(dir)).toBe(0);
    expect(lines.at(-1)).toBe('The build is up to date.');
  });

  it('rebuilds when a source file is newer than the build', () => {
    const dir = project(WRITES_BUILD);
    logs();
    buildIfStale(dir);
    const earlier = new Date(Date.now() - 60_000);
    utimesSync(join(dir, '.next', 'BUILD_ID'), earlier, earlier); // as if lib/a.ts was edited since
    expect(buildState(dir)).toBe('stale');
    const lines = logs();
    expect(buildIfStale(dir)).toBe(0);
    expect(lines).toEqual(['Sources changed since the last build: rebuilding…']);
    expect(buildState(dir)).toBe('fresh');
  });

  it("a failed build returns the build's exit status and says so", () => {
    const dir = project('node -e "process.exit(3)"');
    const lines = logs();
    expect(buildIfStale(dir)).toBe(3);
    expect(lines.at(-1)).toMatch(/^The build failed \(exit 3\)/);
    expect(buildState(dir)).toBe('missing');
  });

  it('waits while another live build holds the lock, then finds the build it made', async () => {
    const dir = project('node -e "process.exit(9)"'); // would fail if this check built itself
    mkdirSync(join(dir, 'node_modules', '.cache'), { recursive: true });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    await new Promise((resolve) => other.once('spawn', resolve));
    try {
      writeFileSync(join(dir, 'node_modules', '.cache', 'entity-memory-build.lock'), String(other.pid));
      mkdirSync(join(dir, '.next'));
      // The other build finishes 1.5 s from now: BUILD_ID written, lock released.
      const finish = `setTimeout(() => { fs.writeFileSync(${JSON.stringify(join(dir, '.next', 'BUILD_ID'))}, 'x'); fs.unlinkSync(${JSON.stringify(join(dir, 'node_modules', '.cache', 'entity-memory-build.lock'))}); }, 1500)`;
      const finisher = spawn(process.execPath, ['-e', `const fs = require('fs'); ${finish}`]);
      const lines = logs();
      expect(buildIfStale(dir)).toBe(0);
      expect(lines).toEqual([`Another build is running (pid ${other.pid}): waiting for it…`, 'The build is up to date.']);
      await new Promise((resolve) => finisher.once('exit', resolve));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over the lock of a build that was killed', () => {
    const dir = project(WRITES_BUILD);
    mkdirSync(join(dir, 'node_modules', '.cache'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', '.cache', 'entity-memory-build.lock'), '999999999');
    const lines = logs();
    expect(buildIfStale(dir)).toBe(0);
    expect(lines).toEqual(['No build found: building the app (about a minute)…']);
  });
});
