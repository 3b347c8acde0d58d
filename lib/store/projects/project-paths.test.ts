import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError, InvalidInputError } from '../errors.js';
import { linkOutOfProject, normalizeProjectPath, resolveProjectFile } from './project-paths.js';
import { cleanupTempDirs, tempDir } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

describe('normalizeProjectPath', () => {
  it('normalises harmless spellings', () => {
    expect(normalizeProjectPath('./a//b/./c.txt')).toBe('a/b/c.txt');
    expect(normalizeProjectPath('a/b/../c')).toBe('a/c');
    expect(normalizeProjectPath('dir/')).toBe('dir');
  });

  it.each(['../a', 'a/../../b', '/abs', 'C:/x', '.git', '.git/config', 'sub/.Git/x'])('refuses %j', (p) => {
    expect(() => normalizeProjectPath(p)).toThrow(ForbiddenPathError);
  });

  it.each(['', '.', 'a\\b', 'a\0b'])('rejects malformed %j', (p) => {
    expect(() => normalizeProjectPath(p)).toThrow(InvalidInputError);
  });
});

describe('resolveProjectFile', () => {
  it('resolves existing and new files, following links that stay inside', async () => {
    const project = tempDir();
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'a.ts'), '');
    symlinkSync(join(project, 'src'), join(project, 'alias'));
    expect(await resolveProjectFile(project, 'src/a.ts')).toEqual({ abs: join(project, 'src', 'a.ts'), rel: 'src/a.ts', exists: true });
    expect(await resolveProjectFile(project, 'alias/a.ts')).toEqual({ abs: join(project, 'src', 'a.ts'), rel: 'src/a.ts', exists: true });
    expect(await resolveProjectFile(project, 'new/deep/file.ts')).toEqual({ abs: join(project, 'new', 'deep', 'file.ts'), rel: 'new/deep/file.ts', exists: false });
  });

  it('refuses links out of the project and into .git', async () => {
    const project = tempDir();
    mkdirSync(join(project, '.git'));
    const outside = tempDir();
    symlinkSync(outside, join(project, 'out'));
    symlinkSync(join(project, '.git'), join(project, 'gitlink'));
    await expect(resolveProjectFile(project, 'out/x')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(resolveProjectFile(project, 'gitlink/config')).rejects.toBeInstanceOf(ForbiddenPathError);
  });
});

describe('linkOutOfProject', () => {
  it('names the target of a link out, "nowhere" for a dangling one, and null for files and links that stay inside', async () => {
    const project = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 's');
    writeFileSync(join(project, 'plain.txt'), 'p');
    symlinkSync(join(outside, 'secret.txt'), join(project, 'out.txt'));
    symlinkSync(join(project, 'plain.txt'), join(project, 'in.txt'));
    symlinkSync(join(project, 'gone'), join(project, 'dangling'));
    symlinkSync(project, join(project, 'self'));
    expect(await linkOutOfProject(project, 'out.txt')).toBe(join(outside, 'secret.txt'));
    expect(await linkOutOfProject(project, 'dangling')).toBe('nowhere');
    // The project folder itself is not a file of the project.
    expect(await linkOutOfProject(project, 'self')).toBe(project);
    expect(await linkOutOfProject(project, 'in.txt')).toBeNull();
    expect(await linkOutOfProject(project, 'plain.txt')).toBeNull();
    expect(await linkOutOfProject(project, 'missing.txt')).toBeNull();
  });
});
