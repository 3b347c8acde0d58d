import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lexicalToolPath, resolveToolPath, ToolRefusal, type ToolRoots } from './confine.js';

describe('lexicalToolPath: the rule on the path as written', () => {
  const roots: ToolRoots = { project: '/w/app', workdirs: ['/w/docs', '/w/app/vendor'] };

  it('takes relative paths from the project folder', () => {
    expect(lexicalToolPath('src/a.ts', roots)).toEqual({ root: '/w/app', segments: ['src', 'a.ts'] });
    expect(lexicalToolPath('./src//b/../a.ts', roots)).toEqual({ root: '/w/app', segments: ['src', 'a.ts'] });
    expect(lexicalToolPath('', roots)).toEqual({ root: '/w/app', segments: [] });
    expect(lexicalToolPath('.', roots)).toEqual({ root: '/w/app', segments: [] });
  });

  it('places an absolute path in the deepest root that holds it', () => {
    expect(lexicalToolPath('/w/docs/x.md', roots)).toEqual({ root: '/w/docs', segments: ['x.md'] });
    expect(lexicalToolPath('/w/app/vendor/lib.js', roots)).toEqual({ root: '/w/app/vendor', segments: ['lib.js'] });
    expect(lexicalToolPath('/w/app', roots)).toEqual({ root: '/w/app', segments: [] });
  });

  it.each([
    ['../secret', /leads out/],
    ['src/../../secret', /leads out/],
    ['/etc/passwd', /outside the project folder/],
    ['/w/application/x', /outside the project folder/],
    ['/w/app/../other/x', /outside the project folder/],
    ['.git/config', /\.git directory/],
    ['src/.GIT/hooks/pre-commit', /\.git directory/],
    ['/w/docs/.git/HEAD', /\.git directory/],
    ['a\\b', /separator/],
    ['a\0b', /NUL/],
  ])('refuses %j', (path, message) => {
    expect(() => lexicalToolPath(path, roots)).toThrow(message);
  });

  it('refuses what is not a string', () => {
    expect(() => lexicalToolPath(42, roots)).toThrow(ToolRefusal);
  });
});

describe('resolveToolPath: the rule on the real path, at the moment of use', () => {
  let base: string;
  let roots: ToolRoots;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'em-confine-')));
    mkdirSync(join(base, 'app', 'src'), { recursive: true });
    mkdirSync(join(base, 'app', '.git'));
    mkdirSync(join(base, 'outside'));
    mkdirSync(join(base, 'docs'));
    writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
    writeFileSync(join(base, 'app', 'src', 'a.txt'), 'a');
    roots = { project: join(base, 'app'), workdirs: [join(base, 'docs')] };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('resolves files that exist and files still to be written, missing folders included', async () => {
    expect(await resolveToolPath('src/a.txt', roots)).toMatchObject({ abs: join(base, 'app', 'src', 'a.txt'), rel: 'src/a.txt', exists: true });
    expect(await resolveToolPath('new/deep/b.txt', roots)).toMatchObject({ abs: join(base, 'app', 'new', 'deep', 'b.txt'), rel: 'new/deep/b.txt', exists: false });
    expect(await resolveToolPath(join(base, 'docs', 'n.md'), roots)).toMatchObject({ root: join(base, 'docs'), rel: 'n.md' });
  });

  it('refuses a link whose target is outside, as a file or as a folder on the way', async () => {
    symlinkSync(join(base, 'outside', 'secret.txt'), join(base, 'app', 'leak.txt'));
    symlinkSync(join(base, 'outside'), join(base, 'app', 'out'));
    await expect(resolveToolPath('leak.txt', roots)).rejects.toThrow(/outside the project folder/);
    await expect(resolveToolPath('out/secret.txt', roots)).rejects.toThrow(/outside the project folder/);
    await expect(resolveToolPath('out/new.txt', roots)).rejects.toThrow(/outside the project folder/);
  });

  it('refuses a link into .git and a dangling link', async () => {
    symlinkSync(join(base, 'app', '.git'), join(base, 'app', 'g'));
    symlinkSync(join(base, 'nowhere'), join(base, 'app', 'dangling'));
    await expect(resolveToolPath('g/config', roots)).rejects.toThrow(/\.git/);
    await expect(resolveToolPath('dangling', roots)).rejects.toThrow(/points nowhere/);
  });

  it('accepts a link that stays inside', async () => {
    symlinkSync(join(base, 'app', 'src', 'a.txt'), join(base, 'app', 'alias.txt'));
    expect(await resolveToolPath('alias.txt', roots)).toMatchObject({ rel: 'src/a.txt', exists: true });
  });
});
