import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyUpstreams } from './proxy-upstreams.js';

describe('ProxyUpstreams', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const fresh = (env: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-upstreams-'));
    dirs.push(dir);
    return { upstreams: new ProxyUpstreams(join(dir, 'proxy-upstreams.json'), env), path: join(dir, 'proxy-upstreams.json') };
  };

  it('anthropic and openai always exist, at the instance defaults (env or the public APIs)', () => {
    expect(fresh().upstreams.list('u1').map((view) => [view.name, view.baseUrl, view.keySet])).toEqual([
      ['anthropic', 'https://api.anthropic.com', false],
      ['openai', 'https://api.openai.com/v1', false],
    ]);
    const { upstreams } = fresh({ OPENPROGRAM_PROXY_ANTHROPIC_URL: 'http://127.0.0.1:9/', OPENPROGRAM_PROXY_OPENAI_URL: 'http://127.0.0.1:9/v1' });
    expect(upstreams.resolve('u1', 'anthropic')).toEqual({ name: 'anthropic', kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', key: null });
    expect(upstreams.resolve('u1', 'nope')).toBeNull();
  });

  it('stores keys per user in a 0600 file, shows them only as set, keeps a key when omitted and clears it when empty', () => {
    const { upstreams, path } = fresh();
    upstreams.set('u1', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-secret' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(upstreams.list('u1')[0]).toEqual({ name: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', keySet: true, builtIn: true });
    expect(JSON.stringify(upstreams.list('u1'))).not.toContain('sk-ant-secret');
    expect(upstreams.list('u2')[0]!.keySet).toBe(false);
    upstreams.set('u1', { name: 'anthropic', kind: 'anthropic', baseUrl: 'http://localhost:8080/' });
    expect(upstreams.resolve('u1', 'anthropic')).toMatchObject({ baseUrl: 'http://localhost:8080', key: 'sk-ant-secret' });
    upstreams.set('u1', { name: 'anthropic', kind: 'anthropic', key: '' });
    expect(upstreams.resolve('u1', 'anthropic')!.key).toBeNull();
    expect(readFileSync(path, 'utf8')).not.toContain('sk-ant-secret');
  });

  it('named upstreams: added with a URL, listed after the built-in ones, deleted; refusals write nothing', () => {
    const { upstreams } = fresh();
    upstreams.set('u1', { name: 'local-llm', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', key: 'k' });
    expect(upstreams.list('u1').map((view) => view.name)).toEqual(['anthropic', 'openai', 'local-llm']);
    expect(() => upstreams.set('u1', { name: 'other', kind: 'openai' })).toThrow(/needs its base URL/);
    expect(() => upstreams.set('u1', { name: 'Bad Name', kind: 'openai', baseUrl: 'http://x' })).toThrow(/upstream name/);
    expect(() => upstreams.set('u1', { name: 'x', kind: 'openai', baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => upstreams.set('u1', { name: 'x', kind: 'openai', baseUrl: 'http://user:pw@x' })).toThrow(/own field/);
    expect(() => upstreams.set('u1', { name: 'openai', kind: 'anthropic' })).toThrow(/of kind openai/);
    expect(upstreams.list('u1')).toHaveLength(3);
    upstreams.delete('u1', 'local-llm');
    expect(() => upstreams.delete('u1', 'local-llm')).toThrow(/no upstream/);
    expect(upstreams.delete('u1', 'openai')).toEqual({ name: 'openai' });
  });
});
