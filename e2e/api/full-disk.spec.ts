import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AuthStore } from '../../lib/auth/index';
import { MODEL_NAME, MODEL_URL, PORT, e2eScratchDir, expect, startServer, test, type ServerProcess } from '../fixtures';

/**
 * Issue 21.2, a full disk: the built server on a 32 MiB tmpfs data directory that is then filled
 * to the last byte. Every kind of write (create, rename, append, turn begin and finalize,
 * attachment, import, chat) answers 503 with a message that says the disk is full, never a 500
 * or a stack; nothing written before is damaged (every JSON file and node file parses, the
 * registry equals every meta.json, git fsck is clean, every message is still there); reads keep
 * working; once the filler is removed every write works again, without a restart.
 *
 * Needs mount(2) (root, or a container that allows it). Where it is refused the test prints why
 * and skips, except as root: CI runs as root on machines that allow it, so there a refusal fails
 * the test rather than letting it pass unseen (E2E_FULL_DISK=optional allows the skip, for root
 * in a container without CAP_SYS_ADMIN).
 */
const DISK_PORT = PORT + 60;
const BASE = `http://127.0.0.1:${DISK_PORT}`;
const FULL = /out of disk space/i;

interface Answer {
  status: number;
  text: string;
  json: unknown;
}

function tryMount(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m,mode=0700', 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

/** Fills the file system of `dir` to its last byte: big writes, then ever smaller ones, until ENOSPC at 1 byte. */
function fill(path: string): void {
  const fd = openSync(path, 'a');
  try {
    for (let size = 1 << 20; size >= 1; size >>= 1) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

test.describe.configure({ mode: 'serial' });

test('a full data directory: clear 503s on every write, nothing damaged, reads work, writes again once space is freed', async () => {
  test.setTimeout(240_000);
  const mountPoint = join(e2eScratchDir(), `full-disk-${process.pid}`);
  mkdirSync(mountPoint, { recursive: true });
  const refused = tryMount(mountPoint);
  if (refused !== null) {
    const why = `full-disk test: mount -t tmpfs is refused on this machine (${refused})`;
    const asRoot = process.getuid?.() === 0;
    if (asRoot && process.env['E2E_FULL_DISK'] !== 'optional') throw new Error(`${why}, as root; set E2E_FULL_DISK=optional to skip it where root may not mount`);
    // Printed, not only an annotation: a skipped test is easy to read as a passed one.
    process.stderr.write(`${why}; skipped: run it as root or in a container with CAP_SYS_ADMIN\n`);
    test.skip(true, why);
  }
  const dataDir = join(mountPoint, 'data');
  const filler = join(mountPoint, 'filler');
  let server = null as ServerProcess | null;
  const started = Date.now();
  const log = (line: string) => process.stderr.write(`full-disk: ${((Date.now() - started) / 1000).toFixed(1)} s ${line}\n`);
  try {
    const auth = new AuthStore(join(dataDir, 'auth'));
    const user = await auth.users.create({ email: 'disk@full.test', password: 'full disk password', admin: true });
    const token = (await auth.tokens.create(user.id, { name: 'full disk' })).token;
    auth.flushSync();
    server = startServer({
      port: DISK_PORT,
      host: '127.0.0.1',
      dataDir,
      runtime: 'node',
      env: { OPENPROGRAM_LLM_BASE_URL: MODEL_URL, OPENPROGRAM_LLM_MODEL: MODEL_NAME },
    });
    await server.ready(120_000);
    log('server ready');

    const send = async (path: string, init: RequestInit = {}): Promise<Answer> => {
      const response = await fetch(`${BASE}${path}`, { signal: AbortSignal.timeout(30_000), ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });
      const text = await response.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON: the assertions show the text
      }
      return { status: response.status, text, json };
    };
    const mutation = (procedure: string, input: unknown) => send(`/api/trpc/${procedure}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    const read = (procedure: string, input?: unknown) => send(`/api/trpc/${procedure}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`);
    const data = <T>(answer: Answer): T => {
      expect(answer.status, answer.text).toBe(200);
      return (answer.json as { result: { data: T } }).result.data;
    };
    const upload = (sessionId: string, name: string, bytes: Buffer) => {
      const form = new FormData();
      form.set('sessionId', sessionId);
      form.set('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), name);
      return send('/api/attachments', { method: 'POST', body: form });
    };
    const claudeCodeFile = (sessionUuid: string, words: string) => {
      const line = (uuid: string, parent: string | null, type: 'user' | 'assistant', content: string) =>
        JSON.stringify({ type, uuid, parentUuid: parent, sessionId: sessionUuid, timestamp: '2026-11-20T10:00:00Z', message: { role: type, content } });
      return [line(`${sessionUuid.slice(0, -2)}01`, null, 'user', `import ${words}`), line(`${sessionUuid.slice(0, -2)}02`, `${sessionUuid.slice(0, -2)}01`, 'assistant', `imported ${words}`)].join('\n') + '\n';
    };
    const importFile = (sessionUuid: string, words: string) => send(`/api/import?name=${encodeURIComponent(`proj/${sessionUuid}.jsonl`)}`, { method: 'POST', body: claudeCodeFile(sessionUuid, words) });
    const chatTurn = async (sessionId: string, content: string): Promise<Answer> => {
      const answer = await mutation('chat.send', { sessionId, content });
      if (answer.status !== 200) return answer;
      for (let i = 0; i < 200; i++) {
        const state = data<{ running: boolean }>(await read('chat.state', { sessionId }));
        if (!state.running) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return answer;
    };

    // Written before the disk fills: a session with a turn, an attachment, a chat reply, an import.
    const sessionId = 'disk-before';
    data(await mutation('session.create', { id: sessionId, title: 'written before the disk filled' }));
    data(await mutation('turn.begin', { sessionId }));
    data(await mutation('message.append', { sessionId, message: { role: 'user', content: 'beforefull question' } }));
    data(await mutation('message.append', { sessionId, message: { role: 'assistant', content: 'beforefull answer' } }));
    data(await mutation('turn.finalize', { sessionId, commitMessage: 'before the disk filled' }));
    const attachment = await upload(sessionId, 'before.bin', Buffer.alloc(4096, 7));
    expect(attachment.status, attachment.text).toBe(200);
    const attachmentId = (attachment.json as { id: string }).id;
    expect((await chatTurn(sessionId, 'beforefull chat')).status).toBe(200);
    const imported = await importFile('cc000000-0000-4000-8000-000000000100', 'beforefull');
    expect(imported.status, imported.text).toBe(200);
    // A turn left open with a message in it: its finalize meets the full disk.
    data(await mutation('turn.begin', { sessionId }));
    data(await mutation('message.append', { sessionId, message: { role: 'assistant', content: 'beforefull pending' } }));
    const chatSession = 'disk-chat';
    data(await mutation('session.create', { id: chatSession, title: 'chat while full' }));
    const nodesBefore = data<{ messages: { id: string; content: string }[] }>(await read('message.nodes', { sessionId })).messages;
    expect(nodesBefore.map((node) => node.content)).toEqual(expect.arrayContaining(['beforefull question', 'beforefull answer', 'beforefull chat', 'You said: beforefull chat']));
    const listBefore = data<{ rows: { id: string }[] }>(await read('session.list', { scope: 'all' })).rows;

    log('written before; filling the disk');
    fill(filler);
    log('full');
    expect(statSync(filler).size).toBeGreaterThan(16 * 1024 * 1024);

    // Every write: 503 with the message, no stack, no path, nothing half-made.
    const refusals: [string, Answer][] = [
      ['session.create', await mutation('session.create', { id: 'disk-during', title: 'made while full' })],
      ['session.update', await mutation('session.update', { id: sessionId, title: 'renamed while full' })],
      ['message.append', await mutation('message.append', { sessionId, message: { role: 'user', content: 'duringfull '.repeat(400) } })],
      ['turn.finalize', await mutation('turn.finalize', { sessionId, commitMessage: 'while full' })],
      ['turn.begin', await mutation('turn.begin', { sessionId: chatSession })],
      ['attachment', await upload(sessionId, 'during.bin', Buffer.alloc(64 * 1024, 9))],
      ['import', await importFile('cc000000-0000-4000-8000-000000000200', 'duringfull')],
      ['chat.send', await chatTurn(chatSession, 'duringfull chat')],
    ];
    for (const [what, answer] of refusals) {
      expect([503, 507], `${what}: ${answer.status} ${answer.text}`).toContain(answer.status);
      expect(answer.text, what).toMatch(FULL);
      expect(answer.text, what).not.toMatch(/\bat [\w.<>]+ \(|node:internal|\/users\/|stack/);
    }

    log('writes refused');
    // Reads keep working, and show everything written before.
    const listDuring = data<{ rows: { id: string; title: string }[] }>(await read('session.list', { scope: 'all' })).rows;
    expect(listDuring.map((row) => row.id).sort()).toEqual(listBefore.map((row) => row.id).sort());
    expect(listDuring.find((row) => row.id === sessionId)?.title).toBe('written before the disk filled');
    const nodesDuring = data<{ messages: { id: string; content: string }[] }>(await read('message.nodes', { sessionId })).messages;
    expect(nodesDuring.map((node) => node.content)).toEqual(nodesBefore.map((node) => node.content));
    data(await read('session.get', { id: sessionId }));
    const hits = data<{ hits: { sessionId: string }[] }>(await read('session.search', { q: 'beforefull' })).hits;
    expect(hits.map((hit) => hit.sessionId)).toContain(sessionId);
    const download = await send(`/api/attachments/${sessionId}/${attachmentId}`);
    expect(download.status, download.text.slice(0, 200)).toBe(200);
    expect(download.text.length).toBe(4096);

    assertIntact(dataDir, user.id, listDuring);

    // Space freed: every write works again, in the same process.
    log('reads work, nothing damaged; freeing the space');
    rmSync(filler);
    const pending = data<{ sessionCommit: string | null }>(await mutation('turn.finalize', { sessionId, commitMessage: 'the turn left open' }));
    expect(pending.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    const tree = execFileSync('git', ['-C', join(dataDir, 'users', user.id, 'sessions', sessionId), 'ls-tree', '-r', '--name-only', pending.sessionCommit!], { encoding: 'utf8' });
    const pendingNode = nodesBefore.find((node) => node.content === 'beforefull pending')!;
    expect(tree).toContain(pendingNode.id);
    data(await mutation('session.create', { id: 'disk-after', title: 'made after space was freed' }));
    data(await mutation('session.update', { id: sessionId, title: 'renamed after' }));
    expect((await chatTurn(chatSession, 'afterfull other chat')).status).toBe(200);
    data(await mutation('turn.begin', { sessionId }));
    data(await mutation('message.append', { sessionId, message: { role: 'user', content: 'afterfull question' } }));
    data(await mutation('turn.finalize', { sessionId, commitMessage: 'after space was freed' }));
    const after = await upload(sessionId, 'after.bin', Buffer.alloc(4096, 3));
    expect(after.status, after.text).toBe(200);
    const importedAfter = await importFile('cc000000-0000-4000-8000-000000000300', 'afterfull');
    expect(importedAfter.status, importedAfter.text).toBe(200);
    expect((await chatTurn(sessionId, 'afterfull chat')).status).toBe(200);
    const nodesAfter = data<{ messages: { content: string }[] }>(await read('message.nodes', { sessionId })).messages.map((node) => node.content);
    expect(nodesAfter).toEqual(expect.arrayContaining(['afterfull question', 'You said: afterfull chat']));
    expect(nodesAfter.some((content) => content.includes('duringfull'))).toBe(false);
    const listAfter = data<{ rows: { id: string; title: string }[] }>(await read('session.list', { scope: 'all' })).rows;
    expect(listAfter.map((row) => row.id)).toEqual(expect.arrayContaining(['disk-after', sessionId]));
    expect(listAfter.map((row) => row.id)).not.toContain('disk-during');
    assertIntact(dataDir, user.id, listAfter);
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);

    // Stopped while the disk is full: it still exits (its flush fails), and starts again once there is room.
    log('writes work again; stopping on a full disk');
    fill(filler);
    const exited = await Promise.race([server.stop('SIGTERM'), new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(exited, server.output().slice(-2000)).not.toBe('still running');
    rmSync(filler);
    server = startServer({ port: DISK_PORT, host: '127.0.0.1', dataDir, runtime: 'node' });
    await server.ready(120_000);
    const listRestarted = data<{ rows: { id: string; title: string }[] }>(await read('session.list', { scope: 'all' })).rows;
    expect(listRestarted.map((row) => [row.id, row.title]).sort()).toEqual(listAfter.map((row) => [row.id, row.title]).sort());
    expect(data<{ messages: { content: string }[] }>(await read('message.nodes', { sessionId })).messages.map((node) => node.content)).toEqual(nodesAfter);
    assertIntact(dataDir, user.id, listRestarted);
  } finally {
    // Room first: a server stopped on a full disk is what the end of the test is about, not its cleanup.
    rmSync(filler, { force: true });
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      const stopped = server.stop('SIGTERM');
      const timer = setTimeout(() => server?.child.kill('SIGKILL'), 15_000);
      await stopped;
      clearTimeout(timer);
    }
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
});

/** Every JSON and node file parses, the registry equals each meta.json, git fsck is clean. */
function assertIntact(dataDir: string, userId: string, rows: { id: string; title: string }[]): void {
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (name !== '.git') walk(path);
      } else if (name.endsWith('.json')) {
        expect(() => JSON.parse(readFileSync(path, 'utf8')), `${path.slice(dataDir.length)} parses`).not.toThrow();
      } else if (name.endsWith('.tmp')) {
        throw new Error(`a temp file is left: ${path.slice(dataDir.length)}`);
      }
    }
  };
  walk(dataDir);
  const sessionsDir = join(dataDir, 'users', userId, 'sessions');
  const onDisk = readdirSync(sessionsDir).filter((name) => !name.startsWith('.') && existsSync(join(sessionsDir, name, 'meta.json')));
  expect(onDisk.sort()).toEqual(rows.map((row) => row.id).sort());
  for (const row of rows) {
    const meta = JSON.parse(readFileSync(join(sessionsDir, row.id, 'meta.json'), 'utf8')) as { title: string };
    expect(meta.title, `${row.id}: registry and meta.json`).toBe(row.title);
    execFileSync('git', ['-C', join(sessionsDir, row.id), 'fsck', '--no-dangling', '--no-progress'], { stdio: ['ignore', 'pipe', 'pipe'] });
  }
}
