import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpBackend } from './http-backend.js';
import { runImport } from './import-command.js';
import { LocalBackend } from './local-backend.js';
import { run } from './main.js';
import { retryAfterMs } from './server-wait.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'import');
const SESSION_ID = '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f';
const SESSION_FILE = `${SESSION_ID}.jsonl`;

/**
 * A stand-in for the server's POST /api/import over a real data directory (the store's own
 * import behind it), which can be stopped (connection refused) and frozen (503 + Retry-After, as
 * the move gate answers): what `--watch` meets while the server restarts or the user is moved.
 */
class ImportServer {
  frozen = false;
  readonly answered: number[] = [];
  private server: http.Server | null = null;
  constructor(
    private readonly local: LocalBackend,
    readonly port: number,
  ) {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (this.frozen) {
          this.answered.push(503);
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ error: 'this user is being moved; try again shortly' }));
          return;
        }
        const name = new URL(req.url ?? '/', 'http://x').searchParams.get('name') ?? 'upload';
        const body = Buffer.concat(chunks);
        this.local.importFiles([{ name, size: body.length, open: async function* () { yield body; } }]).then(
          (report) => {
            this.answered.push(200);
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
          },
          (error: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message })),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('cli import --watch waits for the server', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('while the server is stopped and while the user is frozen (503 + Retry-After) it waits and sends again: every line once, none lost', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-watch-wait-'));
    dirs.push(dir);
    const quiet = { out: () => {}, err: () => {} };
    expect(await run(['--data', dir, 'users', 'add', 'watch@cli.test', '--password', 'a long password', '--admin'], quiet, {} as NodeJS.ProcessEnv)).toBe(0);
    const projects = join(dir, 'claude-projects', '-home-user-proj');
    mkdirSync(projects, { recursive: true });
    const transcript = join(projects, SESSION_FILE);
    copyFileSync(join(FIXTURES, 'claude-code', '-home-user-proj', SESSION_FILE), transcript);

    const local = LocalBackend.open(dir, null);
    const server = new ImportServer(local, await freePort());
    const out: string[] = [];
    const waits: string[] = [];
    const controller = new AbortController();
    try {
      // Started while nothing listens: connection refused, waited out.
      const watching = runImport(new HttpBackend(`http://127.0.0.1:${server.port}`, 'a-token', null), [join(dir, 'claude-projects')], { json: true, watch: true, progressBar: false, watchIntervalMs: 100, signal: controller.signal }, { out: (line) => out.push(line), err: (line) => waits.push(line) });
      await expect.poll(() => waits.some((line) => /did not answer/.test(line)), { timeout: 10_000 }).toBe(true);
      expect(out).toEqual([]);

      // The server comes up with the user frozen by a move: 503 + Retry-After, then let through.
      server.frozen = true;
      await server.start();
      await expect.poll(() => waits.some((line) => /being moved; try again shortly; trying again in 1 s/.test(line)), { timeout: 10_000 }).toBe(true);
      expect(server.answered).toContain(503);
      server.frozen = false;
      await expect.poll(() => out.length, { timeout: 10_000 }).toBe(1);
      expect(JSON.parse(out[0]!)).toMatchObject({ added: 1 });

      // A line written while the server is down again reaches it once it is back.
      await server.stop();
      const line = { type: 'user', uuid: 'cc000000-0000-4000-8000-000000000088', parentUuid: 'cc000000-0000-4000-8000-000000000023', sessionId: SESSION_ID, timestamp: '2026-11-20T11:00:00.000Z', message: { role: 'user', content: 'written while the server was stopped' } };
      appendFileSync(transcript, `${JSON.stringify(line)}\n`);
      const waitsBefore = waits.length;
      await expect.poll(() => waits.length > waitsBefore, { timeout: 10_000 }).toBe(true);
      await server.start();
      await expect.poll(() => out.length, { timeout: 10_000 }).toBe(2);
      expect(JSON.parse(out[1]!)).toMatchObject({ updated: 1, added: 0 });
      controller.abort();
      await watching;

      const shown = await local.showSession(`cc-${SESSION_ID}`);
      const ids = shown.messages.map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(shown.messages.filter((message) => message.content === 'written while the server was stopped').map((message) => message.id)).toEqual(['cc000000-0000-4000-8000-000000000088']);
    } finally {
      controller.abort();
      await server.stop();
      await local.close();
    }
  });

  it("a user moved away: the one 421 names the owner's URL, and the files go there", { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-watch-moved-'));
    dirs.push(dir);
    expect(await run(['--data', dir, 'users', 'add', 'moved@cli.test', '--password', 'a long password', '--admin'], { out: () => {}, err: () => {} }, {} as NodeJS.ProcessEnv)).toBe(0);
    copyFileSync(join(FIXTURES, 'claude-code', '-home-user-proj', SESSION_FILE), join(dir, SESSION_FILE));
    const local = LocalBackend.open(dir, null);
    const owner = new ImportServer(local, await freePort());
    await owner.start();
    const ownerUrl = `http://127.0.0.1:${owner.port}`;
    const misdirected = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(421, { 'content-type': 'application/json', 'x-entity-memory-owner': 'shard-b', 'x-entity-memory-owner-url': ownerUrl })
          .end(JSON.stringify({ error: { message: `this user is served by instance shard-b (${ownerUrl}); send the request there`, data: { code: 'MISDIRECTED_REQUEST', httpStatus: 421 } } })),
      );
    });
    await new Promise<void>((resolve) => misdirected.listen(0, '127.0.0.1', resolve));
    const out: string[] = [];
    const controller = new AbortController();
    try {
      const backend = new HttpBackend(`http://127.0.0.1:${(misdirected.address() as AddressInfo).port}`, 'a-token', null);
      const watching = runImport(backend, [join(dir, SESSION_FILE)], { json: true, watch: true, progressBar: false, watchIntervalMs: 100, signal: controller.signal }, { out: (line) => out.push(line), err: () => {} });
      await expect.poll(() => out.length, { timeout: 10_000 }).toBe(1);
      expect(JSON.parse(out[0]!)).toMatchObject({ added: 1 });
      controller.abort();
      await watching;
      expect((await local.showSession(`cc-${SESSION_ID}`)).messages.length).toBeGreaterThan(0);
    } finally {
      controller.abort();
      misdirected.closeAllConnections();
      await new Promise<void>((resolve) => misdirected.close(() => resolve()));
      await owner.stop();
      await local.close();
    }
  });

  it('a refusal that waiting cannot change (401) still ends --watch with the error', async () => {
    const server = http.createServer((_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the token is unknown or revoked' })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-watch-refused-'));
    dirs.push(dir);
    copyFileSync(join(FIXTURES, 'claude-code', '-home-user-proj', SESSION_FILE), join(dir, SESSION_FILE));
    const controller = new AbortController();
    try {
      const backend = new HttpBackend(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'a-token', null);
      await expect(runImport(backend, [dir], { json: true, watch: true, progressBar: false, watchIntervalMs: 100, signal: controller.signal }, { out: () => {}, err: () => {} })).rejects.toThrow(/unknown or revoked/);
    } finally {
      controller.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
