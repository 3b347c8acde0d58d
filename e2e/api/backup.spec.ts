import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, createSession, expect, freshDataDir, PORT, query, startServerSignedIn, test } from '../fixtures';

// DESIGN §17: `entity-memory backup` while the server runs and writes go on, `restore` into a
// directory a server starts on, `verify` that fails a damaged backup.
const ADMIN = { email: 'backup-admin@e2e.test', password: 'backup admin password' };
const APPENDS = 1000;

function cli(...args: string[]): { code: number; out: string; err: string } {
  const result = spawnSync(process.execPath, ['cli/bin.mjs', ...args], { encoding: 'utf8', timeout: 240_000 });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}

/** The CLI without blocking this process: the appends go on meanwhile. */
function cliInBackground(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, ['cli/bin.mjs', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err })));
}

interface NodePage {
  messages: Array<{ content: unknown }>;
  nextCursor: string | null;
}

test('a backup taken during 1,000 appends restores every append acknowledged before its cut, the server starts on it, and a damaged copy fails verify', async () => {
  test.setTimeout(600_000);
  const dataDir = freshDataDir();
  const first = await startServerSignedIn({ port: PORT + 31, dataDir, admin: ADMIN });
  const backup = join(freshDataDir(), 'nightly.tar');
  const acknowledged: Array<{ content: string; at: number }> = [];
  let sessionId = '';
  let made: ReturnType<typeof cli> | null = null;
  try {
    sessionId = (await createSession(first.api, { title: 'written during the backup' })).id;
    const appends = (async () => {
      for (let n = 0; n < APPENDS; n++) {
        const content = `append ${n}`;
        await appendMessage(first.api, sessionId, { role: n % 2 === 0 ? 'user' : 'assistant', content });
        acknowledged.push({ content, at: Date.now() });
      }
    })();
    await expect.poll(() => acknowledged.length, { timeout: 120_000 }).toBeGreaterThanOrEqual(100);
    // the CLI on the running server's data directory, in its own process, while appends go on
    made = await cliInBackground('backup', backup, '--data', dataDir, '--json');
    await appends;
  } finally {
    await first.api.dispose();
    await first.server.stop();
  }
  expect(made?.code, made?.err).toBe(0);
  const summary = JSON.parse(made!.out) as { cutAt: string; sessions: number };
  const cut = Date.parse(summary.cutAt);
  const beforeCut = acknowledged.filter((append) => append.at < cut).map((append) => append.content);
  expect(beforeCut.length).toBeGreaterThan(0);
  // the backup really was taken while appends went on
  expect(acknowledged.some((append) => append.at > cut)).toBe(true);

  const verified = cli('verify', backup);
  expect(verified.code, verified.err).toBe(0);
  expect(verified.out).toContain('every entry matches the manifest');

  const restoredDir = join(freshDataDir(), 'restored');
  const restored = cli('restore', backup, '--data', restoredDir);
  expect(restored.code, restored.err).toBe(0);

  const second = await startServerSignedIn({ port: PORT + 32, dataDir: restoredDir, admin: ADMIN, createAdmin: false });
  try {
    const contents = new Set<unknown>();
    let cursor: string | null = null;
    do {
      const page: NodePage = (await query<NodePage>(second.api, 'message.nodes', { sessionId, limit: 200, cursor })).data;
      for (const message of page.messages) contents.add(message.content);
      cursor = page.nextCursor;
    } while (cursor);
    expect(beforeCut.filter((content) => !contents.has(content))).toEqual([]);
    const listed = await query<{ rows: Array<{ id: string }> }>(second.api, 'session.list', {});
    expect(listed.data.rows.map((row) => row.id)).toContain(sessionId);
  } finally {
    await second.api.dispose();
    await second.server.stop();
  }

  // one byte changed in a session's file: verify names it and fails; restore writes nothing
  const bytes = readFileSync(backup);
  const at = bytes.indexOf('append 1"');
  expect(at).toBeGreaterThan(0);
  bytes[at] = 'A'.charCodeAt(0);
  const damaged = join(freshDataDir(), 'damaged.tar');
  writeFileSync(damaged, bytes);
  const failed = cli('verify', damaged);
  expect(failed.code).toBe(1);
  expect(failed.err).toMatch(/is damaged:\n.*its bytes differ from the manifest's checksum/);
  const refusedDir = join(freshDataDir(), 'not-restored');
  const refused = cli('restore', damaged, '--data', refusedDir);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('nothing was restored');
});
