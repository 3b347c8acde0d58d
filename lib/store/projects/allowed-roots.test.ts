import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError, InvalidInputError, PreconditionError } from '../errors.js';
import { isInside, resolveDirectoryInsideRoots, resolveInsideRoots } from './allowed-roots.js';
import { cleanupTempDirs, tempDir } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

function setup() {
  const root = tempDir();
  const other = tempDir();
  mkdirSync(join(root, 'app', 'src'), { recursive: true });
  mkdirSync(join(other, 'secret'));
  return { root, other };
}

describe('resolveInsideRoots', () => {
  it('accepts the root itself and paths below it, absolute or relative to the workspace', async () => {
    const { root } = setup();
    await expect(resolveInsideRoots(root, [root])).resolves.toBe(root);
    await expect(resolveInsideRoots(join(root, 'app'), [root])).resolves.toBe(join(root, 'app'));
    await expect(resolveInsideRoots('app/src', [root])).resolves.toBe(join(root, 'app', 'src'));
    await expect(resolveInsideRoots('./app/../app', [root])).resolves.toBe(join(root, 'app'));
  });

  it('refuses paths outside every root and lists the allowed roots', async () => {
    const { root, other } = setup();
    const error = await resolveInsideRoots(join(other, 'secret'), [root]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenPathError);
    expect((error as Error).message).toContain(root);
    await expect(resolveInsideRoots('../', [root])).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(resolveInsideRoots('/', [root])).rejects.toBeInstanceOf(ForbiddenPathError);
  });

  it('does not mistake a sibling with the same prefix for the inside', async () => {
    const base = tempDir();
    const root = join(base, 'ws');
    mkdirSync(root);
    mkdirSync(join(base, 'ws-evil'));
    await expect(resolveInsideRoots(join(base, 'ws-evil'), [root])).rejects.toBeInstanceOf(ForbiddenPathError);
    expect(isInside(join(base, 'ws-evil'), root)).toBe(false);
    expect(isInside(join(root, 'a'), root)).toBe(true);
  });

  it('follows symlinks: a link inside the root that points out is refused, one that points in is fine', async () => {
    const { root, other } = setup();
    symlinkSync(join(other, 'secret'), join(root, 'escape'));
    symlinkSync(join(root, 'app'), join(root, 'alias'));
    await expect(resolveInsideRoots(join(root, 'escape'), [root])).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(resolveInsideRoots('escape/new-folder', [root], { allowMissing: true })).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(resolveInsideRoots('alias', [root])).resolves.toBe(join(root, 'app'));
  });

  it('refuses a dangling symlink whose target could be created anywhere', async () => {
    const { root, other } = setup();
    symlinkSync(join(other, 'not-yet'), join(root, 'dangling'));
    await expect(resolveInsideRoots('dangling/x', [root], { allowMissing: true })).rejects.toBeInstanceOf(ForbiddenPathError);
  });

  it('accepts any of several roots', async () => {
    const { root, other } = setup();
    await expect(resolveInsideRoots(join(other, 'secret'), [root, other])).resolves.toBe(join(other, 'secret'));
  });

  it('reports a missing path unless allowed, and malformed input', async () => {
    const { root } = setup();
    await expect(resolveInsideRoots('nope', [root])).rejects.toBeInstanceOf(PreconditionError);
    await expect(resolveInsideRoots('nope/deeper', [root], { allowMissing: true })).resolves.toBe(join(root, 'nope', 'deeper'));
    await expect(resolveInsideRoots('', [root])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(resolveInsideRoots('a\0b', [root])).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('resolveDirectoryInsideRoots refuses a file', async () => {
    const { root } = setup();
    writeFileSync(join(root, 'file.txt'), 'x');
    await expect(resolveDirectoryInsideRoots('file.txt', [root])).rejects.toBeInstanceOf(PreconditionError);
  });
});
