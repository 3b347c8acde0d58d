import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { allSessionIds, sessionsZip } from './sessions-zip.js';
import { collect, seedExportSession } from './testing/session-fixture.js';

describe('zip of sessions', () => {
  const open = tempStoresPerTest();

  it('holds one lossless JSON per session, and is handed on in pieces as it is made', async () => {
    const { store } = await open();
    await seedExportSession(store, 'one');
    await store.createSession({ id: 'two', title: 'Second' });
    await store.appendMessage('two', { role: 'user', content: 'hello two' });
    let pieces = 0;
    const chunks: Uint8Array[] = [];
    for await (const chunk of sessionsZip(store, ['one', 'two'])) {
      pieces++;
      chunks.push(chunk);
    }
    expect(pieces).toBeGreaterThan(2);
    const files = unzipSync(await collect(chunks));
    expect(Object.keys(files).sort()).toEqual(['one.json', 'two.json']);
    const two = JSON.parse(strFromU8(files['two.json']!)) as { nodes: Array<{ content: string }>; session: { title: string } };
    expect(two.session.title).toBe('Second');
    expect(two.nodes.map((n) => n.content)).toEqual(['hello two']);
    const one = JSON.parse(strFromU8(files['one.json']!)) as { nodes: unknown[] };
    expect(one.nodes).toEqual(await store.getNodes('one'));
  });
});

describe('a session gone before its turn in the zip', () => {
  const open = tempStoresPerTest();

  it('is named in MISSING.txt and the others are whole', async () => {
    const { store } = await open();
    await store.createSession({ id: 'kept' });
    await store.appendMessage('kept', { role: 'user', content: 'still here' });
    await store.createSession({ id: 'gone' });
    const files = unzipSync(await collect(sessionsZip(store, ['gone', 'kept'])));
    expect(Object.keys(files).sort()).toEqual(['gone.json', 'kept.json']);
    await store.deleteSession('gone');
    const after = unzipSync(await collect(sessionsZip(store, ['gone', 'kept'])));
    expect(Object.keys(after).sort()).toEqual(['MISSING.txt', 'kept.json']);
    expect(strFromU8(after['MISSING.txt']!)).toContain('gone');
    expect((JSON.parse(strFromU8(after['kept.json']!)) as { nodes: unknown[] }).nodes).toHaveLength(1);
  });
});

describe('allSessionIds', () => {
  const open = tempStoresPerTest();

  it('names every session, archived ones too, past one page', async () => {
    const { store } = await open();
    for (let i = 0; i < 205; i++) await store.createSession({ id: `s${i}` });
    await store.setArchived('s3', true);
    const ids = allSessionIds(store);
    expect(ids).toHaveLength(205);
    expect(ids).toContain('s3');
  });
});
