/**
 * Issue 35's compare figure: `compare_ms_10k`, session.compare's work (the two ancestor chains
 * read, aligned, word-diffed) on two branches of a 10,000-message session: a 2,000-message trunk,
 * then two branches of 4,000 messages each whose every reply differs from its partner by a word.
 * A warm store in this process, p50 of 10; the bar is 300 ms.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareBranches } from '../lib/compare/index.js';
import { SessionStore, type ImportNode } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { p50, timeAsync } from './store-bench.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, then looks back at the river and the hills. '.repeat(3);

/** `pairs` question/answer pairs after `parentId` as import turns of 100 messages; the last message's id. */
function seedPairs(turns: ImportNode[][], prefix: string, parentId: string | null, pairs: number, colour: string): string {
  let last = parentId;
  for (let i = 0; i < pairs; i++) {
    if (i % 50 === 0) turns.push([]);
    const turn = turns[turns.length - 1]!;
    const question: ImportNode = { id: `${prefix}q${i}`, createdAt: 1_800_000_000 + turns.length, role: 'user', content: `${i} ${TEXT}`, parentId: last };
    const answer: ImportNode = { id: `${prefix}a${i}`, createdAt: 1_800_000_000 + turns.length, role: 'assistant', content: `${i} ${TEXT} The answer is ${colour}.`, parentId: question.id };
    turn.push(question, answer);
    last = answer.id;
  }
  return last!;
}

export async function benchCompare(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-compare-');
  const workspaceRoot = join(stateDir, 'workspace');
  mkdirSync(workspaceRoot, { recursive: true });
  const store = await SessionStore.open({ stateDir, workspaceRoot });
  const turns: ImportNode[][] = [];
  const trunk = seedPairs(turns, 't', null, 1_000, 'grey');
  const ends = { a: seedPairs(turns, 'a', trunk, 2_000, 'blue'), b: seedPairs(turns, 'b', trunk, 2_000, 'green') };
  const [, seedMs] = await timeAsync(() => store.importSession({ id: 'compare-10k', source: 'bench', title: 'Compare 10k', turns, headId: ends.a }));
  process.stderr.write(`bench: 10,000 messages in two branches seeded in ${Math.round(seedMs)} ms\n`);
  await store.close();

  const reader = await SessionStore.open({ stateDir, workspaceRoot });
  const compare = async () => compareBranches(await reader.comparePaths('compare-10k', ends.a, ends.b));
  const first = await compare();
  const changed = first.rows.filter((row) => row.words?.some((word) => word.change !== 'same')).length;
  if (first.rows.length !== 4_000 || changed !== 2_000) throw new Error(`compare: ${first.rows.length} rows, ${changed} with differences`);
  const samples: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push((await timeAsync(compare))[1]);
    reads.push((await timeAsync(() => reader.comparePaths('compare-10k', ends.a, ends.b)))[1]);
  }
  process.stderr.write(`bench: the store's two paths alone p50 ${p50(reads)} ms\n`);
  await reader.close();
  const figures = { compare_ms_10k: p50(samples) };
  process.stderr.write(`bench: compare_ms_10k ${figures.compare_ms_10k}\n`);
  return figures;
}
