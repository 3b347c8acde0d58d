import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRoot, migrateProjectRoots, parseRootsEnv, ProjectRootsFile } from './project-roots.js';

const U1 = '1111111111111111';
const U2 = '2222222222222222';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scratch() {
  const base = mkdtempSync(join(tmpdir(), 'em-roots-'));
  dirs.push(base);
  const data = join(base, 'data');
  for (const dir of [join(data, 'auth'), join(data, 'workspaces', U1), join(base, 'srv', 'alice', 'deep'), join(base, 'srv', 'bob')]) mkdirSync(dir, { recursive: true });
  return { base, data, file: new ProjectRootsFile(data) };
}

describe('OPENPROGRAM_ALLOWED_ROOTS', () => {
  it('reads user=path entries split by ; or newlines and names the bad ones', () => {
    expect(parseRootsEnv(' a@x.org=/srv/a ; b@x.org=/srv/b\nc=/srv/c;;')).toEqual({
      entries: [
        { user: 'a@x.org', path: '/srv/a' },
        { user: 'b@x.org', path: '/srv/b' },
        { user: 'c', path: '/srv/c' },
      ],
      errors: [],
    });
    expect(parseRootsEnv('nobody;x=relative/path;=/srv').errors).toEqual([
      '"nobody": expected <email or user id>=<absolute path>',
      '"x=relative/path": the path must be absolute',
      '"=/srv": expected <email or user id>=<absolute path>',
    ]);
    expect(parseRootsEnv(undefined)).toEqual({ entries: [], errors: [] });
  });

  it('loads the usable entries, skipping unknown users and overlaps, with reasons', async () => {
    const { base, file } = scratch();
    const errors = await file.loadEnv(`alice@x.org=${base}/srv/alice;ghost@x.org=${base}/srv/bob;bob@x.org=${base}/srv/alice/deep`, (user) =>
      ({ 'alice@x.org': U1, 'bob@x.org': U2 })[user] ?? null,
    );
    expect(file.list()).toEqual([{ userId: U1, path: join(base, 'srv', 'alice'), from: 'env' }]);
    expect(errors).toEqual(['ghost@x.org: no such user', expect.stringMatching(/overlaps .*srv\/alice, a root of another user/)]);
    expect(() => file.remove(U1, join(base, 'srv', 'alice'))).toThrow(/OPENPROGRAM_ALLOWED_ROOTS/);
  });
});

describe('admin roots', () => {
  it("adds real paths, keeps them 0600 in the user's own folder (a move carries it), lists and removes them", async () => {
    const { base, data, file } = scratch();
    symlinkSync(join(base, 'srv', 'alice'), join(base, 'alice-link'));
    const root = await file.add(U1, join(base, 'alice-link'));
    expect(root).toEqual({ userId: U1, path: join(base, 'srv', 'alice'), from: 'admin' });
    expect(file.rootsOf(U1)).toEqual([join(base, 'srv', 'alice')]);
    expect(file.rootsOf(U2)).toEqual([]);
    const onDisk = join(data, 'users', U1, 'project-roots.json');
    expect(statSync(onDisk).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(onDisk, 'utf8'))).toEqual({ version: 1, roots: [join(base, 'srv', 'alice')] });
    expect(existsSync(join(data, 'auth', 'project-roots.json'))).toBe(false);
    await expect(file.add(U1, join(base, 'srv', 'alice'))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(file.remove(U1, join(base, 'srv', 'alice'))).toEqual({ removed: true });
    expect(file.list()).toEqual([]);
    expect(() => file.remove(U1, join(base, 'srv', 'alice'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('refuses what is not a folder, overlaps the data directory or another user\'s root', async () => {
    const { base, data, file } = scratch();
    await file.add(U1, join(base, 'srv', 'alice'));
    await expect(file.add(U2, 'relative')).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/absolute/) });
    await expect(file.add(U2, join(base, 'missing'))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/no such folder/) });
    await expect(file.add(U2, join(data, 'workspaces', U1))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/data directory/) });
    await expect(file.add(U2, base)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/data directory/) });
    await expect(file.add(U2, join(base, 'srv', 'alice', 'deep'))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/no two users share a root/) });
    await expect(file.add(U2, join(base, 'srv'))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(checkRoot(join(base, 'srv', 'bob'), U2, { dataDir: data, roots: file.list() })).resolves.toBe(join(base, 'srv', 'bob'));
    expect(file.list()).toHaveLength(1);
  });
});

describe('the old instance-wide file', () => {
  it("moves data/auth/project-roots.json into each user's folder once, keeping what is there, and removes it", async () => {
    const { base, data, file } = scratch();
    const [alice, bob] = [join(base, 'srv', 'alice'), join(base, 'srv', 'bob')];
    const old = join(data, 'auth', 'project-roots.json');
    const oldText = `${JSON.stringify({ roots: [{ userId: U1, path: alice }, { userId: U2, path: bob }, { userId: '../escape', path: '/tmp' }] })}\n`;
    writeFileSync(old, oldText);
    await file.add(U2, bob).catch(() => undefined); // U2's own file already has bob: not repeated
    expect(migrateProjectRoots(join(data, 'auth'), data)).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(file.rootsOf(U1)).toEqual([alice]);
    expect(file.rootsOf(U2)).toEqual([bob]);
    expect(statSync(join(data, 'users', U1, 'project-roots.json')).mode & 0o777).toBe(0o600);
    // A crash before the old file was removed: run again, nothing doubles.
    writeFileSync(old, oldText);
    expect(migrateProjectRoots(join(data, 'auth'), data)).toBe(0);
    expect(file.list().map((root) => root.path)).toEqual([alice, bob]);
    expect(migrateProjectRoots(join(data, 'auth'), data)).toBe(0);
  });
});
