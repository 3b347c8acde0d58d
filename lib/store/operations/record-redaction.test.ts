import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Redactor } from '../types.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

// Issue 27 item 7: titles, node names and imported meta reached meta.json, git, the registry and
// its log unredacted. The stand-in rule (the real ones live in lib/redact, above the store) knows
// three real shapes: an Anthropic key, an AWS access key id, a GitHub token.
const SECRET = /sk-ant-api03-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}/g;
const ANTHROPIC = `sk-ant-api03-${'a1B2c3D4'.repeat(4)}`;
const AWS = 'AKIAZ3MHHNE4XQ7TB2PL';
const GITHUB = `ghp_${'x9Y8z7W6'.repeat(4)}abcd`;
const ALL = [ANTHROPIC, AWS, GITHUB];

const redactor: Redactor = (message) => {
  let count = 0;
  const json = JSON.stringify({ content: message.content, input: message.input, metadata: message.metadata }).replace(SECRET, () => {
    count++;
    return '[REDACTED:test]';
  });
  const parts = JSON.parse(json) as typeof message;
  return { message: { ...message, content: parts.content, ...(message.input !== undefined ? { input: parts.input } : {}), ...(message.metadata !== undefined ? { metadata: parts.metadata } : {}) }, count };
};

/** Every file under the state directory (work trees, index.json, the registry log) as text. */
function filesOf(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        if (name !== '.git') walk(path);
      } else out.push({ path, text: readFileSync(path, 'latin1') });
    }
  };
  walk(dir);
  return out;
}

/** Every object of every session repo (loose and packed), as git prints them. */
function gitObjectsOf(dir: string): string {
  const repos: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (!statSync(path).isDirectory()) continue;
      if (name === '.git') repos.push(at);
      else walk(path);
    }
  };
  walk(dir);
  expect(repos.length).toBeGreaterThan(0);
  return repos.map((repo) => execFileSync('git', ['-C', repo, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 64 * 1024 * 1024 }).toString('latin1')).join('\n');
}

/** Where any of the secrets is on disk: files and git objects (nothing may be). */
function leaks(dir: string, secrets = ALL): string[] {
  const found: string[] = [];
  for (const file of filesOf(dir)) for (const secret of secrets) if (file.text.includes(secret)) found.push(`${file.path}: ${secret}`);
  const objects = gitObjectsOf(dir);
  for (const secret of secrets) if (objects.includes(secret)) found.push(`git object: ${secret}`);
  return found;
}

function registryText(dir: string): string {
  const sessions = join(dir, 'sessions');
  const log = join(sessions, '.index-log');
  const segments = existsSync(log) ? readdirSync(log).map((name) => readFileSync(join(log, name), 'utf8')) : [];
  return [existsSync(join(sessions, 'index.json')) ? readFileSync(join(sessions, 'index.json'), 'utf8') : '', ...segments].join('\n');
}

function metaOf(dir: string, id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, 'sessions', id, 'meta.json'), 'utf8')) as Record<string, unknown>;
}

