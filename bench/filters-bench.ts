import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { p50, time, writeLargeIndex } from './store-bench.js';

/**
 * Issue 16's registry passes over 100,000 sessions: the Chats page's agent filter options
 * (session.agents), the filtered list (session.list {agentId}), and project.list's session
 * counts, which are counted in the registry on every call.
 */
export async function benchFilters(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-filters-');
  writeLargeIndex(stateDir, 100_000);
  const store = await SessionStore.open({ stateDir, turnIdleMs: 0 });
  const agents: number[] = [];
  const filtered: number[] = [];
  const projects: number[] = [];
  for (let i = 0; i < 50; i++) {
    agents.push(time(() => store.listAgents({ scope: 'all' }))[1]);
    filtered.push(time(() => store.listSessions({ limit: 50, agentId: 'main', source: 'cli', scope: 'all' }))[1]);
    const started = performance.now();
    const list = await store.listProjects();
    projects.push(performance.now() - started);
    if (list[0]?.sessionCount !== 100_000) throw new Error(`Home counted ${list[0]?.sessionCount} sessions`);
  }
  await store.close();
  return { session_agents_100k_p50_ms: p50(agents), list_agent_filter_p50_ms: p50(filtered), project_list_100k_p50_ms: p50(projects) };
}
