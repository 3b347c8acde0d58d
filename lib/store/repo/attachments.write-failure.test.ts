import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupTempDirs, tempDir } from '../testing/project-repos.js';

// The upload's write fails half-way, as on a full disk (e2e/api/full-disk.spec.ts does it for real).
const failWrite = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof original.open = async (...args) => {
    const handle = await original.open(...args);
    if (!failWrite.on) return handle;
    return Object.assign(Object.create(Object.getPrototypeOf(handle) as object) as typeof handle, handle, {
      writeFile: async () => {
        await handle.write(Buffer.from('partial'));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
      close: () => handle.close(),
      sync: () => handle.sync(),
    });
  };
  return { ...original, open, default: { ...original, open } };
});

const { saveAttachment } = await import('./attachments.js');
afterEach(cleanupTempDirs);

describe('an upload whose write fails', () => {
  it('leaves no temp file and no attachment behind, and the next upload works', async () => {
    const repo = join(tempDir('op-session-'), 'sess0001');
    mkdirSync(join(repo, 'workdir'), { recursive: true });
    failWrite.on = true;
    await expect(saveAttachment(repo, { name: 'big.bin', data: Buffer.alloc(1024, 1) })).rejects.toThrow(/no space left/);
    failWrite.on = false;
    expect(readdirSync(join(repo, 'workdir', 'attachments'))).toEqual([]);
    const saved = await saveAttachment(repo, { name: 'big.bin', data: Buffer.alloc(1024, 1) });
    expect(saved.id).toBe('big.bin');
    expect(readdirSync(join(repo, 'workdir', 'attachments'))).toEqual(['big.bin']);
  });
});
