import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../store/index.js';
import { importFile, importInputs, inputsFromPaths } from './import-file.js';
import { zipLimitsFromEnv, DEFAULT_ZIP_LIMITS } from './zip-limits.js';

const temps: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const store of stores.splice(0)) await store.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store, and a TMPDIR of this test's own: whatever the import unpacks goes there, and is seen. */
async function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zip-limits-')));
  temps.push(root);
  const scratch = join(root, 'tmp');
  mkdirSync(scratch);
  const store = await SessionStore.open({ stateDir: join(root, 'data'), workspaceRoot: join(root, 'work') });
  stores.push(store);
  vi.stubEnv('TMPDIR', scratch);
  expect(tmpdir()).toBe(scratch);
  return { root, scratch, store, dataDir: join(root, 'data') };
}

/** A state directory's entries around `extra`: one session folder, as the CLI's zip names them. */
function stateEntries(extra: Record<string, Uint8Array>): Record<string, Uint8Array> {
  return { 'state/sessions/op-one/meta.json': new TextEncoder().encode('{"id":"op-one"}'), ...extra };
}

/** A zip as a stream writes it (fflate's Zip): no sizes in the entry headers, only after the data. */
function streamedZip(entries: Record<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    parts.push(data);
  });
  for (const [name, data] of Object.entries(entries)) {
    const entry = new ZipDeflate(name, { level: 9 });
    zip.add(entry);
    for (let at = 0; at < data.length; at += 1 << 20) entry.push(data.subarray(at, at + (1 << 20)), at + (1 << 20) >= data.length);
  }
  zip.end();
  return Buffer.concat(parts);
}

async function* upload(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
}

/** Everything left under a folder, as relative paths. */
function left(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

describe('an uploaded zip past its limits', () => {
  it('a zip bomb (64 MiB of zeros in 64 KB, its header saying so or not) is refused with a 413 error; nothing is imported and the scratch folder is gone', async () => {
    const { scratch, store, dataDir } = await setup();
    const zeros = new Uint8Array(64 * 1024 * 1024);
    for (const [kind, zip] of [
      ['declared', zipSync(stateEntries({ 'state/sessions/op-one/.git/objects/ab/cdef': zeros }), { level: 9 })],
      ['streamed', streamedZip(stateEntries({ 'state/sessions/op-one/.git/objects/ab/cdef': zeros }))],
    ] as const) {
      expect(zip.length, kind).toBeLessThan(1024 * 1024);
      const refusal = await importFile(store, 'state.zip', upload(zip)).then(
        () => null,
        (error: unknown) => error as Error & { code?: string },
      );
      expect(refusal?.code, kind).toBe('PAYLOAD_TOO_LARGE');
      expect(refusal?.message, kind).toMatch(/^refused: the zip entry state\/sessions\/op-one\/\.git\/objects\/ab\/cdef unpacks to more than 200 times its packed size, as a zip bomb does \(OPENPROGRAM_IMPORT_ZIP_MAX_RATIO\)/);
      expect(left(scratch), kind).toEqual([]);
      expect(store.listSessions({ scope: 'all' }).rows, kind).toEqual([]);
      expect(left(join(dataDir, 'sessions')).filter((name) => name.startsWith('op-')), kind).toEqual([]);
    }
  });

  it('an entry past the per-entry limit is refused, whether its header declares the size or not', async () => {
    const { scratch, store } = await setup();
    vi.stubEnv('OPENPROGRAM_IMPORT_ZIP_MAX_ENTRY_BYTES', String(2 * 1024 * 1024));
    // Random bytes do not pack: the ratio is 1, only the size is over.
    const big = { 'state/sessions/op-one/.git/objects/pack/big.pack': randomBytes(3 * 1024 * 1024) };
    for (const zip of [zipSync(stateEntries(big)), streamedZip(stateEntries(big))]) {
      await expect(importFile(store, 'state.zip', upload(zip))).rejects.toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringMatching(/^refused: the zip entry state\/sessions\/op-one\/\.git\/objects\/pack\/big\.pack unpacks to more than 2 MiB \(OPENPROGRAM_IMPORT_ZIP_MAX_ENTRY_BYTES\)/),
      });
      expect(left(scratch)).toEqual([]);
    }
  });

  it('many entries each within the limits are refused past the total; among many files (the CLI) it is that file\'s refusal', async () => {
    const { root, scratch, store } = await setup();
    vi.stubEnv('OPENPROGRAM_IMPORT_ZIP_MAX_BYTES', String(4 * 1024 * 1024));
    const entries = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`state/sessions/op-one/.git/objects/pack/p${i}.pack`, randomBytes(1024 * 1024)]));
    const zip = streamedZip(stateEntries(entries));
    await expect(importFile(store, 'state.zip', upload(zip))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/^refused: the zip unpacks to more than 4 MiB \(OPENPROGRAM_IMPORT_ZIP_MAX_BYTES\)/) });
    expect(left(scratch)).toEqual([]);
    writeFileSync(join(root, 'state.zip'), zip);
    const report = await importInputs(store, await inputsFromPaths([join(root, 'state.zip')]));
    expect(report).toMatchObject({ added: 0, skipped: [{ file: 'state.zip', line: 0, reason: expect.stringMatching(/^refused: the zip unpacks to more than 4 MiB/) }] });
    expect(left(scratch)).toEqual([]);
  });

  it('a ChatGPT export\'s conversations.json is held to the same limits; the images beside it are passed over', async () => {
    const { store } = await setup();
    const zeros = new Uint8Array(32 * 1024 * 1024);
    const zip = zipSync({ 'file-1.png': randomBytes(2 * 1024 * 1024), 'conversations.json': zeros }, { level: 9 });
    await expect(importFile(store, 'export.zip', upload(zip))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/conversations\.json unpacks to more than 200 times/) });
  });

  it('reads its limits from the environment, a bad value meaning the default', () => {
    expect(zipLimitsFromEnv({})).toEqual(DEFAULT_ZIP_LIMITS);
    expect(zipLimitsFromEnv({ OPENPROGRAM_IMPORT_ZIP_MAX_RATIO: '50', OPENPROGRAM_IMPORT_ZIP_MAX_ENTRIES: '0', OPENPROGRAM_IMPORT_ZIP_MAX_BYTES: 'lots' })).toEqual({ ...DEFAULT_ZIP_LIMITS, maxRatio: 50 });
  });
});
