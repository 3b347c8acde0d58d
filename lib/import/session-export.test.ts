import { describe, expect, it } from 'vitest';
import { looksLikeSessionExport, parseSessionExport, SESSION_EXPORT_SCHEMA } from './session-export.js';
import { NotThisFormatError } from './types.js';

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

const T = 1_790_000_000_000;
const node = (id: string, role: string, parentId: string | null, extra: Record<string, unknown> = {}) => ({ id, seq: 0, role, content: id, parentId, calledBy: null, name: '', input: null, metadata: {}, createdAt: T, ...extra });

function doc(nodes: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ schema: SESSION_EXPORT_SCHEMA, exportedAt: T, session: { id: 's', title: 'T', source: '', createdAt: T, headId: 'a2' }, branches: [{ headId: 'a2', name: 'main', createdAt: T }], nodes, ...extra });
}

describe('parseSessionExport', () => {
  it('keeps ids, times (ms to seconds), edges and tool calls; a turn starts at a user message or a fork', async () => {
    const nodes = [
      node('u1', 'user', null, { seq: 0 }),
      node('a1', 'assistant', 'u1', { seq: 1 }),
      node('t1', 'tool', null, { seq: 2, calledBy: 'a1', name: 'Bash', input: { command: 'ls' } }),
      node('a2', 'assistant', 'u1', { seq: 3, createdAt: T + 1500 }),
    ];
    const { session, skipped } = await parseSessionExport(bytes(doc([...nodes].reverse())), { file: 'x.json' });
    expect(skipped).toEqual([]);
    expect(session.turns.map((turn) => turn.map((n) => n.id))).toEqual([['u1', 'a1', 't1'], ['a2']]);
    expect(session.turns[0]![2]).toMatchObject({ role: 'tool', calledBy: 'a1', name: 'Bash', input: { command: 'ls' }, parentId: null });
    expect(session.turns[1]![0]!.createdAt).toBe(T / 1000 + 1.5);
    expect(session).toMatchObject({ id: 's', title: 'T', source: '', createdAt: T / 1000, headId: 'a2', branchNames: { a2: { name: 'main', createdAt: T / 1000 } } });
  });

  it('skips a node of the wrong shape with its position, and the nodes below it', async () => {
    const nodes = [node('u1', 'user', null, { seq: 0 }), node('a1', 'robot', 'u1', { seq: 1 }), node('u2', 'user', 'a1', { seq: 2 }), { id: 'x', seq: 3 }];
    const { session, skipped } = await parseSessionExport(bytes(doc(nodes)), { file: 'x.json' });
    expect(session.turns.flat().map((n) => n.id)).toEqual(['u1']);
    expect(skipped).toEqual([
      { file: 'x.json', line: 2, reason: 'node 2: role "robot" is none of user, assistant, tool, system' },
      { file: 'x.json', line: 4, reason: 'node 4: role undefined is none of user, assistant, tool, system' },
      { file: 'x.json', line: 3, reason: 'node 3: its parent a1 is not in the file before it' },
    ]);
    expect(session.headId).toBeNull();
  });

  it('refuses what is not one of ours, whole, saying why', async () => {
    await expect(parseSessionExport(bytes('{"title": 1'), { file: 'x.json' })).rejects.toThrow(/not JSON/);
    await expect(parseSessionExport(bytes('{"session": {}}'), { file: 'x.json' })).rejects.toThrow(NotThisFormatError);
    await expect(parseSessionExport(bytes(doc([], { schema: 'entity-memory.session/2' })), { file: 'x.json' })).rejects.toThrow('schema entity-memory.session/2 is not one this version reads (entity-memory.session/1)');
    await expect(parseSessionExport(bytes(doc([], { nodes: {} })), { file: 'x.json' })).rejects.toThrow('"nodes" is not a list');
  });

  it('is told by its schema field at the start', () => {
    expect(looksLikeSessionExport(`{"schema":"${SESSION_EXPORT_SCHEMA}","exportedAt":1`)).toBe(true);
    expect(looksLikeSessionExport('  {\n  "schema": "entity-memory.session/1"')).toBe(true);
    expect(looksLikeSessionExport('[{"mapping": {}}]')).toBe(false);
    expect(looksLikeSessionExport('{"user": "x"}')).toBe(false);
  });
});
