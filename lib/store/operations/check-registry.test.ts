import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTempStore, type TempStore } from '../testing/temp-store.js';

describe('checkRegistry', () => {
  let temp: TempStore;
  afterEach(async () => temp?.cleanup());

  it('finds nothing wrong in a store whose registry came from its own writes', async () => {
    temp = await openTempStore();
    const { row: a } = await temp.store.createSession({});
    await temp.store.appendMessage(a.id, { role: 'user', content: 'hello' });
    await temp.store.createSession({});
    expect(await temp.store.checkRegistry()).toEqual({ sessions: 2, missing: [], extra: [], different: [] });
  });

  it('names a session whose meta.json changed and one whose directory is gone', async () => {
    temp = await openTempStore();
    const { row: changed } = await temp.store.createSession({});
    const { row: gone } = await temp.store.createSession({});
    await temp.store.createSession({});
    const metaPath = join(temp.dir, 'sessions', changed.id, 'meta.json');
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(metaPath, JSON.stringify({ ...meta, title: 'edited behind the registry' }));
    rmSync(join(temp.dir, 'sessions', gone.id), { recursive: true });
    const check = await temp.store.checkRegistry();
    expect(check).toEqual({ sessions: 2, missing: [], extra: [gone.id], different: [changed.id] });
  });
});
