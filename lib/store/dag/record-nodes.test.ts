import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { relocateNode } from './record-nodes.js';

describe('relocateNode', () => {
  it('builds FORMAT.md\'s record node exactly, key order included', () => {
    const node = relocateNode({ oldPath: '/w/old', newPath: '/w/new', projectId: 'app-1a2b3c' }, 7, 1_764_460_800.5);
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
    expect(relocateNode({ oldPath: '/a', newPath: '/b', projectId: 'p' }, 0, 1_764_460_801).id).not.toBe(node.id);
  });

  it('writes (unset) for a missing old path and checks its input', () => {
    expect(relocateNode({ oldPath: '', newPath: '/b', projectId: 'p' }, 0, 1_764_460_801).output).toBe('(unset) → /b');
    expect(() => relocateNode({ oldPath: '/a', newPath: '/b', projectId: '../x' }, 0, 1_764_460_801)).toThrow(InvalidInputError);
    expect(() => relocateNode({ oldPath: '/a', newPath: '/b', projectId: 'p' }, -1, 1_764_460_801)).toThrow(InvalidInputError);
  });
});
