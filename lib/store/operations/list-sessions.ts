import { InvalidInputError } from '../errors.js';
import { encodeCursor } from '../registry/registry.js';
import { type StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import { WAYS_IN, type AgentSummary, type ListFilter, type ListOptions, type ListPage, type SessionDetail, type SessionMeta, type SessionRow, type WayIn } from '../types.js';
import { agentIdentity } from '../registry/agent-identity.js';
import { AGENT_FOLDER_KEY, agentFolderOffer } from '../session/agent-folder.js';
import { withSession } from '../session/session-access.js';
import { forkOf } from '../session/session-workdir.js';
import { INTERRUPTION_KEY, interruptionOf } from '../session/interruption.js';
import { withQueryWords } from '../organise/tag-filter.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** list_sessions: from memory, newest first, paged by an opaque cursor; never sorts per call. */
export function listSessions(ctx: StoreContext, options: ListOptions = {}): ListPage {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  if (options.scope !== undefined && !['active', 'archived', 'all'].includes(options.scope)) {
    throw new InvalidInputError('scope must be active, archived or all');
  }
  const { entries, more } = ctx.registry.page(withQueryWords(options), limit, options.cursor);
  const last = entries[entries.length - 1];
  return { rows: entries.map((entry) => toRow(ctx, entry)), nextCursor: more && last ? encodeCursor(last) : null };
}

/** One row from memory, or null when the session is not in this store. */
export function getRow(ctx: StoreContext, sessionId: string): SessionRow | null {
  const entry = ctx.registry.get(sessionId);
  return entry ? toRow(ctx, entry) : null;
}

/**
 * The agents that wrote sessions of this scope, one entry per agent (its group: the name whichever
 * way in, so Claude Code recorded and imported is one), with the ways in; most sessions first, then by name.
 */
export function listAgents(ctx: StoreContext, filter: Pick<ListFilter, 'scope'> = {}): AgentSummary[] {
  const scope = filter.scope ?? 'all';
  // agent → source → count: no key string built per entry (100,000 of them on a large store).
  const counts = new Map<string, Map<string, number>>();
  for (const entry of ctx.registry.values()) {
    if ((scope === 'active' && entry.archived) || (scope === 'archived' && !entry.archived)) continue;
    let sources = counts.get(entry.agent_id);
    if (!sources) counts.set(entry.agent_id, (sources = new Map()));
    sources.set(entry.source, (sources.get(entry.source) ?? 0) + 1);
  }
  const groups = new Map<string, { sessions: number; wayIn: Set<WayIn> }>();
  for (const [agentId, sources] of counts) {
    for (const [source, sessions] of sources) {
      const { group, wayIn } = agentIdentity(agentId, source);
      const summary = groups.get(group) ?? { sessions: 0, wayIn: new Set<WayIn>() };
      summary.sessions += sessions;
      summary.wayIn.add(wayIn);
      groups.set(group, summary);
    }
  }
  const out: AgentSummary[] = [...groups].map(([agent, { sessions, wayIn }]) => ({ agent, wayIn: WAYS_IN.filter((way) => wayIn.has(way)), sessions }));
  return out.sort((a, b) => b.sessions - a.sessions || a.agent.localeCompare(b.agent));
}

export function countSessions(ctx: StoreContext, filter: ListFilter = {}): number {
  return ctx.registry.count(withQueryWords(filter));
}

function redactedCount(meta: SessionMeta): number {
  const count = meta['redacted'];
  return typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 0;
}

export function getSession(ctx: StoreContext, sessionId: string): Promise<SessionDetail> {
  return withSession(ctx, sessionId, async (session) => {
    const entry = ctx.registry.get(sessionId)!;
    const meta = session.meta;
    return {
      ...toRow(ctx, entry),
      headId: meta.head_id ?? null,
      redacted: redactedCount(meta),
      projectId: entry.project_id,
      turnCount: typeof meta.turn_count === 'number' ? meta.turn_count : 0,
      workdirs: Array.isArray(meta.workdirs) ? meta.workdirs.filter((dir): dir is string => typeof dir === 'string') : [],
      userTitled: meta._user_titled === true,
      interruption: interruptionOf(meta[INTERRUPTION_KEY]),
      agentFolder: await agentFolderOffer(ctx, entry.project_id, meta[AGENT_FOLDER_KEY]),
      fork: forkOf(meta),
    };
  });
}
