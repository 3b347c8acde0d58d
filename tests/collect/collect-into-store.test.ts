/**
 * `entity-memory collect`'s logic (lib/collect) against the real import (lib/import) into a real
 * store, behind a small HTTP endpoint shaped like `POST /api/import`: partial lines wait, a grown
 * file adds only its new messages, a lost position (a collector killed before it saved) or a
 * replaced file resends without duplicates, a server that is down is waited for.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCollector, type CollectorOptions } from '../../lib/collect/index.js';
import { importFile, withMachine } from '../../lib/import/index.js';
import { openTempStore, type TempStore } from '../../lib/store/testing/temp-store.js';

const SESSION = '5b0c6a4e-1111-4222-8333-944455556666';
const TOKEN = 'collect-test-token';

function line(uuid: string, parentUuid: string | null, type: 'user' | 'assistant', text: string, second: number): string {
  const message = type === 'user' ? { role: 'user', content: text } : { id: `msg-${uuid}`, role: 'assistant', model: 'test-model', content: [{ type: 'text', text }] };
  return `${JSON.stringify({ type, uuid, parentUuid, sessionId: SESSION, cwd: '/work/app', timestamp: `2026-12-01T10:00:${String(second).padStart(2, '0')}.000Z`, message })}\n`;
}

interface ImportServer {
  url: string;
  requests: { name: string; machine: string | null }[];
  /** answers 503 to this many requests first */
  failNext: number;
  close(): Promise<void>;
}

