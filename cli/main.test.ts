import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthStore } from '../lib/auth/index.js';
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

  it('searches every message (building the index first when there is none) and rebuilds it with progress', async () => {
    const { dir, userId } = await withSessions();
    const found = await cli(dir, 'sessions', 'search', 'hello', 'beta');
    expect(found.code).toBe(0);
    expect(found.out).toMatch(/^beta\t[0-9a-f]{12}\tuser\t-\thello beta\t«hello» «beta»$/);
    expect(existsSync(join(dir, 'users', userId, 'search.sqlite'))).toBe(true);
    const none = await cli(dir, 'sessions', 'search', 'absent-word');
    expect(none).toMatchObject({ code: 0, out: '', err: 'No message matches "absent-word".' });
    const rebuilt = await cli(dir, 'search', 'reindex');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.out).toMatch(/^Search index rebuilt: 2 sessions in \d+\.\d s$/);
    expect(rebuilt.err).toContain('Rebuilding the search index: 2/2 sessions');
    expect((await cli(dir, 'sessions', 'search', 'hello', '--scope', 'all', '--json')).out).toContain('"sessionId":"alpha"');
    expect((await cli(dir, 'sessions', 'search')).code).toBe(2);
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
    expect(await cli(dir, 'sessions', 'export', 'nope', '-o', join(dir, 'nope.json'))).toEqual({ code: 1, out: '', err: 'no session' });
    expect(() => readFileSync(join(dir, 'nope.json'))).toThrow();
    expect(() => readFileSync(join(dir, 'nope.json.part'))).toThrow();
    expect((await cli(dir, 'sessions', 'export', 'alpha', '--format', 'pdf')).code).toBe(2);
    expect((await cli(dir, 'export', zip)).code).toBe(2);
  });

  it('lists sessions by scope, and archives / unarchives with the seeds\' messages', async () => {
    const { dir, userId } = await withSessions();
    const before = JSON.parse(readFileSync(join(dir, 'users', userId, 'sessions', 'index.json'), 'utf8')) as Record<string, { updated_at: number }>;
    const listed = (await cli(dir, 'sessions', 'list')).out.split('\n');
    expect(listed[0]).toBe('ID\tUPDATED\tSTATUS\tPROJECT\tFLAGS\tTITLE');
    expect(listed.slice(1).map((line) => line.split('\t')[0])).toEqual(['beta', 'alpha']);
    expect(listed[1]).toMatch(/^beta\t\d{4}-\d\d-\d\dT[^\t]+\tidle\tHome\t-\thello beta$/);
    expect(await cli(dir, 'sessions', 'archive', 'alpha')).toEqual({ code: 0, out: 'Archived session alpha', err: '' });
    expect((await cli(dir, 'sessions', 'list', '--scope', 'active')).out.split('\n').slice(1).map((line) => line.split('\t')[0])).toEqual(['beta']);
    expect((await cli(dir, 'sessions', 'list', '--scope', 'archived')).out.split('\n')[1]).toMatch(/^alpha\t.*\tarchived\thello alpha$/);
    expect((await cli(dir, 'sessions', 'list', '--scope', 'all', '--json')).out).toContain('"id":"alpha"');
    expect(await cli(dir, 'unarchive', 'alpha')).toEqual({ code: 0, out: 'Unarchived session alpha', err: '' });
    const after = JSON.parse(readFileSync(join(dir, 'users', userId, 'sessions', 'index.json'), 'utf8')) as Record<string, { updated_at: number }>;
    expect(after['alpha']!.updated_at).toBe(before['alpha']!.updated_at);
    expect(await cli(dir, 'archive', 'nope')).toEqual({ code: 1, out: '', err: 'no session' });
    expect(await cli(dir, 'sessions', 'unarchive', 'nope')).toEqual({ code: 1, out: '', err: 'no session' });
    expect((await cli(dir, 'sessions', 'list', '--scope', 'sideways')).code).toBe(2);
  });

  it('renames and deletes sessions', async () => {
    const { dir, userId } = await withSessions();
    expect((await cli(dir, 'sessions', 'rename', 'alpha', 'A', 'new', 'name')).out).toBe('Renamed session alpha to A new name');
    expect((await cli(dir, 'sessions', 'delete', 'beta')).out).toBe('Deleted session beta');
    expect(await cli(dir, 'sessions', 'delete', 'beta')).toEqual({ code: 1, out: '', err: 'no session' });
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
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim()).toBe('no session');
    const usage = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.mjs'), '--data', dir, 'bogus'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(execFileSync('node', ['-e', `console.log(require('${join(ROOT, 'package.json')}').bin['entity-memory'])`], { encoding: 'utf8' }).trim()).toBe('./cli/bin.mjs');
  });

  it('resets a password: the old one stops working, the new one signs in', async () => {
    const dir = dataDir();
    await cli(dir, 'users', 'add', 'admin@cli.test', '--password', 'a long password', '--admin');
    await cli(dir, 'users', 'add', 'bob@cli.test', '--password', 'bobs first password');
    expect(await cli(dir, 'users', 'reset-password', 'bob@cli.test', '--password', 'bobs second password')).toEqual({
      code: 0,
      out: 'Reset the password of bob@cli.test; their sign-ins have ended',
      err: '',
    });
    const auth = new AuthStore(join(dir, 'auth'));
    expect(await auth.users.verifyCredentials('bob@cli.test', 'bobs first password')).toBeNull();
    expect(await auth.users.verifyCredentials('bob@cli.test', 'bobs second password')).not.toBeNull();
    expect((await cli(dir, 'users', 'reset-password', 'bob@cli.test')).code).toBe(2);
    expect(await cli(dir, 'users', 'reset-password', 'nobody@cli.test', '--password', 'whatever long')).toEqual({ code: 1, out: '', err: 'no user nobody@cli.test' });
    const short = await cli(dir, 'users', 'reset-password', 'bob@cli.test', '--password', 'x');
    expect(short.code).toBe(1);
    expect(short.err).toMatch(/password/i);
  });

  it('lists and adds projects, and shows a session with its branch', async () => {
    const { dir, userId } = await withSessions();
    const folder = join(dir, 'workspaces', userId, 'garden');
    execFileSync('git', ['init', '-q', folder]);
    const added = await cli(dir, 'projects', 'add', folder, '--name', 'Garden');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^Added project Garden \(\S+\) at .*garden$/);
    expect((await cli(dir, 'projects', 'add', folder)).out).toMatch(/^Already a project: Garden/);
    const projects = (await cli(dir, 'projects', 'list')).out.split('\n');
    expect(projects[0]).toBe('ID\tNAME\tSESSIONS\tAUTO-COMMIT\tPATH');
    expect(projects.slice(1).map((line) => line.split('\t')[1])).toEqual(['Home', 'Garden']);
    expect(projects[2]!.split('\t').slice(2, 4)).toEqual(['0', 'on']);
    const outside = await cli(dir, 'projects', 'add', tmpdir());
    expect(outside.code).toBe(1);
    expect(outside.out).toBe('');
    expect(outside.err).not.toBe('');

    const shown = await cli(dir, 'sessions', 'show', 'alpha');
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^Title: +hello alpha$/m);
    expect(shown.out).toMatch(/^Project: +Home$/m);
    expect(shown.out).toContain('1 message on the current branch');
    expect(shown.out).toMatch(/\[user\] \d{4}-[^\n]*\nhello alpha/);
    expect(JSON.parse((await cli(dir, '--json', 'sessions', 'show', 'alpha')).out)).toMatchObject({ session: { id: 'alpha' }, messages: [{ role: 'user', content: 'hello alpha' }] });
    expect(await cli(dir, 'sessions', 'show', 'nope')).toEqual({ code: 1, out: '', err: 'no session' });
  });

  it('explains itself: help, help for a group or a command, usage errors on stderr', async () => {
    const dir = dataDir();
    const help = await cli(dir, 'help');
    expect(help.code).toBe(0);
    expect(help.err).toBe('');
    for (const usage of ['users reset-password <email|id> --password <pw>', 'projects list', 'projects add <path>', 'sessions show <id>', 'sessions list']) expect(help.out).toContain(usage);
    expect((await cli(dir, '--help')).out).toBe(help.out);
    const group = await cli(dir, 'help', 'projects');
    expect(group.out.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(2);
    expect((await cli(dir, 'sessions', 'show', '--help')).out).toContain('sessions show <id>');
    expect(await cli(dir, 'help', 'bogus')).toMatchObject({ code: 2, out: '' });
    const bare = await cli(dir);
    expect(bare).toMatchObject({ code: 2, out: '' });
    expect(bare.err).toContain('commands:');
    const unknown = await cli(dir, 'sessions', 'fly');
    expect(unknown).toMatchObject({ code: 2, out: '' });
    expect(unknown.err).toMatch(/^unknown command: sessions fly/);
    const badFlag = await cli(dir, 'sessions', 'list', '--colour');
    expect(badFlag).toMatchObject({ code: 2, out: '' });
    expect((await cli(dir, 'sessions', 'show')).err).toContain('usage: entity-memory sessions show <id>');
  });
});
