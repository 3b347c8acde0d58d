import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PORT as MAIN_PORT, bearer, expect, freshDataDir, startServer, test } from '../fixtures';

const PORT = MAIN_PORT + 3;

interface IndexEntry {
  updated_at: number;
  preview: string | null;
  title: string;
  status: string;
}

test('SIGTERM during writes leaves a registry equal to the sessions\' own files', async () => {
  test.setTimeout(120_000);
  const dataDir = freshDataDir();
  const server = startServer({ port: PORT, dataDir, env: { OPENPROGRAM_ADMIN_EMAIL: 'owner@e2e.test', OPENPROGRAM_ADMIN_PASSWORD: 'owner-password-e2e' } });
  try {
    // Start-up has finished (admin created, CLI token written) once the data directory is printed.
    await server.waitForOutput(/Ready on/);
    const cliToken = readFileSync(join(dataDir, 'auth', 'cli-token'), 'utf8').trim();
    const post = async (path: string, input: unknown) => {
      const response = await fetch(`${server.url}/api/trpc/${path}`, {
        method: 'POST',
        headers: { ...bearer(cliToken), 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return response.status;
    };
    const ids = Array.from({ length: 5 }, (_, i) => `durable-${i}`);
    for (const id of ids) expect(await post('session.create', { id })).toBe(200);

    // Writers that keep appending until the server goes away (the registry write is debounced).
    let appended = 0;
    const writers = ids.map(async (id) => {
      for (let i = 0; ; i++) {
        try {
          const status = await post('message.append', { sessionId: id, message: { role: 'user', content: `${id} message ${i}` } });
          if (status !== 200) return;
          appended++;
        } catch {
          return; // connection refused: the server stopped
        }
      }
    });
    await expect.poll(() => appended, { timeout: 30_000 }).toBeGreaterThan(100);
    expect(await server.stop('SIGTERM')).toBe(0);
    await Promise.all(writers);

    const userDirs = readdirSync(join(dataDir, 'users'));
    expect(userDirs).toHaveLength(1);
    const sessionsDir = join(dataDir, 'users', userDirs[0]!, 'sessions');
    const index = JSON.parse(readFileSync(join(sessionsDir, 'index.json'), 'utf8')) as Record<string, IndexEntry>;
    expect(Object.keys(index).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const meta = JSON.parse(readFileSync(join(sessionsDir, id, 'meta.json'), 'utf8')) as IndexEntry;
      expect(index[id]).toMatchObject({ updated_at: meta.updated_at, preview: meta.preview, title: meta.title, status: meta.status });
      const files = readdirSync(join(sessionsDir, id, 'history')).sort();
      const newest = JSON.parse(readFileSync(join(sessionsDir, id, 'history', files[files.length - 1]!), 'utf8')) as { output: string };
      expect(index[id]!.preview).toBe(newest.output);
    }
    // A clean stop leaves nothing to reconcile.
    expect(existsSync(join(sessionsDir, '.index-journal'))).toBe(false);
  } finally {
    await server.stop('SIGKILL');
  }
});