async function importServer(temp: TempStore, port = 0): Promise<ImportServer> {
  const state: ImportServer = { url: '', requests: [], failNext: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    void (async () => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        response.writeHead(401).end('{"error":"unknown token"}');
        return;
      }
      if (state.failNext > 0) {
        state.failNext--;
        for await (const _chunk of request);
        response.writeHead(503).end('{"error":"busy"}');
        return;
      }
      const machine = url.searchParams.get('machine');
      state.requests.push({ name: url.searchParams.get('name') ?? '', machine });
      const report = await importFile(machine ? withMachine(temp.store, machine) : temp.store, url.searchParams.get('name') ?? '', Readable.from(request));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
    })();
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((done) => server.close(() => done()));
  return state;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp() {
  const temp = await openTempStore();
  cleanups.push(temp.cleanup);
  const home = mkdtempSync(join(tmpdir(), 'collect-home-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const folder = join(home, '.claude', 'projects', '-work-app');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${SESSION}.jsonl`);
  const statePath = join(home, '.entity-memory', 'collect.json');
  const server = await importServer(temp);
  cleanups.push(() => server.close());
  const logs: string[] = [];
  const collectOnce = (overrides: Partial<CollectorOptions> = {}) =>
    runCollector({ server: { url: server.url, token: TOKEN, machine: 'laptop-2' }, roots: [join(home, '.claude', 'projects')], statePath, once: true, firstRetryMs: 20, log: (text) => logs.push(text), ...overrides });
  const contents = async () => (await temp.store.getNodes(`cc-${SESSION}`)).map((node) => node.content);
  return { temp, home, file, statePath, server, logs, collectOnce, contents };
}

describe('collect into the import', () => {
  it('sends whole lines only, marks the machine, and adds only what a grown file added', async () => {
    const { temp, file, statePath, server, collectOnce, contents } = await setUp();
    const first = line('u1', null, 'user', 'first question', 1) + line('a1', 'u1', 'assistant', 'first answer', 2);
    const partial = line('u2', 'a1', 'user', 'second question', 3);
    writeFileSync(file, first + partial.slice(0, 20));
    await collectOnce();
    expect(await contents()).toEqual(['first question', 'first answer']);
    const detail = await temp.store.getSession(`cc-${SESSION}`);
    expect(detail.machine).toBe('laptop-2');
    expect(server.requests).toEqual([{ name: `projects/-work-app/${SESSION}.jsonl`, machine: 'laptop-2' }]);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).files[file].offset).toBe(Buffer.byteLength(first));

    // Nothing new: nothing sent.
    await collectOnce();
    expect(server.requests).toHaveLength(1);

    appendFileSync(file, partial.slice(20) + line('a2', 'u2', 'assistant', 'second answer', 4));
    await collectOnce();
    expect(await contents()).toEqual(['first question', 'first answer', 'second question', 'second answer']);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).files[file].offset).toBe(statSync(file).size);
  });

  it('a position lost (killed before it was saved) or a file replaced is sent again and duplicates nothing', async () => {
    const { file, statePath, server, collectOnce, contents, logs } = await setUp();
    writeFileSync(file, line('u1', null, 'user', 'only question', 1) + line('a1', 'u1', 'assistant', 'only answer', 2));
    await collectOnce();
    rmSync(statePath);
    await collectOnce();
    expect(server.requests).toHaveLength(2);
    expect(await contents()).toEqual(['only question', 'only answer']);

    // Replaced by a shorter file (a new inode, fewer bytes): read again from 0.
    rmSync(file);
    writeFileSync(file, line('u1', null, 'user', 'only question', 1));
    await collectOnce();
    expect(server.requests).toHaveLength(3);
    expect(logs.some((text) => text.includes('shrank or was replaced'))).toBe(true);
    expect(await contents()).toEqual(['only question', 'only answer']);
  });

  it('waits for a server that answers 503 or is not there, then sends once it is, nothing lost', async () => {
    const { temp, file, statePath, server, collectOnce, contents, logs } = await setUp();
    writeFileSync(file, line('u1', null, 'user', 'asked while the server was busy', 1));
    server.failNext = 2;
    await collectOnce();
    expect(logs.filter((text) => text.includes('answered 503'))).toHaveLength(2);
    expect(await contents()).toEqual(['asked while the server was busy']);

    // Down: nothing listens on the port until a moment later.
    appendFileSync(file, line('a1', 'u1', 'assistant', 'answered after the restart', 2));
    const port = Number(new URL(server.url).port);
    await server.close();
    const collecting = collectOnce();
    let restarted: ImportServer | null = null;
    while (!logs.some((text) => text.includes('did not answer'))) await new Promise((done) => setTimeout(done, 10));
    restarted = await importServer(temp, port);
    cleanups.push(() => restarted!.close());
    await collecting;
    expect(await contents()).toEqual(['asked while the server was busy', 'answered after the restart']);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).files[file].offset).toBe(statSync(file).size);
  });

  it('watching: a transcript in a folder made after it started is sent, and more lines after it', async () => {
    const { home, file, server, contents, logs } = await setUp();
    const controller = new AbortController();
    rmSync(join(home, '.claude'), { recursive: true, force: true });
    const collecting = runCollector({ server: { url: server.url, token: TOKEN, machine: 'laptop-2' }, roots: [join(home, '.claude', 'projects')], statePath: join(home, 'collect.json'), rescanMs: 100, debounceMs: 20, settleMs: 50, log: (text) => logs.push(text), signal: controller.signal });
    await new Promise((done) => setTimeout(done, 300));
    mkdirSync(join(home, '.claude', 'projects', '-work-app'), { recursive: true });
    writeFileSync(file, line('u1', null, 'user', 'asked after the collector started', 1));
    await expect.poll(contents, { timeout: 10_000 }).toEqual(['asked after the collector started']);
    appendFileSync(file, line('a1', 'u1', 'assistant', 'and answered', 2));
    await expect.poll(contents, { timeout: 10_000 }).toEqual(['asked after the collector started', 'and answered']);
    controller.abort();
    expect((await collecting).sends).toBeGreaterThanOrEqual(2);
  });

  it('stops with the reason when the server refuses the token, and saves no position', async () => {
    const { file, statePath, collectOnce, server } = await setUp();
    writeFileSync(file, line('u1', null, 'user', 'hello', 1));
    await expect(collectOnce({ server: { url: server.url, token: 'wrong', machine: 'laptop-2' } })).rejects.toThrow(/refused the token \(401/);
    expect(() => statSync(statePath)).toThrow();
  });
});

describe('collect against something that is no Entity Memory server', () => {
  it('stops on a 404 instead of marking files sent', async () => {
    const home = mkdtempSync(join(tmpdir(), 'collect-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(404).end('not here'));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
    const file = join(home, 'one.jsonl');
    writeFileSync(file, line('u1', null, 'user', 'hello', 1));
    const statePath = join(home, 'collect.json');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(runCollector({ server: { url, token: TOKEN, machine: 'm' }, roots: [file], statePath, once: true, log: () => {} })).rejects.toThrow(/answered 404 .*is --server an Entity Memory server\?/);
    expect(() => statSync(statePath)).toThrow();
  });
});
