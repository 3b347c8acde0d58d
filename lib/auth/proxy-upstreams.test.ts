import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateProxyUpstreams, ProxyUpstreams } from './proxy-upstreams.js';

const U1 = '1111111111111111';
const U2 = '2222222222222222';

describe('ProxyUpstreams', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const fresh = (env: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-upstreams-'));
    dirs.push(dir);
    return { dir, upstreams: new ProxyUpstreams(dir, env), path: join(dir, 'users', U1, 'proxy-upstreams.json') };
  };

  it('anthropic and openai always exist, at the instance defaults (env or the public APIs)', () => {
    expect(fresh().upstreams.list(U1).map((view) => [view.name, view.baseUrl, view.keySet])).toEqual([
      ['anthropic', 'https://api.anthropic.com', false],
      ['openai', 'https://api.openai.com/v1', false],
    ]);
    const { upstreams } = fresh({ OPENPROGRAM_PROXY_ANTHROPIC_URL: 'http://127.0.0.1:9/', OPENPROGRAM_PROXY_OPENAI_URL: 'http://127.0.0.1:9/v1' });
    expect(upstreams.resolve(U1, 'anthropic')).toEqual({ name: 'anthropic', kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', key: null });
    expect(upstreams.resolve(U1, 'nope')).toBeNull();
  });

  it("stores keys in the user's own folder in a 0600 file (a move carries it), shows them only as set, keeps a key when omitted and clears it when empty", () => {
    const { upstreams, path } = fresh();
    upstreams.set(U1, { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-secret' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(upstreams.list(U1)[0]).toEqual({ name: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', keySet: true, builtIn: true });
    expect(JSON.stringify(upstreams.list(U1))).not.toContain('sk-ant-secret');
    expect(upstreams.list(U2)[0]!.keySet).toBe(false);
    upstreams.set(U1, { name: 'anthropic', kind: 'anthropic', baseUrl: 'http://localhost:8080/' });
    expect(upstreams.resolve(U1, 'anthropic')).toMatchObject({ baseUrl: 'http://localhost:8080', key: 'sk-ant-secret' });
    upstreams.set(U1, { name: 'anthropic', kind: 'anthropic', key: '' });
    expect(upstreams.resolve(U1, 'anthropic')!.key).toBeNull();
    expect(readFileSync(path, 'utf8')).not.toContain('sk-ant-secret');
  });

  it('named upstreams: added with a URL, listed after the built-in ones, deleted; refusals write nothing', () => {
    const { upstreams } = fresh();
    upstreams.set(U1, { name: 'local-llm', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', key: 'k' });
    expect(upstreams.list(U1).map((view) => view.name)).toEqual(['anthropic', 'openai', 'local-llm']);
    expect(() => upstreams.set(U1, { name: 'other', kind: 'openai' })).toThrow(/needs its base URL/);
    expect(() => upstreams.set(U1, { name: 'Bad Name', kind: 'openai', baseUrl: 'http://x' })).toThrow(/upstream name/);
    expect(() => upstreams.set(U1, { name: 'x', kind: 'openai', baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => upstreams.set(U1, { name: 'x', kind: 'openai', baseUrl: 'http://user:pw@x' })).toThrow(/own field/);
    expect(() => upstreams.set(U1, { name: 'openai', kind: 'anthropic' })).toThrow(/of kind openai/);
    expect(upstreams.list(U1)).toHaveLength(3);
    upstreams.delete(U1, 'local-llm');
    expect(() => upstreams.delete(U1, 'local-llm')).toThrow(/no upstream/);
    expect(upstreams.delete(U1, 'openai')).toEqual({ name: 'openai' });
  });

  it("moves the old instance-wide file into each user's folder, keeping what is there, and removes it (no key left in it)", () => {
    const { dir, upstreams, path } = fresh();
    upstreams.set(U1, { name: 'openai', kind: 'openai', key: 'sk-own-newer' });
    mkdirSync(join(dir, 'auth'));
    const old = join(dir, 'auth', 'proxy-upstreams.json');
    const oldText = JSON.stringify({
      version: 1,
      users: {
        [U1]: { anthropic: { kind: 'anthropic', baseUrl: 'https://api.anthropic.com', key: 'sk-ant-old-u1' }, openai: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', key: 'sk-old' } },
        [U2]: { anthropic: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', key: 'sk-ant-old-u2' } },
      },
    });
    writeFileSync(old, oldText);
    expect(migrateProxyUpstreams(join(dir, 'auth'), dir)).toBe(2);
    expect(existsSync(old)).toBe(false);
    expect(upstreams.resolve(U1, 'anthropic')!.key).toBe('sk-ant-old-u1');
    expect(upstreams.resolve(U1, 'openai')!.key).toBe('sk-own-newer');
    expect(upstreams.resolve(U2, 'anthropic')).toMatchObject({ baseUrl: 'http://127.0.0.1:9', key: 'sk-ant-old-u2' });
    expect(readFileSync(path, 'utf8')).not.toContain('sk-ant-old-u2');
    expect(statSync(join(dir, 'users', U2, 'proxy-upstreams.json')).mode & 0o777).toBe(0o600);
    // Killed before the old file went: the next start does it again, and the result is the same.
    writeFileSync(old, oldText);
    const before = readFileSync(path, 'utf8');
    expect(migrateProxyUpstreams(join(dir, 'auth'), dir)).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(migrateProxyUpstreams(join(dir, 'auth'), dir)).toBe(0);
  });
});
