import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../lib/store/index.js';
import { acquireDataDirLock } from '../lib/process/data-dir-lock.js';
import { run } from './main.js';

const ROOT = join(import.meta.dirname, '..');

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The user's store, opened the way the server opens it. */
async function userStore(dataDir: string, userId: string): Promise<SessionStore> {
  return SessionStore.open({ stateDir: join(dataDir, 'users', userId), workspaceRoot: join(dataDir, 'workspaces', userId) });
}

describe('the command line on a data directory no server holds', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-'));
    dirs.push(dir);
    return dir;
  }

  async function withSessions(): Promise<{ dir: string; userId: string }> {
    const dir = dataDir();
    const created = await cli(dir, 'users', 'add', 'admin@cli.test', '--password', 'a long password', '--admin', '--json');
    expect(created.code).toBe(0);
    const userId = (JSON.parse(created.out) as { id: string }).id;
    const store = await userStore(dir, userId);
    for (const id of ['alpha', 'beta']) {
      await store.createSession({ id });
      await store.appendMessage(id, { role: 'user', content: `hello ${id}` });
    }
    await store.close();
    return { dir, userId };
  }

  it('adds, lists, disables and enables users', async () => {
    const dir = dataDir();
    expect((await cli(dir, 'users', 'add', 'admin@cli.test', '--password', 'a long password', '--admin')).out).toMatch(/^Created admin admin@cli.test \([0-9a-f]{16}\)$/);
    expect((await cli(dir, 'users', 'add', 'bob@cli.test', '--password', 'another long one')).code).toBe(0);
    expect((await cli(dir, 'users', 'list')).out.split('\n').map((line) => line.split('\t').slice(1))).toEqual([
      ['admin@cli.test', 'admin', 'active'],
      ['bob@cli.test', 'user', 'active'],
    ]);
    expect((await cli(dir, 'users', 'disable', 'bob@cli.test')).out).toBe('Disabled user bob@cli.test');
    expect((await cli(dir, 'users', 'list')).out).toContain('bob@cli.test\tuser\tdisabled');
    expect((await cli(dir, 'users', 'enable', 'bob@cli.test')).code).toBe(0);
    const missing = await cli(dir, 'users', 'disable', 'nobody@cli.test');
    expect(missing).toMatchObject({ code: 1, err: 'no user nobody@cli.test' });
    const short = await cli(dir, 'users', 'add', 'carol@cli.test', '--password', 'x');
    expect(short.code).toBe(1);
    expect(short.err).toMatch(/password/i);
  });

  it('exports a session as JSON, Markdown and a git bundle, and every session as one zip', async () => {
    const { dir } = await withSessions();
    const json = join(dir, 'alpha.json');
    const exported = await cli(dir, 'sessions', 'export', 'alpha', '-o', json);
    expect(exported.code).toBe(0);
    expect(exported.out).toMatch(/^Exported session alpha \(json\) to .*alpha\.json: \d+ bytes$/);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as { schema: string; nodes: Array<{ content: string }> };
    expect(doc.schema).toBe('entity-memory.session/1');
    expect(doc.nodes.map((n) => n.content)).toEqual(['hello alpha']);
    const md = join(dir, 'alpha.md');
    expect((await cli(dir, 'sessions', 'export', 'alpha', '--format', 'md', '-o', md)).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toContain('hello alpha');
    const bundle = join(dir, 'alpha.bundle');
    expect((await cli(dir, 'sessions', 'export', 'alpha', '--format', 'bundle', '-o', bundle)).code).toBe(0);
    execFileSync('git', ['clone', '--quiet', bundle, join(dir, 'clone')]);
    expect(execFileSync('git', ['-C', join(dir, 'clone'), 'log', '--all', '--format=%s'], { encoding: 'utf8' }).trim()).toBe('session init');

    const zip = join(dir, 'all.zip');
    expect((await cli(dir, 'export', '--all', zip)).code).toBe(0);
    const { unzipSync } = await import('fflate');
    expect(Object.keys(unzipSync(readFileSync(zip))).sort()).toEqual(['alpha.json', 'beta.json']);

    // Refusals write nothing.
    expect(await cli(dir, 'sessions', 'export', 'nope', '-o', join(dir, 'nope.json'))).toEqual({ code: 1, out: 'no session', err: '' });
    expect(() => readFileSync(join(dir, 'nope.json'))).toThrow();
    expect(() => readFileSync(join(dir, 'nope.json.part'))).toThrow();
    expect((await cli(dir, 'sessions', 'export', 'alpha', '--format', 'pdf')).code).toBe(2);
    expect((await cli(dir, 'export', zip)).code).toBe(2);
  });

  it('lists sessions by scope, and archives / unarchives with the seeds\' messages', async () => {
    const { dir, userId } = await withSessions();
    const before = JSON.parse(readFileSync(join(dir, 'users', userId, 'sessions', 'index.json'), 'utf8')) as Record<string, { updated_at: number }>;
    expect((await cli(dir, 'sessions', 'list')).out.split('\n').map((line) => line.split('\t')[0])).toEqual(['beta', 'alpha']);
    expect(await cli(dir, 'sessions', 'archive', 'alpha')).toEqual({ code: 0, out: 'Archived session alpha', err: '' });
    expect((await cli(dir, 'sessions', 'list', '--scope', 'active')).out.split('\n').map((line) => line.split('\t')[0])).toEqual(['beta']);
    expect((await cli(dir, 'sessions', 'list', '--scope', 'archived')).out).toMatch(/^alpha\t.*\tarchived\thello alpha$/);
    expect((await cli(dir, 'sessions', 'list', '--scope', 'all', '--json')).out).toContain('"id":"alpha"');
    expect(await cli(dir, 'unarchive', 'alpha')).toEqual({ code: 0, out: 'Unarchived session alpha', err: '' });
    const after = JSON.parse(readFileSync(join(dir, 'users', userId, 'sessions', 'index.json'), 'utf8')) as Record<string, { updated_at: number }>;
    expect(after['alpha']!.updated_at).toBe(before['alpha']!.updated_at);
    expect(await cli(dir, 'archive', 'nope')).toEqual({ code: 1, out: 'no session', err: '' });
    expect(await cli(dir, 'sessions', 'unarchive', 'nope')).toEqual({ code: 1, out: 'no session', err: '' });
    expect((await cli(dir, 'sessions', 'list', '--scope', 'sideways')).code).toBe(2);
  });

  it('renames and deletes sessions', async () => {
    const { dir, userId } = await withSessions();
    expect((await cli(dir, 'sessions', 'rename', 'alpha', 'A', 'new', 'name')).out).toBe('Renamed session alpha to A new name');
    expect((await cli(dir, 'sessions', 'delete', 'beta')).out).toBe('Deleted session beta');
    expect(await cli(dir, 'sessions', 'delete', 'beta')).toEqual({ code: 1, out: 'no session', err: '' });
    const store = await userStore(dir, userId);
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row.title])).toEqual([['alpha', 'A new name']]);
    await store.close();
  });

  it('creates a token that the auth store accepts', async () => {
    const { dir } = await withSessions();
    const result = await cli(dir, 'tokens', 'create', 'my agent');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^em_/);
    const tokens = readFileSync(join(dir, 'auth', 'tokens.json'), 'utf8');
    expect(tokens).not.toContain(result.out); // stored hashed
    expect(tokens).toContain('my agent');
  });

  it('refuses to open a data directory that a live process holds without an HTTP address', async () => {
    const dir = dataDir();
    const release = acquireDataDirLock(dir, null);
    try {
      const result = await cli(dir, 'sessions', 'list');
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/holds/);
    } finally {
      release();
    }
  });

  it('talks to the running server over HTTP with the token file, and says so when it is missing', async () => {
    const dir = dataDir();
    // A lock naming a live process (this one) and a URL: the CLI must not open the directory.
    writeFileSync(join(dir, 'server.lock'), JSON.stringify({ pid: process.pid, startedAt: Date.now(), url: 'http://127.0.0.1:9' }));
    const result = await cli(dir, 'sessions', 'list');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/cli-token/);
  });

  it('runs as the `entity-memory` bin with exit codes', () => {
    const dir = dataDir();
    const noUser = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--data', dir, 'sessions', 'list'], { encoding: 'utf8' });
    expect(noUser.status).toBe(1);
    expect(noUser.stderr).toMatch(/no admin exists yet/);
    const ok = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--data', dir, 'users', 'add', 'a@cli.test', '--password', 'a long password', '--admin'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
    const unknown = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--data', dir, 'archive', 'x'], { encoding: 'utf8' });
    expect(unknown.status).toBe(1);
    expect(unknown.stdout.trim()).toBe('no session');
    const usage = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--data', dir, 'bogus'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(execFileSync('node', ['-e', `console.log(require('${join(ROOT, 'package.json')}').bin['entity-memory'])`], { encoding: 'utf8' }).trim()).toBe('./cli/bin.mjs');
  });
});
