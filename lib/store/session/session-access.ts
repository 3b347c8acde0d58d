import { NotFoundError } from '../errors.js';
import { assertSessionId } from '../ids.js';
import { SessionGraph } from '../dag/graph.js';
import { listNodeFiles, readMeta, readNodeFile, readNodeFileSized, writeMetaAsync } from '../repo/session-files.js';
import { type OpenSession, type StoreContext } from './store-context.js';
import { repoDirOf } from './locations.js';
import { changedRowFields } from '../registry/row.js';
import type { RegistryEntry, SessionMeta, StoredNode } from '../types.js';

const NEW_SEQ_WIDTH = 6;

/** Read a session's files into memory (cold open). */
function loadSession(dir: string, id: string): OpenSession | null {
  const meta = readMeta(dir);
  if (!meta) return null;
  const files = listNodeFiles(dir);
  const nodes: StoredNode[] = [];
  const fileNames = new Map<string, string>();
  const sizes = new Map<string, number>();
  for (const file of files) {
    const read = readNodeFileSized(dir, file.name);
    if (!read) continue;
    nodes.push(read.node);
    fileNames.set(read.node.id, file.name);
    sizes.set(read.node.id, read.chars);
  }
  // An existing session keeps the width it was written with, so name order stays seq order.
  const seqWidth = files.length > 0 ? Math.min(...files.map((file) => file.width)) : NEW_SEQ_WIDTH;
  const read = (nodeId: string): StoredNode | null => {
    const name = fileNames.get(nodeId);
    return name ? readNodeFile(dir, name) : null;
  };
  // Large nodes become stubs as they are added; the sizes are needed only while loading.
  const graph = new SessionGraph(nodes, { read, sizes });
  return { id, dir, meta, graph, fileNames, seqWidth, commit: null, uncommitted: [], headDepth: null };
}

/** The open session for `id`, from the cache or disk. Unknown ids are NOT_FOUND and create nothing. */
export function openSession(ctx: StoreContext, id: string): OpenSession {
  assertSessionId(id);
  if (!ctx.registry.has(id)) throw new NotFoundError(`unknown session: ${id}`);
  const cached = ctx.cache.get(id);
  if (cached) return cached;
  const loaded = loadSession(repoDirOf(ctx, id), id);
  if (!loaded) throw new NotFoundError(`unknown session: ${id}`);
  ctx.cache.set(id, loaded);
  return loaded;
}

/** Run `work` on the session under its write lock. */
export function withSession<T>(ctx: StoreContext, id: string, work: (session: OpenSession) => Promise<T> | T): Promise<T> {
  assertSessionId(id);
  return ctx.locks.run(id, () => work(openSession(ctx, id)));
}

const REGISTRY_KEYS = new Set(['title', 'pinned', 'archived', 'unread', 'group', 'status', 'updated_at', 'preview', 'project_id', 'tags', 'state']);

/**
 * The "update fields" path of the seeds: meta.json gets only the given fields, the registry
 * the same (updated_at untouched unless given), written at once; session_updated carries the
 * changed fields only. Returns the registry entry afterwards. meta.json is written off the main
 * thread; the journal names the session until the registry has the change.
 */
export async function updateSessionFields(
  ctx: StoreContext,
  session: OpenSession,
  fields: Partial<SessionMeta>,
  options: { writeNow?: boolean } = {},
): Promise<RegistryEntry> {
  const release = ctx.writer.hold(session.id);
  let changed: string[];
  try {
    const meta = { ...session.meta };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) meta[key] = value;
    // Redacted as it is written (a title, a group): the registry takes the fields from it, not from the caller.
    await writeMetaAsync(session.dir, meta, ctx.redactor);
    session.meta = meta;
    const registryFields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) if (REGISTRY_KEYS.has(key) && value !== undefined) registryFields[key] = meta[key];
    changed = ctx.registry.patch(session.id, registryFields as Partial<RegistryEntry>);
  } finally {
    release();
  }
  const entry = ctx.registry.get(session.id)!;
  if (changed.length > 0) {
    if (options.writeNow ?? true) await ctx.writer.writeNow();
    else ctx.writer.markDirty();
    ctx.events.emit('session_updated', { id: session.id, ...changedRowFields(ctx, entry, changed) });
  }
  return entry;
}
