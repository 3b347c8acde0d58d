import { mkdirSync, rmSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { scratchDir } from './scratch.js';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SearchIndex, storeSource } from '../lib/search/index.js';
import { SessionStore } from '../lib/store/index.js';
import { writeLargeLog } from './registry-bench.js';

export function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)]!);
}

export function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!);
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function time<T>(work: () => T): [T, number] {
  const start = performance.now();
  const result = work();
  return [result, performance.now() - start];
}

export async function timeAsync<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

const MB = 1024 * 1024;

function apparentBytes(path: string, skip: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === skip) continue;
    const full = join(path, entry.name);
    total += entry.isDirectory() ? apparentBytes(full, skip) : statSync(full).size;
  }
  return total;
}

function duBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += duBytes(full);
    else total += statSync(full).blocks * 512;
  }
  return total;
}

/** Write a valid index.json of `count` sessions; 1 % carry the word "needle". */
export function writeLargeIndex(stateDir: string, count: number): void {
  const sessionsDir = join(stateDir, 'sessions');
  mkdirSync(sessionsDir, { recursive: true });
  const base = 1_790_000_000;
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bench-${i.toString(36).padStart(6, '0')}`;
    const entry = {
      id,
      agent_id: 'main',
      title: i % 100 === 0 ? `Session ${i} about the needle` : `Session ${i} about something`,
      created_at: base + i,
      updated_at: base + i * 1.5,
      source: i % 3 === 0 ? 'cli' : 'web',
      channel: null,
      account_id: null,
      peer_display: null,
      peer_id: null,
      pinned: i % 500 === 0,
      archived: i % 10 === 0,
      group: '',
      status: 'idle',
      unread: i % 7 === 0,
      preview: `what about question number ${i}?`,
      project_id: 'default',
    };
    parts.push(`  ${JSON.stringify(id)}: ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n  ')}`);
  }
  writeFileSync(join(sessionsDir, 'index.json'), `{\n${parts.join(',\n')}\n}`);
}

export async function benchList(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-list-');
  writeLargeIndex(stateDir, 100_000);
  const startups: number[] = [];
  let store!: SessionStore;
  for (let i = 0; i < 3; i++) {
    // As after a crash: 1,000 renames in the registry log for start-up to replay over index.json.
    writeLargeLog(stateDir, 1_000);
    const [opened, ms] = await timeAsync(() => SessionStore.open({ stateDir }));
    startups.push(ms);
    if (i < 2) await opened.close();
    store = opened;
  }
  const list: number[] = [];
  const search: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i++) {
    const [page, ms] = time(() => store.listSessions({ limit: 50, cursor: i % 4 === 0 ? null : cursor }));
    cursor = page.nextCursor;
    list.push(ms);
  }
  for (let i = 0; i < 50; i++) search.push(time(() => store.listSessions({ limit: 50, q: 'needle', scope: 'all' }))[1]);
  const matched = store.listSessions({ limit: 200, q: 'needle', scope: 'all' }).rows.length;
  if (matched === 0) throw new Error('search matched nothing');
  await store.close();
  return { list_p50_ms: p50(list), list_q_p50_ms: p50(search), startup_100k_ms: p50(startups) };
}

