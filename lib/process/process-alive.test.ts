import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive } from './process-alive.js';

describe('processAlive: one answer for the data-directory lock and the store’s temporary index files', () => {
  it('is this process, not a finished one, and not an unrelated program that took a dead pid', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const finished = spawnSync(process.execPath, ['-e', 'process.pid'], { stdio: 'ignore' }).pid!;
    expect(processAlive(finished)).toBe(false);
    // A pid reused by another program: alive to the kernel, but not ours (the old check in the store said alive).
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      expect(processAlive(other.pid!)).toBe(false);
    } finally {
      other.kill();
    }
  });
});
