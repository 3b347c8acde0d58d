import { describe, expect, it } from 'vitest';
import { USER_COMMANDS } from './commands/users.js';
import { parseScopeFlag, tokenCreateRequest } from './token-scope-flags.js';

const command = USER_COMMANDS['tokens create']!;

describe('tokens create --scope', () => {
  it('reads comma-separated scopes, and none given means the server\'s default (every scope)', () => {
    expect(parseScopeFlag('read, write', command)).toEqual(['read', 'write']);
    expect(parseScopeFlag(undefined, command)).toBeUndefined();
    expect(tokenCreateRequest({ name: 'ci', expiresAt: null, scopes: ['read'], projectId: 'p1' })).toEqual({ name: 'ci', scopes: ['read'], projectId: 'p1' });
    expect(tokenCreateRequest({ name: 'all', expiresAt: null })).toEqual({ name: 'all' });
  });

  it('refuses an unknown or empty scope as a usage error naming the scopes', () => {
    expect(() => parseScopeFlag('read,admin', command)).toThrow(/unknown scope admin; use read, write, proxy, import, mcp/);
    expect(() => parseScopeFlag(',', command)).toThrow(/name at least one scope/);
  });
});
