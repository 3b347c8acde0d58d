import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSTANCE_KEYS_FILE, InstanceKeys } from './instance-keys.js';

const U1 = '1111111111111111';
const U2 = '2222222222222222';

describe('InstanceKeys', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'instance-keys-'));
    dirs.push(dir);
    const authDir = join(dir, 'auth');
    return { dir, keys: new InstanceKeys(authDir), path: join(authDir, INSTANCE_KEYS_FILE) };
  };

  it('starts with no key and nobody switched on, without creating the file', () => {
    const { keys, path } = fresh();
    expect(keys.view()).toEqual({ keys: { anthropic: { set: false }, openai: { set: false } }, users: [] });
    expect(keys.keyFor(U1, 'anthropic')).toBeNull();
    expect(existsSync(path)).toBe(false);
  });

  it('keeps a key per kind in a 0600 file under the auth folder, shown only as set, replaced and removed', () => {
    const { keys, path, dir } = fresh();
    const view = keys.setKey('anthropic', '  sk-ant-instance-secret ');
    expect(view.keys).toEqual({ anthropic: { set: true }, openai: { set: false } });
    expect(JSON.stringify(view)).not.toContain('sk-ant-instance-secret');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, keys: { anthropic: 'sk-ant-instance-secret' } });
    // atomic write: no temp file left beside it, nothing in any user's folder
    expect(readdirSync(join(dir, 'auth'))).toEqual([INSTANCE_KEYS_FILE]);
    expect(existsSync(join(dir, 'users'))).toBe(false);
    keys.setKey('anthropic', 'sk-ant-second');
    keys.setKey('openai', 'sk-openai-instance');
    expect(keys.view().keys).toEqual({ anthropic: { set: true }, openai: { set: true } });
    keys.setKey('anthropic', '');
    expect(keys.view().keys.anthropic.set).toBe(false);
    expect(readFileSync(path, 'utf8')).not.toContain('sk-ant-');
  });

  it('serves a key only to a user switched on, and only of a set kind; the switch goes off again', () => {
    const { keys } = fresh();
    keys.setKey('anthropic', 'sk-ant-instance');
    expect(keys.keyFor(U1, 'anthropic')).toBeNull();
    expect(keys.setAllowed(U1, true).users).toEqual([U1]);
    expect(keys.allowed(U1)).toBe(true);
    expect(keys.keyFor(U1, 'anthropic')).toBe('sk-ant-instance');
    expect(keys.keyFor(U1, 'openai')).toBeNull();
    expect(keys.keyFor(U2, 'anthropic')).toBeNull();
    keys.setAllowed(U1, true);
    expect(keys.view().users).toEqual([U1]);
    keys.setAllowed(U1, false);
    expect(keys.keyFor(U1, 'anthropic')).toBeNull();
    expect(keys.view().users).toEqual([]);
  });

  it('refuses bad input with a clear error, writing nothing', () => {
    const { keys, path } = fresh();
    expect(() => keys.setKey('mistral' as 'openai', 'k')).toThrow(/kind must be anthropic or openai/);
    expect(() => keys.setKey('anthropic', 'two words')).toThrow(/one word/);
    expect(() => keys.setKey('anthropic', 'k'.repeat(4_001))).toThrow(/4,000/);
    expect(() => keys.setAllowed('../etc', true)).toThrow(/user id/);
    expect(existsSync(path)).toBe(false);
    keys.setKey('openai', 'sk-kept');
    const before = readFileSync(path, 'utf8');
    expect(() => keys.setKey('openai', 'sk bad')).toThrow();
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});
