import { describe, expect, it } from 'vitest';
import { changeOf, describeMove } from './describe-move.js';

describe('describeMove', () => {
  it('says Removed for a file the turn created, Restored for one it changed, Recreated for one it deleted', () => {
    expect(describeMove('undo', [{ path: 'hello.txt', change: 'added' }])).toBe('Removed hello.txt.');
    expect(describeMove('undo', [
      { path: 'a.md', change: 'modified' },
      { path: 'new.txt', change: 'added' },
      { path: 'b.md', change: 'modified' },
      { path: 'gone.txt', change: 'deleted' },
    ])).toBe('Restored a.md, b.md. Removed new.txt. Recreated gone.txt.');
  });

  it('words redo the other way round, and an empty move as nothing', () => {
    expect(describeMove('redo', [{ path: 'hello.txt', change: 'added' }, { path: 'a.md', change: 'modified' }, { path: 'x', change: 'deleted' }])).toBe(
      'Recreated hello.txt. Reapplied the changes to a.md. Removed x.',
    );
    expect(describeMove('undo', [])).toBe('Nothing to undo: no files were changed.');
    expect(describeMove('redo', [])).toBe('Nothing to redo: no files were changed.');
  });

  it('reads a manifest entry: nothing before is added, nothing after is deleted', () => {
    expect(changeOf({ exists: false }, { exists: true })).toBe('added');
    expect(changeOf({ exists: true }, { exists: false })).toBe('deleted');
    expect(changeOf({ exists: true }, { exists: true })).toBe('modified');
    expect(changeOf({ exists: true }, null)).toBe('modified');
  });
});
