/**
 * `blame_ms_2000_lines` (DESIGN §9, §14): project.blame of a 2,000-line project file that 500
 * agent turns of one session changed (each its own 4 lines), with turn and prompt per line, at
 * the store (git, the trailers, the session's turns). One blame to warm up (a full `git blame`:
 * nothing is cached yet), then 5 samples, each one more agent turn changing the file and the
 * blame right after it: the cost of blame after a new turn (the cached blame moved forward by
 * that turn's diff), not of a repeated identical call. The median of the 5.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectBlame, SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';

const LINES = 2_000;
const TURNS = 500;
const RUNS = 5;

export async function benchBlame(): Promise<{ blame_ms_2000_lines: number }> {
  const workspace = scratchDir('op-bench-blame-');
  const folder = join(workspace, 'app');
  mkdirSync(folder);
  const lines = Array.from({ length: LINES }, (_, i) => `const line${i} = ${i};`);
  const git = (...args: string[]) => execFileSync('git', ['-C', folder, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args]);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(folder, 'big.ts'), `${lines.join('\n')}\n`);
  git('add', 'big.ts');
  git('commit', '-qm', 'the person starts it');
  const store = await SessionStore.open({ stateDir: scratchDir('op-bench-blame-state-'), workspaceRoot: workspace });
  try {
    const project = await store.createProject(folder, 'App');
    await store.createSession({ id: 'blamed', projectId: project.id });
    /** Turn `turn` rewrites its own 4 lines (past the 500th, from the top again). */
    const agentTurn = async (turn: number) => {
      await store.beginTurn('blamed');
      await store.appendMessage('blamed', { role: 'user', content: `turn ${turn}: rewrite lines ${(turn * 4) % LINES} to ${(turn * 4) % LINES + 3}` });
      for (let i = (turn * 4) % LINES; i < (turn * 4) % LINES + 4; i++) lines[i] = `const line${i} = ${i} * ${turn + 2};`;
      writeFileSync(join(folder, 'big.ts'), `${lines.join('\n')}\n`);
      await store.appendMessage('blamed', { role: 'assistant', content: 'done' });
      const end = await store.finalizeTurn('blamed', { writtenPaths: ['big.ts'], model: 'bench-model' });
      if (!end.projectCommit) throw new Error(`bench turn ${turn} made no project commit`);
    };
    const blameChecked = async (lastTurn: number) => {
      const blame = await projectBlame(store, { projectId: project.id, path: 'big.ts' });
      if (blame.lines.length !== LINES || blame.lines.some((line) => line.prompt === undefined)) throw new Error('blame did not name a prompt for every line');
      if (!blame.lines[(lastTurn * 4) % LINES]!.prompt!.startsWith(`turn ${lastTurn}:`)) throw new Error('blame did not name the newest turn');
    };
    for (let turn = 0; turn < TURNS; turn++) await agentTurn(turn);
    await blameChecked(TURNS - 1);
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await agentTurn(TURNS + run);
      const started = performance.now();
      await blameChecked(TURNS + run);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return { blame_ms_2000_lines: Math.round(samples[Math.floor(samples.length / 2)]! * 100) / 100 };
  } finally {
    await store.close();
  }
}