export async function benchAppendAndCommit(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-commit-');
  const store = await SessionStore.open({ stateDir });
  // Indexing on, as the server runs it: appends and commits pay for whatever the index costs them.
  const index = await SearchIndex.open({ path: join(stateDir, 'search.sqlite'), source: storeSource(store) });
  const appends: number[] = [];
  const figures: Record<string, number> = {};

  // Small sessions: each has 8 nodes committed, then one timed turn of 2 more (10 nodes).
  const small: number[] = [];
  for (let n = 0; n < 100; n++) {
    const id = `small-${n}`;
    await store.createSession({ id });
    for (let i = 0; i < 4; i++) {
      await store.appendMessage(id, { role: 'user', content: `question ${i}` });
      await store.appendMessage(id, { role: 'assistant', content: `answer ${i}` });
    }
    await store.finalizeTurn(id);
    appends.push((await timeAsync(() => store.appendMessage(id, { role: 'user', content: 'one more' })))[1]);
    appends.push((await timeAsync(() => store.appendMessage(id, { role: 'assistant', content: 'a reply' })))[1]);
    small.push((await timeAsync(() => store.finalizeTurn(id)))[1]);
  }
  figures['append_p50_ms'] = p50(appends);
  figures['commit_p50_ms_10'] = p50(small);

  // Large session: 10,000 nodes on one branch.
  await store.createSession({ id: 'large' });
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
  for (let i = 0; i < 5_000; i++) {
    await store.appendMessage('large', { role: 'user', content: `${i} ${text}` });
    await store.appendMessage('large', { role: 'assistant', content: `${i} ${text}` });
    if (i % 1000 === 999) await store.finalizeTurn('large');
  }
  await store.finalizeTurn('large');
  await store.idle();
  const large: number[] = [];
  for (let i = 0; i < 30; i++) {
    await store.appendMessage('large', { role: 'user', content: `late ${i}` });
    await store.appendMessage('large', { role: 'assistant', content: `late reply ${i}` });
    large.push((await timeAsync(() => store.finalizeTurn('large')))[1]);
  }
  figures['commit_p50_ms_10000'] = p50(large);
  await index.close();
  await store.close();

  // Cold open of the 10,000-node session, then its branch warm.
  const colds: number[] = [];
  const branches: number[] = [];
  for (let i = 0; i < 3; i++) {
    const reopened = await SessionStore.open({ stateDir });
    const [branch, cold] = await timeAsync(() => reopened.getBranch('large'));
    if (branch.length < 10_000) throw new Error(`branch has ${branch.length} messages`);
    colds.push(cold);
    for (let j = 0; j < 10; j++) branches.push((await timeAsync(() => reopened.getBranch('large')))[1]);
    await reopened.close();
  }
  figures['cold_open_10k_ms'] = p50(colds);
  figures['branch_10k_ms'] = p50(branches);
  return figures;
}

export async function benchRepoSize(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-size-');
  const store = await SessionStore.open({ stateDir });
  await store.createSession({ id: 'long' });
  // 2,000 turns, 4,000 nodes, ~1 MB of text in all (~250 bytes a node).
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(' ');
  const sentence = (i: number) => Array.from({ length: 35 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
  for (let i = 0; i < 2_000; i++) {
    await store.appendMessage('long', { role: 'user', content: `${i}: ${sentence(i)}` });
    await store.appendMessage('long', { role: 'assistant', content: `${i}: ${sentence(i + 1)}` });
    await store.finalizeTurn('long');
  }
  await store.close();
  const repo = join(stateDir, 'sessions', 'long');
  // The git store is what grows per turn (OpenProgram's 113 MB); the work tree holds one small
  // file per node (FORMAT.md), which ext4 rounds up to 4 KB blocks, so it is reported apart.
  return {
    repo_mb_2000_turns: round(duBytes(join(repo, '.git')) / MB),
    repo_worktree_apparent_mb_2000_turns: round(apparentBytes(repo, '.git') / MB),
  };
}

export async function benchRebuild(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-rebuild-');
  const sessionsDir = join(stateDir, 'sessions');
  for (let i = 0; i < 10_000; i++) {
    const id = `r${i}`;
    const dir = join(sessionsDir, id);
    mkdirSync(join(dir, 'history'), { recursive: true });
    // OpenProgram's own meta.json has no preview: the rebuild reads the last user node.
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ id, agent_id: 'main', title: `t${i}`, source: 'web', created_at: 1_790_000_000 + i, updated_at: 1_790_000_000 + i, project_id: 'default', head_id: 'n1' }));
    writeFileSync(
      join(dir, 'history', '000000-u-n1.json'),
      JSON.stringify({ id: 'n1', created_at: 1_790_000_000 + i, seq: 0, role: 'user', name: '', input: null, output: `hello ${i}`, caller: '', predecessor: null, reads: [], metadata: {} }),
    );
  }
  const samples: number[] = [];
  const snapshotSamples: number[] = [];
  for (let i = 0; i < 5; i++) {
    rmSync(join(sessionsDir, 'index.json'), { force: true });
    const started = performance.now();
    const store = await SessionStore.open({ stateDir });
    samples.push(performance.now() - started);
    if (!store.startup.rebuilt || store.countSessions({ scope: 'all' }) !== 10_000) throw new Error('rebuild incomplete');
    // The store serves from here; index.json is rewritten in the background.
    await store.idle();
    snapshotSamples.push(performance.now() - started);
    await store.close();
  }
  return { rebuild_10k_ms: p50(samples), rebuild_10k_snapshot_written_ms: p50(snapshotSamples) };
}
