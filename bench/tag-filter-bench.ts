import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { p50, time } from './store-bench.js';

const TAG_POOL = ['auth', 'bug', 'ui', 'perf', 'docs', 'infra', 'billing', 'search', 'export', 'mobile'];

/** index.json of `count` sessions, most with one to three tags and some with a state (DESIGN §16). */
function writeTaggedIndex(stateDir: string, count: number): void {
  const sessionsDir = join(stateDir, 'sessions');
  mkdirSync(sessionsDir, { recursive: true });
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bench-${i.toString(36).padStart(6, '0')}`;
    const tags = [...new Set([TAG_POOL[i % 10]!, TAG_POOL[(i * 7) % 10]!, ...(i % 3 === 0 ? [] : [TAG_POOL[(i * 13) % 10]!]), ...(i % 1000 === 3 ? ['rare'] : [])])].sort();
    const entry = {
      id, agent_id: 'main', title: `Session ${i}`, created_at: 1_790_000_000 + i, updated_at: 1_790_000_000 + i * 1.5,
      source: 'web', channel: null, account_id: null, peer_display: null, peer_id: null, pinned: false, archived: i % 10 === 0,
      group: '', status: 'idle', unread: false, preview: `question ${i}`, project_id: 'default',
      ...(i % 5 === 0 ? {} : { tags }), ...(i % 4 === 0 ? { state: 'review' } : {}),
    };
    parts.push(`  ${JSON.stringify(id)}: ${JSON.stringify(entry)}`);
  }
  writeFileSync(join(sessionsDir, 'index.json'), `{\n${parts.join(',\n')}\n}`);
}

/**
 * Issue 34: a list filtered by two tags over 100,000 sessions, all of them (a rare pair, ~100
 * sessions, so the walk passes half the registry before it has a page of 50) and any of them, and the count a saved
 * view shows. The registry walks its sorted order; nothing is indexed per tag.
 */
export async function benchTagFilter(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-tags-');
  writeTaggedIndex(stateDir, 100_000);
  const store = await SessionStore.open({ stateDir, turnIdleMs: 0 });
  const allOf: number[] = [];
  const anyOf: number[] = [];
  const counts: number[] = [];
  let matched = 0;
  for (let i = 0; i < 50; i++) {
    const [page, ms] = time(() => store.listSessions({ limit: 50, scope: 'all', tags: ['bug', 'rare'] }));
    matched = page.rows.length;
    allOf.push(ms);
    anyOf.push(time(() => store.listSessions({ limit: 50, scope: 'all', tags: ['bug', 'rare'], tagMode: 'any' }))[1]);
    counts.push(time(() => store.countSessions({ scope: 'active', tags: ['bug', 'rare'] }))[1]);
  }
  await store.close();
  if (matched === 0) throw new Error('the two tags matched no session: the filter was not exercised');
  return { tag_filter_p50_ms_100k: p50(allOf), tag_filter_any_p50_ms_100k: p50(anyOf), tag_count_p50_ms_100k: p50(counts) };
}
