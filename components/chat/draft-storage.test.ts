import { describe, expect, it } from 'vitest';
import { draftKey, forgetDrafts } from './draft-storage';

class MemoryStorage {
  readonly items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

describe('draft storage', () => {
  it('keys a draft by user and scope, so two people never share one', () => {
    expect(draftKey('u1', 'new')).not.toBe(draftKey('u2', 'new'));
    expect(draftKey('u1', 'new')).not.toBe(draftKey('u1', 'sess-1'));
    expect(draftKey('a/b', 'c')).not.toBe(draftKey('a', 'b/c'));
  });

  it('forgets every draft, old unkeyed ones included, and nothing else', () => {
    const storage = new MemoryStorage();
    for (const key of [draftKey('u1', 'new'), draftKey('u2', 'sess-1'), 'entity-memory.draft.new', 'theme']) storage.items.set(key, '{}');
    forgetDrafts(storage);
    expect([...storage.items.keys()]).toEqual(['theme']);
  });

  it('leaves storage that refuses alone', () => {
    expect(() =>
      forgetDrafts({
        get length(): number {
          throw new Error('SecurityError');
        },
        key: () => null,
        removeItem: () => undefined,
      }),
    ).not.toThrow();
  });
});
