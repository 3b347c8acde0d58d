import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { StoredNode } from '../types.js';
import { appendedMessageOf } from './message-shape.js';
import { EVENT_INLINE_CHARS, previewPrefix, STUB_CONTENT_CHARS, stubOf } from './node-stub.js';

function node(fields: Partial<StoredNode> = {}): StoredNode {
  return { id: 'n1', created_at: 1_800_000_000, seq: 3, role: 'llm', name: 'model', input: null, output: 'hi', caller: '', predecessor: 'p1', reads: [], metadata: {}, ...fields };
}

describe('the stub of a large node', () => {
  it('keeps ids, links and the first characters; drops the input and large metadata', () => {
    const big = node({
      output: `first line\n${'x'.repeat(100_000)}`,
      input: { blob: 'y'.repeat(50_000) },
      metadata: { huge: 'z'.repeat(10_000), nested: { a: 1 }, model: 'm-1', role: 'system', cancelled: true },
      extra: 'w'.repeat(10_000),
    });
    const stub = stubOf(big);
    expect(stub).toEqual({
      id: 'n1',
      created_at: 1_800_000_000,
      seq: 3,
      role: 'llm',
      name: 'model',
      input: null,
      output: `first line\n${'x'.repeat(STUB_CONTENT_CHARS - 11)}`,
      caller: '',
      predecessor: 'p1',
      reads: [],
      metadata: { role: 'system', model: 'm-1', cancelled: true },
    });
    expect(JSON.stringify(stub).length).toBeLessThan(STUB_CONTENT_CHARS + 400);
  });

  it('keeps a tool result\'s JSON as the start of its text', () => {
    expect(stubOf(node({ role: 'code', output: { rows: [1, 2, 3] } })).output).toBe('{"rows":[1,2,3]}');
  });

  it('does not keep the content alive: a stub\'s text is a copy, not a view into the original', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const stubs: StoredNode[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 50; i++) {
      // Built at run time: a literal would live in the code anyway.
      const output = `${i} ${Math.random()}`.padEnd(2_000_000, 'x');
      stubs.push(stubOf(node({ id: `n${i}`, output, name: output.slice(0, 100_000) })));
    }
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    expect(stubs).toHaveLength(50);
    // 100 MB of content went in; the stubs hold 50,000 characters of it (a view would hold all).
    expect(retained).toBeLessThan(10_000_000);
  });

  it('never cuts a surrogate pair in half', () => {
    expect(previewPrefix('ab😀c', 3)).toBe('ab');
    expect(previewPrefix('ab😀c', 4)).toBe('ab😀');
    expect(previewPrefix('abc', 10)).toBe('abc');
  });
});

describe('the message of message_appended', () => {
  it('is the whole message while the node file is small, else the stub marked truncated', () => {
    const small = node({ output: 'hello' });
    expect(appendedMessageOf(small, EVENT_INLINE_CHARS)).toEqual({
      id: 'n1', seq: 3, role: 'assistant', content: 'hello', parentId: 'p1', calledBy: null, name: 'model', input: null, metadata: {}, createdAt: 1_800_000_000_000,
    });
    const large = node({ output: 'y'.repeat(EVENT_INLINE_CHARS * 4), input: { a: 1 } });
    const message = appendedMessageOf(large, EVENT_INLINE_CHARS * 4 + 200);
    expect(message.truncated).toBe(true);
    expect(message.content).toBe('y'.repeat(STUB_CONTENT_CHARS));
    expect(message.input).toBeNull();
    expect(message).toMatchObject({ id: 'n1', parentId: 'p1', role: 'assistant' });
  });
});
