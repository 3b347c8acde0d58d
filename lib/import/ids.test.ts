import { describe, expect, it } from 'vitest';
import { nodeIdOf, sessionIdOf } from './ids.js';

describe('import ids', () => {
  it('keeps a source id that is a valid name and hashes one that is not, stably', () => {
    expect(nodeIdOf('cc000000-0000-4000-8000-000000000001')).toBe('cc000000-0000-4000-8000-000000000001');
    expect(nodeIdOf('client-created-root')).toBe('client-created-root');
    expect(nodeIdOf('a/b')).toMatch(/^h[0-9a-f]{40}$/);
    expect(nodeIdOf('a/b')).toBe(nodeIdOf('a/b'));
  });

  it('prefixes session ids and never cuts a long one', () => {
    expect(sessionIdOf('cc', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f')).toBe('cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f');
    const long = sessionIdOf('codex', 'x'.repeat(200));
    expect(long).toMatch(/^codex-h[0-9a-f]{40}$/);
  });
});
