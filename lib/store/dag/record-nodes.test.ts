import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { buildRelocateNode } from './record-nodes.js';

describe('buildRelocateNode', () => {
  it('builds FORMAT.md\'s record node exactly, key order included', () => {
    const node = buildRelocateNode({ oldPath: '/w/old', newPath: '/w/new', projectId: 'app-1a2b3c', seq: 7, now: 1_764_460_800_500 });
    expect(node.id).toMatch(/^reloc_[0-9a-f]{10}$/);
    expect(JSON.parse(JSON.stringify(node))).toEqual({
      id: node.id,
      created_at: 1764460800.5,
      seq: 7,
      role: 'code',
      name: 'project/relocate',
      input: null,
      output: '/w/old → /w/new',
      caller: 'ROOT',
      predecessor: null,
      reads: [],
      metadata: { display: 'runtime', project_id: 'app-1a2b3c', old_path: '/w/old', new_path: '/w/new' },
    });
    expect(Object.keys(node)).toEqual(['id', 'created_at', 'seq', 'role', 'name', 'input', 'output', 'caller', 'predecessor', 'reads', 'metadata']);
    expect(buildRelocateNode({ oldPath: '/a', newPath: '/b', projectId: 'p', seq: 0 }).id).not.toBe(node.id);
  });

  it('writes (unset) for a missing old path and checks its input', () => {
    expect(buildRelocateNode({ oldPath: '', newPath: '/b', projectId: 'p', seq: 0 }).output).toBe('(unset) → /b');
    expect(() => buildRelocateNode({ oldPath: '/a', newPath: '/b', projectId: '../x', seq: 0 })).toThrow(InvalidInputError);
    expect(() => buildRelocateNode({ oldPath: '/a', newPath: '/b', projectId: 'p', seq: -1 })).toThrow(InvalidInputError);
  });
});
