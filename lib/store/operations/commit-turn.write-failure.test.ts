import { describe, expect, it, vi } from 'vitest';
import { tempStoresPerTest } from '../testing/temp-store.js';

// The one write of turn.begin fails once, as on a full disk (e2e/api/full-disk.spec.ts does it for real).
const failNext = vi.hoisted(() => ({ on: false }));
vi.mock('../session/session-access.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../session/session-access.js')>();
  return {
    ...original,
    updateSessionFields: (...args: Parameters<typeof original.updateSessionFields>) => {
      if (failNext.on) {
        failNext.on = false;
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      }
      return original.updateSessionFields(...args);
    },
  };
});

describe('turn.begin whose write fails', () => {
  const open = tempStoresPerTest();

  it('begins nothing: the session is not left running, and the next begin works', async () => {
    const { store } = await open();
    await store.createSession({ id: 's' });
    failNext.on = true;
    await expect(store.beginTurn('s')).rejects.toThrow(/no space left/);
    expect((await store.getSession('s')).status).toBe('idle');
    expect(await store.beginTurn('s')).toEqual({ turn: 1, projectClean: null });
    expect((await store.getSession('s')).status).toBe('running');
  });
});
