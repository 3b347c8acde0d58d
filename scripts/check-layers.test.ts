import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from './check-layers.mjs';

const ROOT = join(import.meta.dirname, '..');
const SCRIPT = join(ROOT, 'scripts', 'check-layers.mjs');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** The check in this process: what the command would print, and its exit code. */
function check(root: string, ...args: string[]): Run {
  const result = runCheck(['--root', root, ...args]);
  return { code: result.code, out: result.out.map((line) => `${line}\n`).join(''), err: result.err.join('\n') };
}

/** The command itself, as `npm run check:layers` runs it. */
function command(root: string): Run {
  const result = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** A tree that keeps every rule: the store's levels, a component taking router types from trpc/. */
const CLEAN: Record<string, string> = {
  'package.json': JSON.stringify({ dependencies: { zod: '4', react: '19' }, devDependencies: { vitest: '4' } }),
  'lib/fs/atomic-write.ts': "import { writeFileSync } from 'node:fs';\nexport const write = writeFileSync;\n",
  'lib/store/errors.ts': 'export class StoreError extends Error {}\n',
  'lib/store/registry/registry.ts': "import { z } from 'zod';\nimport { StoreError } from '../errors.js';\nimport { write } from '../../fs/atomic-write.js';\nexport { z, StoreError, write };\n",
  'lib/store/projects/index.ts': "export { gitText } from './git-cli.js';\n",
  'lib/store/projects/git-cli.ts': 'export const gitText = 1;\n',
  'lib/store/operations/list-sessions.ts': "import { z } from '../registry/registry.js';\nimport { gitText } from '../projects/index.js';\nexport { z, gitText };\n",
  'lib/store/operations/list-sessions.test.ts': "import { it } from 'vitest';\nimport { gitText } from '../projects/git-cli.js';\nimport { listSessions } from '../index.js';\nit('runs', () => void [gitText, listSessions]);\n",
  'lib/store/session-store.ts': "export * from './operations/list-sessions.js';\n",
  'lib/store/index.ts': "export { gitText as listSessions } from './session-store.js';\n",
  'server/api/root.ts': "import { listSessions } from '@/lib/store/index';\nexport const appRouter = { listSessions };\nexport type AppRouter = typeof appRouter;\n",
  'trpc/types.ts': "import type { AppRouter } from '@/server/api/root';\nexport type { AppRouter };\n",
  'components/sessions/session-row.tsx': "import type { AppRouter } from '@/trpc/types';\nimport { useState } from 'react';\nexport type Props = AppRouter;\nexport const use = useState;\n",
};

describe('scripts/check-layers.mjs', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'em-layers-'));
    dirs.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('passes a tree that keeps the rules', () => {
    const run = check(tree(CLEAN));
    expect(run.err).toBe('');
    expect(run.out.trim()).toBe('0 edge(s) against the layer rules, 0 allowlisted, 0 not allowed');
    expect(run.code).toBe(0);
  });

  it.each([
    [
      'a lower store folder importing a higher one',
      { 'lib/store/registry/startup.ts': "import { z } from '../operations/list-sessions.js';\nexport { z };\n" },
      'lib/store/registry/startup.ts → lib/store/operations/list-sessions.ts (store-order: registry/ (level 3) may not import operations/ (level 5))',
    ],
    [
      'an import reaching past a folder index.ts',
      { 'lib/store/operations/diff-commit.ts': "import { gitText } from '../projects/git-cli.js';\nexport { gitText };\n" },
      'lib/store/operations/diff-commit.ts → lib/store/projects/git-cli.ts (index: reaches past lib/store/projects/index.ts)',
    ],
    [
      'an operation importing another operation',
      { 'lib/store/operations/move-head.ts': "import { z } from './list-sessions.js';\nexport { z };\n" },
      'lib/store/operations/move-head.ts → lib/store/operations/list-sessions.ts (peer: no imports between the files of lib/store/operations/)',
    ],
    [
      'lib/auth importing lib/store',
      { 'lib/auth/users.ts': "import { StoreError } from '../store/errors.js';\nexport { StoreError };\n" },
      'lib/auth/users.ts → lib/store/errors.ts (layer: lib/auth may not import lib/store)',
    ],
    [
      'the store importing a package outside its list',
      { 'lib/store/types.ts': "import type { ReactNode } from 'react';\nexport type Node = ReactNode;\n" },
      'lib/store/types.ts → react (package: lib/store may import only isomorphic-git, lru-cache, zod, fflate)',
    ],
    [
      'a component importing the server',
      { 'components/sessions/session-menu.tsx': "import type { AppRouter } from '@/server/api/root';\nexport type Props = AppRouter;\n" },
      'components/sessions/session-menu.tsx → server/api/root.ts (layer: components may not import server)',
    ],
    [
      'product code importing a devDependency',
      { 'server/api/trpc.ts': "import { expect } from 'vitest';\nexport const check = expect;\n" },
      'server/api/trpc.ts → vitest (package: a devDependency imported by product code)',
    ],
    [
      'a component importing a node built-in',
      { 'components/sessions/session-menu.tsx': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n" },
      'components/sessions/session-menu.tsx → node:fs (package: components may not import node built-ins)',
    ],
    [
      'a component taking a value import from trpc/types',
      { 'components/sessions/session-list.tsx': "import { AppRouter } from '@/trpc/types';\nexport const x: AppRouter | null = null;\n" },
      'components/sessions/session-list.tsx → trpc/types.ts (type-only: components may take only types from trpc/types.ts)',
    ],
    [
      'source code importing a test helper',
      {
        'lib/store/testing/temp-store.ts': 'export const tempStore = 1;\n',
        'lib/store/operations/create-session.ts': "import { tempStore } from '../testing/temp-store.js';\nexport { tempStore };\n",
      },
      'lib/store/operations/create-session.ts → lib/store/testing/temp-store.ts (test-helper: source code never imports tests or their helpers)',
    ],
    [
      'lib/cluster importing its move/ folder (a prefix of an allowed folder is not enough)',
      {
        'lib/cluster/move/ports.ts': 'export class MoveError extends Error {}\n',
        'lib/cluster/shard-directory.ts': "import { MoveError } from './move/ports.js';\nexport { MoveError };\n",
      },
      'lib/cluster/shard-directory.ts → lib/cluster/move/ports.ts (layer: lib/cluster may not import lib/cluster/move)',
    ],
    [
      'a circle of value imports, even where each edge keeps the layers',
      {
        'server/runtime.ts': "import { gate } from './cluster/user-gate';\nexport const dataDir = () => '/data';\nexport { gate };\n",
        'server/cluster/user-gate.ts': "import { dataDir } from '@/server/runtime';\nexport const gate = () => dataDir();\n",
      },
      'server/cluster/user-gate.ts → server/runtime.ts (cycle: a circle of value imports: server/cluster/user-gate.ts → server/runtime.ts → server/cluster/user-gate.ts)',
    ],
  ])('fails on %s, naming the edge and the rule', (_name, files, edge) => {
    const run = check(tree({ ...CLEAN, ...files }));
    expect(run.out).toContain(`BACK EDGE ${edge}`);
    expect(run.out).toMatch(/1 edge\(s\) against the layer rules, 0 allowlisted, 1 not allowed/);
    expect(run.code).toBe(1);
  });

  it('lets a type-only import close a circle (types are gone at run time)', () => {
    const run = check(
      tree({
        ...CLEAN,
        'server/runtime.ts': "import { gate } from './cluster/user-gate';\nexport type DataDir = string;\nexport { gate };\n",
        'server/cluster/user-gate.ts': "import type { DataDir } from '@/server/runtime';\nexport const gate = (dir: DataDir) => dir;\n",
      }),
    );
    expect(run.out.trim()).toBe('0 edge(s) against the layer rules, 0 allowlisted, 0 not allowed');
  });

  it('passes an allowlisted back edge, and says when an entry has gone stale', () => {
    const entry = { from: 'lib/store/registry/startup.ts', to: 'lib/store/operations/list-sessions.ts', rule: 'store-order', reason: 'moves in the re-cut' };
    const stale = { from: 'lib/auth/users.ts', to: 'lib/store/fs/atomic-write.ts', rule: 'layer', reason: 'already fixed' };
    const root = tree({
      ...CLEAN,
      'lib/store/registry/startup.ts': "import { z } from '../operations/list-sessions.js';\nexport { z };\n",
      'scripts/layer-allowlist.json': JSON.stringify([entry, stale]),
    });
    const run = check(root);
    expect(run.out).toContain('allowed  lib/store/registry/startup.ts → lib/store/operations/list-sessions.ts (store-order:');
    expect(run.out).toContain('stale    lib/auth/users.ts → lib/store/fs/atomic-write.ts (layer): no longer found');
    expect(run.out).not.toContain('BACK EDGE');
    expect(run.code).toBe(0);
  });

  it('refuses an allowlist entry without a reason', () => {
    const root = tree({ ...CLEAN, 'scripts/layer-allowlist.json': JSON.stringify([{ from: 'a.ts', to: 'b.ts', rule: 'layer', reason: ' ' }]) });
    const run = check(root);
    expect(run.err).toMatch(/non-empty reason/);
    expect(run.code).toBe(2);
  });

  it('as a command: exit 1 and the edge on stdout for a back edge, exit 0 on this repository with its allowlist', () => {
    const failing = command(tree({ ...CLEAN, 'lib/llm/title-model.ts': "import type { StoreError } from '../store/errors.js';\nexport type E = StoreError;\n" }));
    expect(failing.out).toContain('BACK EDGE lib/llm/title-model.ts → lib/store/errors.ts (layer: lib/llm may not import lib/store)');
    expect(failing.code).toBe(1);
    const repo = command(ROOT);
    expect(repo.err).toBe('');
    expect(repo.out).not.toContain('BACK EDGE');
    expect(repo.out).toMatch(/\d+ edge\(s\) against the layer rules, \d+ allowlisted, 0 not allowed\n$/);
    expect(repo.code).toBe(0);
    // Parsing the whole repository takes seconds of CPU, and far longer on a machine shared with builds.
  }, 180_000);
});
