import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRoot, parseRootsEnv, ProjectRootsFile } from './project-roots.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scratch() {
  const base = mkdtempSync(join(tmpdir(), 'em-roots-'));
  dirs.push(base);
  const data = join(base, 'data');
  for (const dir of [join(data, 'auth'), join(data, 'workspaces', 'u1'), join(base, 'srv', 'alice', 'deep'), join(base, 'srv', 'bob')]) mkdirSync(dir, { recursive: true });
  return { base, data, file: new ProjectRootsFile(join(data, 'auth'), data) };
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
      ({ 'alice@x.org': 'u1', 'bob@x.org': 'u2' })[user] ?? null,
    );
    expect(file.list()).toEqual([{ userId: 'u1', path: join(base, 'srv', 'alice'), from: 'env' }]);
    expect(errors).toEqual(['ghost@x.org: no such user', expect.stringMatching(/overlaps .*srv\/alice, a root of another user/)]);
    expect(() => file.remove('u1', join(base, 'srv', 'alice'))).toThrow(/OPENPROGRAM_ALLOWED_ROOTS/);
  });
});

describe('admin roots', () => {
  it('adds real paths, keeps them 0600 in data/auth, lists and removes them', async () => {
    const { base, data, file } = scratch();
    symlinkSync(join(base, 'srv', 'alice'), join(base, 'alice-link'));
    const root = await file.add('u1', join(base, 'alice-link'));
    expect(root).toEqual({ userId: 'u1', path: join(base, 'srv', 'alice'), from: 'admin' });
    expect(file.rootsOf('u1')).toEqual([join(base, 'srv', 'alice')]);
    expect(file.rootsOf('u2')).toEqual([]);
    const onDisk = join(data, 'auth', 'project-roots.json');
    expect(statSync(onDisk).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(onDisk, 'utf8'))).toEqual({ roots: [{ userId: 'u1', path: join(base, 'srv', 'alice') }] });
    await expect(file.add('u1', join(base, 'srv', 'alice'))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(file.remove('u1', join(base, 'srv', 'alice'))).toEqual({ removed: true });
    expect(file.list()).toEqual([]);
    expect(() => file.remove('u1', join(base, 'srv', 'alice'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('refuses what is not a folder, overlaps the data directory or another user\'s root', async () => {
    const { base, data, file } = scratch();
    await file.add('u1', join(base, 'srv', 'alice'));
    await expect(file.add('u2', 'relative')).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/absolute/) });
    await expect(file.add('u2', join(base, 'missing'))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/no such folder/) });
    await expect(file.add('u2', join(data, 'workspaces', 'u1'))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/data directory/) });
    await expect(file.add('u2', base)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/data directory/) });
    await expect(file.add('u2', join(base, 'srv', 'alice', 'deep'))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/no two users share a root/) });
    await expect(file.add('u2', join(base, 'srv'))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(checkRoot(join(base, 'srv', 'bob'), 'u2', { dataDir: data, roots: file.list() })).resolves.toBe(join(base, 'srv', 'bob'));
    expect(file.list()).toHaveLength(1);
  });
});
