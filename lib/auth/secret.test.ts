import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateAuthSecret } from './secret.js';
import { useTempDir } from './testing/temp-dir.js';

describe('auth secret', () => {
  const tempDir = useTempDir();

  it('is generated once into secret (0600) and reused', () => {
    const dir = tempDir();
    const first = loadOrCreateAuthSecret(dir, undefined);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(loadOrCreateAuthSecret(dir, '')).toBe(first);
    expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(first);
  });

  it('prefers NEXTAUTH_SECRET and writes nothing then', () => {
    const dir = tempDir();
    expect(loadOrCreateAuthSecret(dir, 'from-env')).toBe('from-env');
    expect(() => statSync(join(dir, 'secret'))).toThrow();
  });
});
