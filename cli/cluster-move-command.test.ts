import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from './main.js';

const SECRET = 'a-cluster-secret-of-enough-length';
// Nothing listens on port 1: Postgres out of reach, refused at once.
const UNREACHABLE_DB = 'postgres://em@127.0.0.1:1/entity_memory';

let dataDir: string;
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

async function move(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  dataDir = mkdtempSync(join(tmpdir(), 'em-cli-move-'));
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, 'cluster', 'move', ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, env as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cluster move: what it says when it cannot run', () => {
  it('names what is missing: the secret, a shard directory, one directory only', async () => {
    expect(await move({ OPENPROGRAM_CLUSTER_DB: UNREACHABLE_DB }, '0123456789abcdef', 'node-b')).toMatchObject({ code: 1, err: expect.stringMatching(/^set OPENPROGRAM_CLUSTER_SECRET/) });
    expect(await move({ OPENPROGRAM_CLUSTER_SECRET: SECRET }, '0123456789abcdef', 'node-b')).toMatchObject({ code: 1, err: expect.stringMatching(/^no shard directory: set OPENPROGRAM_CLUSTER_DB/) });
    const both = await move({ OPENPROGRAM_CLUSTER_SECRET: SECRET, OPENPROGRAM_CLUSTER_DB: UNREACHABLE_DB, OPENPROGRAM_CLUSTER_DIRECTORY: '/tmp/directory.json' }, '0123456789abcdef', 'node-b');
    expect(both).toMatchObject({ code: 1, err: expect.stringMatching(/not both/) });
  });

  it('says Postgres is out of reach, for a user id and for an email', async () => {
    const env = { OPENPROGRAM_CLUSTER_SECRET: SECRET, OPENPROGRAM_CLUSTER_DB: UNREACHABLE_DB };
    const byId = await move(env, '0123456789abcdef', 'node-b');
    expect(byId.code).toBe(1);
    expect(byId.err).toMatch(/^cluster move: .*ECONNREFUSED/);
    const byEmail = await move(env, 'someone@example.org', 'node-b');
    expect(byEmail.code).toBe(1);
    expect(byEmail.err).toMatch(/^cluster move: cannot look someone@example.org up in OPENPROGRAM_CLUSTER_DB: .*ECONNREFUSED/);
  });
});
