import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError, InvalidInputError, NotFoundError } from '../errors.js';
import { MAX_ATTACHMENT_BYTES, resolveAttachment, sanitizeAttachmentName, saveAttachment } from './attachments.js';
import { cleanupTempDirs, tempDir } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

function sessionRepo(): string {
  const dir = join(tempDir('op-session-'), 'sess0001');
  mkdirSync(join(dir, 'workdir'), { recursive: true });
  return dir;
}

describe('sanitizeAttachmentName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['my report (final).pdf', 'my_report_final.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\photo.JPG', 'photo.JPG'],
    ['.bashrc', 'bashrc'],
    ['...', 'attachment'],
    ['-rf', 'rf'],
    ['报告 2024.docx', '报告_2024.docx'],
    ['a\u0000b\nc.txt', 'ab_c.txt'],
  ])('%j → %j', (input, expected) => {
    expect(sanitizeAttachmentName(input)).toBe(expected);
  });

  it('keeps long names under the file-system limit, extension included', () => {
    const name = sanitizeAttachmentName(`${'字'.repeat(200)}.txt`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(180);
    expect(name.endsWith('.txt')).toBe(true);
  });
});

describe('saveAttachment', () => {
  it('stores the bytes under workdir/attachments with a safe unique name', async () => {
    const repo = sessionRepo();
    const first = await saveAttachment(repo, { name: 'notes.txt', data: Buffer.from('one'), mime: 'text/plain' });
    const second = await saveAttachment(repo, { name: 'notes.txt', data: Buffer.from('two') });
    const third = await saveAttachment(repo, { name: '../notes.txt', data: Buffer.from('three') });
    expect(first).toEqual({ id: 'notes.txt', name: 'notes.txt', size: 3, mime: 'text/plain', path: join(repo, 'workdir', 'attachments', 'notes.txt') });
    expect(second.id).toBe('notes-2.txt');
    expect(third.id).toBe('notes-3.txt');
    expect(readFileSync(second.path, 'utf8')).toBe('two');
    expect(readdirSync(join(repo, 'workdir', 'attachments')).sort()).toEqual(['notes-2.txt', 'notes-3.txt', 'notes.txt']);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
  });

  it('never overwrites under concurrent uploads of the same name', async () => {
    const repo = sessionRepo();
    const saved = await Promise.all(Array.from({ length: 8 }, (_, i) => saveAttachment(repo, { name: 'same.bin', data: Buffer.from(String(i)) })));
    expect(new Set(saved.map((s) => s.id)).size).toBe(8);
    for (const s of saved) expect(readFileSync(s.path, 'utf8')).toBe(String(saved.indexOf(s)));
  });

  it('refuses more than 20 MB, and an attachments folder that is a symlink', async () => {
    const repo = sessionRepo();
    await expect(saveAttachment(repo, { name: 'big.bin', data: Buffer.alloc(MAX_ATTACHMENT_BYTES + 1) })).rejects.toBeInstanceOf(InvalidInputError);
    expect(existsSync(join(repo, 'workdir', 'attachments', 'big.bin'))).toBe(false);
    await expect(saveAttachment(repo, { name: 'ok.bin', data: Buffer.alloc(MAX_ATTACHMENT_BYTES) })).resolves.toMatchObject({ size: MAX_ATTACHMENT_BYTES });

    const other = sessionRepo();
    const outside = tempDir();
    symlinkSync(outside, join(other, 'workdir', 'attachments'));
    await expect(saveAttachment(other, { name: 'x.txt', data: Buffer.from('x') })).rejects.toBeInstanceOf(ForbiddenPathError);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('resolveAttachment', () => {
  it('finds a stored attachment', async () => {
    const repo = sessionRepo();
    const saved = await saveAttachment(repo, { name: 'pic.png', data: Buffer.from([1, 2, 3]) });
    expect(await resolveAttachment(repo, saved.id)).toEqual({ path: saved.path, name: 'pic.png', size: 3, mime: 'image/png' });
  });

  it('refuses .., absolute paths, separators, dot files and symlinks; missing is NOT_FOUND', async () => {
    const repo = sessionRepo();
    await saveAttachment(repo, { name: 'real.txt', data: Buffer.from('r') });
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'workdir', 'attachments', 'link.txt'));
    for (const bad of ['..', '../meta.json', '/etc/passwd', 'sub/real.txt', 'a\\b', '.hidden']) {
      // a bad name is bad input (400 in both APIs); a link or an escape stays FORBIDDEN
      await expect(resolveAttachment(repo, bad), bad).rejects.toBeInstanceOf(InvalidInputError);
    }
    await expect(resolveAttachment(repo, '')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(resolveAttachment(repo, 'link.txt')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(resolveAttachment(repo, 'nope.txt')).rejects.toBeInstanceOf(NotFoundError);
    await expect(resolveAttachment(sessionRepo(), 'real.txt')).rejects.toBeInstanceOf(NotFoundError);
  });
});
