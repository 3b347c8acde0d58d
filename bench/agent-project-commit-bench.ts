/**
 * `agent_project_commit_p50_ms` (DESIGN §9, §14): a proxied agent's exchange that changed 3
 * files (one edited, one new, one deleted) in a registered project of 10,000 tracked files,
 * from the answer's last byte to the project commit. Timed at the store, as the recorder calls
 * it: `recordExchange` from the moment the answer ended until it returns, which is after the
 * project commit and also after the session's own turn commit (so an upper bound of the figure);
 * the planning thread's few milliseconds before it are not in it (proxy_record_p50_ms has them).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionStore } from '../lib/store/index.js';
import type { ExchangeStep } from '../lib/store/index.js';
import { buildRepo } from './project-commit.js';
import { scratchDir } from './scratch.js';

const EXCHANGES = 30;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 100) / 100;
}

export async function benchAgentProjectCommit(): Promise<{ agent_project_commit_p50_ms: number }> {
  const workspace = scratchDir('op-bench-agent-project-');
  const folder = join(workspace, 'app');
  await buildRepo(folder);
  const store = await SessionStore.open({ stateDir: scratchDir('op-bench-agent-state-'), workspaceRoot: workspace });
  try {
    const project = await store.createProject(folder, 'App');
    const options = { source: 'proxy:claude-code', agentId: 'claude-code', model: 'bench-model', where: { cwd: folder } };
    const samples: number[] = [];
    const steps: ExchangeStep[] = [{ role: 'user', fingerprint: 'u0', content: 'edit three files' }];
    for (let n = 1; n <= EXCHANGES; n++) {
      const ask: ExchangeStep = { role: 'assistant', fingerprint: `a${n}`, content: '', toolCalls: [{ id: `c${n}`, name: 'Bash', arguments: '{}' }] };
      // The agent's tools: an edit, a new file and a deletion.
      writeFileSync(join(folder, `src${n % 100}`, `file${n}.ts`), `export const value${n} = ${n * 2};\n`);
      writeFileSync(join(folder, `src${n % 100}`, `agent-${n}.ts`), `export const agent${n} = true;\n`);
      rmSync(join(folder, `src${(n + 50) % 100}`, `file${n + 50}.ts`));
      const endedAt = performance.now();
      const result = await store.recordExchange(
        { sessionId: 'cc-bench', steps: [...steps], reply: ask },
        { ...options, answerEndedAt: performance.timeOrigin + endedAt },
      );
      samples.push(performance.now() - endedAt);
      // the first exchange binds the session; every one commits its three files
      if (!result.projectCommit) throw new Error(`bench exchange ${n} made no project commit: ${result.projectCommitSkipped?.message ?? 'nothing changed'}`);
      if ((await store.getSession('cc-bench')).projectId !== project.id) throw new Error('the session is not in the project');
      steps.push(ask, { role: 'tool', callId: `c${n}`, content: 'ok' });
    }
    return { agent_project_commit_p50_ms: median(samples) };
  } finally {
    await store.close();
  }
}