describe('secrets out of titles, names and meta (issue 27 item 7)', () => {
  const open = tempStoresPerTest();

  it('a title given at creation and a rename are stored redacted: meta.json, git, the registry and its log, the row', async () => {
    const { store, dir } = await open({ redactor });
    const { row } = await store.createSession({ id: 's', title: `deploy with ${ANTHROPIC}`, peerDisplay: `bot ${GITHUB}` });
    expect(row.title).toBe('deploy with [REDACTED:test]');
    await store.appendMessage('s', { role: 'user', content: 'hello' });
    await store.beginTurn('s');
    await store.finalizeTurn('s');
    const renamed = await store.updateSession('s', { title: `key ${AWS} here`, group: `g ${GITHUB}` });
    expect(renamed.title).toBe('key [REDACTED:test] here');
    await store.appendMessage('s', { role: 'user', content: 'again' });
    await store.beginTurn('s');
    await store.finalizeTurn('s');
    await store.flush();
    expect(metaOf(dir, 's')).toMatchObject({ title: 'key [REDACTED:test] here', group: 'g [REDACTED:test]', peer_display: 'bot [REDACTED:test]' });
    expect(registryText(dir)).toContain('[REDACTED:test]');
    expect(store.listSessions({ q: 'REDACTED' }).rows.map((entry) => entry.title)).toEqual(['key [REDACTED:test] here']);
    expect((await store.getSession('s')).redacted).toBe(4);
    expect(leaks(dir)).toEqual([]);
  });

  it("a node's name (a model slug a client chose) is stored redacted, in its file and in git", async () => {
    const { store, dir } = await open({ redactor });
    await store.createSession({ id: 's' });
    const user = await store.appendMessage('s', { role: 'user', content: 'hi' });
    const reply = await store.appendMessage('s', { role: 'assistant', parentId: user.id, name: `model-${GITHUB}`, content: 'hello' });
    expect(reply.name).toBe('model-[REDACTED:test]');
    // a name seen clean once is not scanned again, and is still written
    const again = await store.appendMessage('s', { role: 'assistant', parentId: user.id, name: 'claude-sonnet-4-5', content: 'hello again' });
    expect(again.name).toBe('claude-sonnet-4-5');
    await store.beginTurn('s');
    await store.finalizeTurn('s');
    expect((await store.getNodes('s')).find((node) => node.id === reply.id)!.name).toBe('model-[REDACTED:test]');
    expect((await store.getSession('s')).redacted).toBe(1);
    expect(leaks(dir)).toEqual([]);
  });

  it("an import's title, cwd, git branch, branch labels and node names are stored redacted, in every turn's commit", async () => {
    const { store, dir } = await open({ redactor });
    const T0 = 1_800_000_000;
    const turns = [
      [
        { id: 'u1', createdAt: T0, role: 'user' as const, content: 'first', parentId: null },
        { id: 'a1', createdAt: T0 + 1, role: 'assistant' as const, content: 'one', parentId: 'u1', name: `m-${AWS}` },
      ],
      [
        { id: 'u2', createdAt: T0 + 2, role: 'user' as const, content: 'second', parentId: 'a1' },
        { id: 'a2', createdAt: T0 + 3, role: 'assistant' as const, content: 'two', parentId: 'u2', name: 'claude-opus-4' },
      ],
    ];
    const result = await store.importSession({
      id: 'cc-1',
      source: 'claude-code',
      title: `custom ${ANTHROPIC}`,
      meta: { work_dir: `/home/me/${GITHUB}`, git_branch: `fix/${AWS}` },
      branchNames: { a2: { name: `branch ${ANTHROPIC}` } },
      turns,
    });
    expect(result.outcome).toBe('added');
    expect(result.redacted).toBe(5);
    const meta = metaOf(dir, 'cc-1');
    expect(meta).toMatchObject({ title: 'custom [REDACTED:test]', work_dir: '/home/me/[REDACTED:test]', git_branch: 'fix/[REDACTED:test]', redacted: 5 });
    expect(store.getRow('cc-1')!.title).toBe('custom [REDACTED:test]');
    // A grown transcript: the next turn goes through the other writer (one commit per turn).
    await store.importSession({
      id: 'cc-1',
      source: 'claude-code',
      turns: [...turns, [{ id: 'u3', createdAt: T0 + 4, role: 'user' as const, content: 'third', parentId: 'a2' }, { id: 'a3', createdAt: T0 + 5, role: 'assistant' as const, content: 'three', parentId: 'u3', name: `x-${GITHUB}` }]],
    });
    expect((await store.getNodes('cc-1')).map((node) => node.name)).toContain('x-[REDACTED:test]');
    await store.flush();
    expect(registryText(dir)).toContain('custom [REDACTED:test]');
    expect(leaks(dir)).toEqual([]);
  });

  it("a chat's settings, the context sent to the model and a record node are stored redacted", async () => {
    const { store, dir } = await open({ redactor });
    await store.createSession({ id: 's' });
    const user = await store.appendMessage('s', { role: 'user', content: 'hi' });
    const settings = await store.setChatSettings('s', { model: `m-${AWS}`, systemPrompt: `use ${ANTHROPIC} for the API` });
    expect(settings).toEqual({ model: 'm-[REDACTED:test]', systemPrompt: 'use [REDACTED:test] for the API' });
    expect(await store.getChatSettings('s')).toEqual(settings);
    // the same secret again is the same (stored) settings: nothing new written
    const nodes = (await store.getNodes('s')).length;
    await store.setChatSettings('s', { model: `m-${AWS}` });
    expect((await store.getNodes('s')).length).toBe(nodes);
    const reply = await store.appendMessage('s', { role: 'assistant', parentId: user.id, content: 'hello' });
    await store.writeContextFile('s', reply.id, { system: `key ${GITHUB}`, messages: [] });
    await store.appendRecordNode('s', (seq, now) => ({ id: 'rec_1', created_at: now, seq, role: 'code', name: 'note', input: null, output: `moved to /srv/${GITHUB}`, caller: 'ROOT', predecessor: null, reads: [], metadata: {} }));
    await store.beginTurn('s');
    await store.finalizeTurn('s');
    expect((await store.getNodes('s')).find((node) => node.id === 'rec_1')!.content).toBe('moved to /srv/[REDACTED:test]');
    expect(leaks(dir)).toEqual([]);
  });

  it("a turn's commit message a client gave is stored redacted", async () => {
    const { store, dir } = await open({ redactor });
    await store.createSession({ id: 's' });
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'hi' });
    await store.finalizeTurn('s', { commitMessage: `deploy with ${ANTHROPIC}` });
    expect(execFileSync('git', ['log', '-1', '--format=%B', 'main'], { cwd: join(dir, 'sessions', 's') }).toString().trim()).toBe('deploy with [REDACTED:test]\n\nOpenProgram-Project-Skipped: no_project');
    expect(leaks(dir)).toEqual([]);
  });

  it('with redaction off, titles and names are written as given (the check above can fail)', async () => {
    const { store, dir } = await open({ redactor: null });
    await store.createSession({ id: 's', title: `deploy with ${ANTHROPIC}` });
    await store.appendMessage('s', { role: 'user', content: 'hi', name: `n-${AWS}` });
    await store.flush();
    expect(leaks(dir, [ANTHROPIC, AWS]).length).toBeGreaterThan(0);
    expect(metaOf(dir, 's')['title']).toBe(`deploy with ${ANTHROPIC}`);
  });
});
