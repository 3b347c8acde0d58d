import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { sessionBundle } from './bundle.js';
import { collect, seedExportSession } from './testing/session-fixture.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('git bundle export', () => {
  const open = tempStoresPerTest();

  it('clones into a repo with every turn commit and every ref of the session repo', async () => {
    const { store, dir } = await open();
    await seedExportSession(store);
    const { chunks } = await sessionBundle(store, 's');
    const bundle = await collect(chunks);
    expect(bundle.subarray(0, 16).toString()).toMatch(/^# v[23] git bundle/);
    const file = join(dir, 's.bundle');
    writeFileSync(file, bundle);
    git(dir, 'clone', '--quiet', file, join(dir, 'clone'));
    const repo = join(dir, 'sessions', 's');
    const original = git(repo, 'log', '--all', '--format=%H').split('\n');
    // session init + three turns
    expect(original).toHaveLength(4);
    expect(git(join(dir, 'clone'), 'log', '--all', '--format=%H').split('\n')).toEqual(original);
    const refs = git(repo, 'for-each-ref', '--format=%(refname)').split('\n');
    const listed = git(dir, 'bundle', 'list-heads', file);
    for (const ref of refs) expect(listed).toContain(ref);
  });

  it('refuses an unknown session', async () => {
    const { store } = await open();
    await expect(sessionBundle(store, 'nope')).rejects.toThrow(/nope/);
  });
});
