import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAuditEntries, AUDIT_ACTIONS, FileAuditLog, type AuditEntry } from './index.js';
import { linesBackwards } from './lines-backwards.js';

const logPath = () => join(mkdtempSync(join(tmpdir(), 'audit-log-')), 'auth', 'audit.log');

const entry = (at: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at,
  actor: 'u1',
  ip: '10.0.0.1',
  action: 'token.create',
  target: `token-${at}`,
  result: 'success',
  ...overrides,
});

const fileLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

describe('FileAuditLog', () => {
  it('appends JSON lines of the six fields and lists them newest first', async () => {
    const path = logPath();
    const log = new FileAuditLog(path);
    await log.append(entry(1));
    await log.append(entry(2, { action: 'sign-in', result: 'failure', actor: null, target: 'x@example.test' }));
    expect(fileLines(path).map((line) => Object.keys(JSON.parse(line)))).toEqual([
      ['at', 'actor', 'ip', 'action', 'target', 'result'],
      ['at', 'actor', 'ip', 'action', 'target', 'result'],
    ]);
    const page = await log.list({ limit: 10 });
    expect(page.entries.map((listed) => listed.at)).toEqual([2, 1]);
    expect(page.entries[0]).toMatchObject({ actor: null, action: 'sign-in', result: 'failure', target: 'x@example.test' });
    expect(page.next).toBeNull();
    await log.close();
  });

  it('acknowledges an append only after the sync that covers it, and syncs many appends at once', async () => {
    const path = logPath();
    let release: () => void = () => undefined;
    const syncs: string[][] = [];
    const log = new FileAuditLog(path, {
      sync: async () => {
        // What is in the file when the sync starts is what it makes durable.
        syncs.push(fileLines(path));
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    let acknowledged = 0;
    const first = log.append(entry(1)).then(() => (acknowledged += 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(syncs).toHaveLength(1);
    expect(acknowledged).toBe(0);
    // These arrive while the first sync runs: they wait and go in one batch.
    const rest = Array.from({ length: 50 }, (_, index) => log.append(entry(index + 2)).then(() => (acknowledged += 1)));
    release();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged).toBe(1);
    expect(syncs).toHaveLength(2);
    expect(syncs[1]).toHaveLength(51);
    release();
    await Promise.all(rest);
    expect(acknowledged).toBe(51);
    await log.close();
  });

  it('pages from the end: every entry once, newest first, with chunk edges inside lines', async () => {
    const path = logPath();
    const log = new FileAuditLog(path);
    await Promise.all(Array.from({ length: 3000 }, (_, index) => log.append(entry(index, { target: `t${index}-${'é'.repeat(index % 7)}` }))));
    const seen: number[] = [];
    let before: number | undefined;
    let pages = 0;
    do {
      const page = await log.list({ limit: 128, before });
      seen.push(...page.entries.map((listed) => listed.at));
      before = page.next ?? undefined;
      pages += 1;
    } while (before !== undefined);
    expect(pages).toBe(Math.ceil(3000 / 128));
    const all = seen.slice().sort((a, b) => b - a);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(3000);
    await log.close();
  });

  it('reads only the end of a large file for the first page', async () => {
    const path = logPath();
    const log = new FileAuditLog(path);
    await Promise.all(Array.from({ length: 20_000 }, (_, index) => log.append(entry(index))));
    await log.close();
    const handle = await open(path, 'r');
    const size = (await handle.stat()).size;
    expect(size).toBeGreaterThan(1_000_000);
    let bytesRead = 0;
    const counting = {
      read: async (buffer: Buffer, offset: number, length: number, position: number) => {
        bytesRead += length;
        return handle.read(buffer, offset, length, position);
      },
    } as unknown as FileHandle;
    const lines: string[] = [];
    for await (const line of linesBackwards(counting, size)) {
      lines.push(line.text);
      if (lines.length === 50) break;
    }
    await handle.close();
    expect(JSON.parse(lines[0]!).at).toBe(19_999);
    expect(bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  it('filters by actor, action, result and time', async () => {
    const path = logPath();
    const log = new FileAuditLog(path);
    for (let at = 1; at <= 40; at += 1) {
      await log.append(entry(at * 1000, { actor: at % 2 === 0 ? 'even' : 'odd', action: AUDIT_ACTIONS[at % 3]!, result: at % 5 === 0 ? 'failure' : 'success' }));
    }
    const ats = async (filter: Parameters<typeof allAuditEntries>[1]) => {
      const found: number[] = [];
      for await (const listed of allAuditEntries(log, filter, 3)) found.push(listed.at / 1000);
      return found;
    };
    expect(await ats({ actor: 'even', result: 'failure' })).toEqual([40, 30, 20, 10]);
    expect(await ats({ action: AUDIT_ACTIONS[1], since: 20_000, until: 31_000 })).toEqual([31, 28, 25, 22]);
    expect(await ats({ actor: 'nobody' })).toEqual([]);
    await log.close();
  });

  it('keeps lines whole when two writers append to the same file at once', async () => {
    const path = logPath();
    const one = new FileAuditLog(path);
    const two = new FileAuditLog(path);
    const long = 'x'.repeat(3000);
    await Promise.all(
      Array.from({ length: 300 }, (_, index) => (index % 2 === 0 ? one : two).append(entry(index, { target: `${index}:${long}` }))),
    );
    const lines = fileLines(path);
    expect(lines).toHaveLength(300);
    expect(new Set(lines.map((line) => JSON.parse(line).at)).size).toBe(300);
    await Promise.all([one.close(), two.close()]);
  });

  it('skips a line torn by a crash and starts the next entry on a line of its own', async () => {
    const path = logPath();
    const before = new FileAuditLog(path);
    await before.append(entry(1));
    await before.close();
    appendFileSync(path, '{"at":2,"actor":"u1","ip":null,"act');
    const after = new FileAuditLog(path);
    expect((await after.list({ limit: 10 })).entries.map((listed) => listed.at)).toEqual([1]);
    await after.append(entry(3));
    expect((await after.list({ limit: 10 })).entries.map((listed) => listed.at)).toEqual([3, 1]);
    expect(fileLines(path)).toHaveLength(3);
    await after.close();
  });

  it('refuses a page position that is not one of the log', async () => {
    const path = logPath();
    const log = new FileAuditLog(path);
    await log.append(entry(1));
    await expect(log.list({ limit: 5, before: 10_000 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(log.list({ limit: 5, before: -1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await log.close();
  });

  it('lists nothing before the first entry is written', async () => {
    const path = logPath();
    expect(await new FileAuditLog(path).list({ limit: 5 })).toEqual({ entries: [], next: null });
  });
});
