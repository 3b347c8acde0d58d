/**
 * Full-text search (DESIGN §9): fts_reindex_1m_s, fts_q_p50_ms_1m, fts_index_turn_p50_ms.
 *
 * 1,000,000 messages in 10,000 sessions are written as session files directly (meta.json and
 * 100 history/ nodes each, FORMAT.md's shapes, no git): appending a million messages through the
 * store would take longer than the whole benchmark may. The store then rebuilds its registry from
 * them, and the index is rebuilt from the store exactly as `cli search reindex` does (every node
 * read back through SessionStore.getNodes), which is what fts_reindex_1m_s times.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SearchIndex, storeSource } from '../lib/search/index.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { p50, round, timeAsync } from './store-bench.js';

// BENCH_SEARCH_SESSIONS: a smaller corpus for trying the benchmark itself out
const SESSIONS = Number(process.env['BENCH_SEARCH_SESSIONS'] ?? 10_000);
const PER_SESSION = 100;

/** mulberry32: the same text on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function vocabulary(next: () => number): string[] {
  const words: string[] = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < 4_000; i++) {
    const length = 4 + Math.floor(next() * 6);
    let word = '';
    for (let k = 0; k < length; k++) word += letters[Math.floor(next() * letters.length)];
    words.push(word);
  }
  for (let i = 0; i < 400; i++) {
    const length = 2 + Math.floor(next() * 3);
    let word = '';
    for (let k = 0; k < length; k++) word += String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000));
    words.push(word);
  }
  return words;
}

function writeCorpus(stateDir: string, words: string[], next: () => number): void {
  const sessionsDir = join(stateDir, 'sessions');
  const base = 1_790_000_000;
  for (let s = 0; s < SESSIONS; s++) {
    const id = `s${s}`;
    const dir = join(sessionsDir, id);
    mkdirSync(join(dir, 'history'), { recursive: true });
    let predecessor: string | null = null;
    for (let n = 0; n < PER_SESSION; n++) {
      const nodeId = `n${n.toString(16).padStart(11, '0')}`;
      const count = 10 + Math.floor(next() * 10);
      const text: string[] = [];
      for (let w = 0; w < count; w++) text.push(words[Math.floor(next() * words.length)]!);
      const role = n % 2 === 0 ? 'user' : 'llm';
      const node = { id: nodeId, created_at: base + s * 1_000 + n, seq: n, role, name: role === 'llm' ? 'model' : '', input: null, output: text.join(' '), caller: '', predecessor, reads: [], metadata: {} };
      writeFileSync(join(dir, 'history', `${String(n).padStart(6, '0')}-${role === 'user' ? 'u' : 'a'}-${nodeId}.json`), JSON.stringify(node));
      predecessor = nodeId;
    }
    writeFileSync(
      join(dir, 'meta.json'),
      JSON.stringify({ id, agent_id: 'main', title: `session ${s}`, source: 'web', created_at: base + s * 1_000, updated_at: base + s * 1_000 + PER_SESSION, project_id: 'default', head_id: predecessor }),
    );
  }
}

export async function benchSearch(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-search-');
  const next = random(19);
  const words = vocabulary(next);
  writeCorpus(stateDir, words, next);
  const store = await SessionStore.open({ stateDir });
  if (store.countSessions({ scope: 'all' }) !== SESSIONS) throw new Error('corpus not listed');
  // No index file yet: opening starts the rebuild from the sessions (what `cli search reindex` runs),
  // timed until it has caught up, merging of its segments included.
  const started = performance.now();
  const index = await SearchIndex.open({ path: join(stateDir, 'search.sqlite'), source: storeSource(store) });
  if (index.status.state !== 'catching_up') throw new Error('the index was not rebuilt');
  await index.caughtUp();
  const reindexSeconds = (performance.now() - started) / 1000;

  // Queries: words of the corpus (each in about 1 in 300 messages), first 50 hits each.
  const queries: number[] = [];
  const short: number[] = [];
  let found = 0;
  for (let i = 0; i < 200; i++) {
    const word = words[Math.floor(next() * 4_000)]!;
    const begin = performance.now();
    found += index.search(word, { limit: 50 }).hits.length;
    queries.push(performance.now() - begin);
  }
  for (let i = 0; i < 20; i++) {
    // a two-character CJK word: the substring fallback
    const word = [...words[4_000 + Math.floor(next() * 400)]!].slice(0, 2).join('');
    const begin = performance.now();
    index.search(word, { limit: 50 });
    short.push(performance.now() - begin);
  }
  if (found === 0) throw new Error('the queries found nothing');

  // One turn (a question, an answer, the title it gets) written to the 1M-message index.
  const turns: number[] = [];
  for (let i = 0; i < 200; i++) {
    const id = `s${i}`;
    await store.appendMessage(id, { role: 'user', content: `turn ${i}: ${words[i]} ${words[i + 1]} and what follows` });
    await store.appendMessage(id, { role: 'assistant', content: `answer ${i}: ${words[i + 2]} ${words[i + 3]} ${words[i + 4]}` });
    await store.updateSession(id, { title: `renamed ${words[i + 5]}` });
    const begin = performance.now();
    index.flush();
    turns.push(performance.now() - begin);
  }
  const append: number[] = [];
  for (let i = 0; i < 200; i++) append.push((await timeAsync(() => store.appendMessage(`s${i}`, { role: 'user', content: `one more ${words[i]}` })))[1]);

  await index.close();
  await store.close();
  return {
    fts_reindex_1m_s: round(reindexSeconds),
    fts_q_p50_ms_1m: p50(queries),
    fts_q_short_p50_ms_1m: p50(short),
    fts_index_turn_p50_ms: p50(turns),
    fts_append_indexed_p50_ms_1m: p50(append),
  };
}
