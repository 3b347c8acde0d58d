import { describe, expect, it } from 'vitest';
import { OpenExchanges } from './open-exchanges';

function fakeUsers() {
  const listeners = new Set<(userId: string) => void>();
  const disabled = new Set<string>();
  return {
    users: {
      onAccessChange: (listener: (userId: string) => void) => (listeners.add(listener), () => listeners.delete(listener)),
      get: (id: string) => ({ id, disabled: disabled.has(id) }),
    },
    change(userId: string, isDisabled: boolean) {
      if (isDisabled) disabled.add(userId);
      else disabled.delete(userId);
      for (const listener of listeners) listener(userId);
    },
  };
}

describe('OpenExchanges', () => {
  it('destroys every open exchange of a user once they are disabled, and only theirs', () => {
    const open = new OpenExchanges();
    const auth = fakeUsers();
    open.followAccess(auth as never);
    const destroyed: string[] = [];
    const exchange = (name: string) => ({ destroy: () => destroyed.push(name) });
    open.add('u1', exchange('a'));
    const untrackB = open.add('u1', exchange('b'));
    open.add('u2', exchange('c'));
    untrackB();
    expect(open.count('u1')).toBe(1);
    // A password change ends sign-ins but not a token's stream; only disabling cuts it.
    auth.change('u1', false);
    expect(destroyed).toEqual([]);
    auth.change('u1', true);
    expect(destroyed).toEqual(['a']);
    expect(open.count('u1')).toBe(0);
    expect(open.count('u2')).toBe(1);
    expect(open.closeUser('nobody')).toBe(0);
  });
});
