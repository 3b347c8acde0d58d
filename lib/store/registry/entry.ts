import type { RegistryEntry, SessionMeta } from '../types.js';

const str = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const strOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown, fallback = 0): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const bool = (value: unknown): boolean => value === true;

/** An index.json entry as read from disk, with defaults for fields an older writer left out. */
export function normaliseEntry(id: string, raw: Record<string, unknown>, projectIdFallback: string): RegistryEntry {
  return {
    ...raw,
    id,
    agent_id: str(raw['agent_id'], 'main'),
    title: str(raw['title']),
    created_at: num(raw['created_at']),
    updated_at: num(raw['updated_at'], num(raw['created_at'])),
    source: str(raw['source']),
    channel: strOrNull(raw['channel']),
    account_id: strOrNull(raw['account_id']),
    peer_display: strOrNull(raw['peer_display']),
    peer_id: strOrNull(raw['peer_id']),
    pinned: bool(raw['pinned']),
    archived: bool(raw['archived']),
    group: str(raw['group']),
    status: str(raw['status'], 'idle') || 'idle',
    unread: bool(raw['unread']),
    preview: typeof raw['preview'] === 'string' ? raw['preview'] : null,
    project_id: str(raw['project_id'], projectIdFallback) || projectIdFallback,
  };
}

const REGISTRY_FIELDS = [
  'agent_id', 'title', 'created_at', 'updated_at', 'source', 'channel', 'account_id', 'peer_display', 'peer_id',
  'pinned', 'archived', 'group', 'status', 'unread', 'project_id',
] as const;

/** The registry entry a session's own files imply (rebuild and reconcile): meta.json's registry fields. */
export function entryFromMeta(meta: SessionMeta, id: string, preview: string | null): RegistryEntry {
  const raw = meta as unknown as Record<string, unknown>;
  const picked: Record<string, unknown> = { preview };
  for (const field of REGISTRY_FIELDS) if (field in raw) picked[field] = raw[field];
  return normaliseEntry(id, picked, 'default');
}
