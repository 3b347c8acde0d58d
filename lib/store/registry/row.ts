import type { ProjectStore } from '../projects/index.js';
import { secondsToMs } from '../time.js';
import type { RegistryEntry, SessionRow } from '../types.js';
import { agentIdentity } from './agent-identity.js';
import { stateOf, tagsOf } from '../organise/tags.js';

/** The one converter from a registry entry (FORMAT.md, snake_case, seconds) to an API row (camelCase, ms). */
export function toRow(ctx: { projects: Pick<ProjectStore, 'nameOf'> }, entry: RegistryEntry): SessionRow {
  const agent = agentIdentity(entry.agent_id, entry.source);
  return {
    id: entry.id,
    agentId: entry.agent_id,
    title: entry.title,
    createdAt: secondsToMs(entry.created_at),
    updatedAt: secondsToMs(entry.updated_at),
    source: entry.source,
    channel: entry.channel,
    accountId: entry.account_id,
    peerDisplay: entry.peer_display,
    peerId: entry.peer_id,
    pinned: entry.pinned,
    archived: entry.archived,
    group: entry.group,
    status: entry.status,
    unread: entry.unread,
    preview: entry.preview,
    project: ctx.projects.nameOf(entry.project_id),
    agentName: agent.name,
    wayIn: agent.wayIn,
    agentGroup: agent.group,
    tags: tagsOf(entry.tags) as string[],
    state: stateOf(entry.state),
    machine: typeof entry.machine === 'string' ? entry.machine : null,
  };
}

const ROW_FIELD: Record<string, keyof SessionRow> = {
  agent_id: 'agentId',
  title: 'title',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  source: 'source',
  channel: 'channel',
  account_id: 'accountId',
  peer_display: 'peerDisplay',
  peer_id: 'peerId',
  pinned: 'pinned',
  archived: 'archived',
  group: 'group',
  status: 'status',
  unread: 'unread',
  preview: 'preview',
  project_id: 'project',
  tags: 'tags',
  state: 'state',
  machine: 'machine',
};

/** The changed registry fields as a partial row, for session_updated. */
export function changedRowFields(ctx: { projects: Pick<ProjectStore, 'nameOf'> }, entry: RegistryEntry, changed: string[]): Partial<SessionRow> {
  const row = toRow(ctx, entry);
  const out: Record<string, unknown> = {};
  for (const key of changed) {
    const field = ROW_FIELD[key];
    if (field) out[field] = row[field];
  }
  return out as Partial<SessionRow>;
}
