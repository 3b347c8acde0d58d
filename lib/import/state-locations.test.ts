import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../store/index.js';
import { importFile } from './import-file.js';
import { zipStateDir } from './state-zip.js';
import { makeOpenProgramState } from './testing/openprogram-state.js';

const temps: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("an uploaded state directory's locations.json", () => {
  it('is followed only inside the upload: an existing folder elsewhere (another user\'s session) and a missing one get the same words', { timeout: 60_000 }, async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'op-locations-')));
    temps.push(root);
    const state = await makeOpenProgramState(root);
    // Another user's session folder on this server: a real repo (meta.json naming its id, .git).
    const other = join(root, 'users', 'bob', 'sessions', 'op-bob');
    mkdirSync(join(other, '.git'), { recursive: true });
    writeFileSync(join(other, 'meta.json'), JSON.stringify({ id: 'op-bob' }));
    const missing = join(root, 'users', 'carol', 'sessions', 'op-carol');
    const file = join(state.stateDir, 'sessions', 'locations.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), 'op-bob': other, 'op-carol': missing }));

    const store = await SessionStore.open({ stateDir: join(root, 'data'), workspaceRoot: join(root, 'work'), allowedRoots: [root] });
    stores.push(store);
    const report = await importFile(store, 'state.zip', zipStateDir(state.stateDir));
    expect(report.added).toBe(3);
    const about = (id: string, path: string) => report.skipped.filter((entry) => entry.reason.includes(id)).map((entry) => ({ ...entry, reason: entry.reason.replace(id, '<id>').replace(path, '<path>') }));
    expect(about('op-bob', other)).toEqual([{ file: 'state.zip/sessions/locations.json', line: 0, reason: 'session <id>: <path> is not inside the uploaded state directory: not followed' }]);
    expect(about('op-carol', missing)).toEqual(about('op-bob', other));
    expect(store.getRow('op-bob')).toBeFalsy();
  });
});
