import type { RegistryEntry, SessionMeta } from '../types.js';

const str = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const strOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown, fallback = 0): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const bool = (value: unknown): boolean => value === true;

/** An index.json entry as read from disk, with defaults for fields an older writer left out. */
export function normaliseEntry(id: string, raw: Record<string, unknown>, projectIdFallback: string): RegistryEntry {
  return normaliseEntryInPlace(id, { ...raw }, projectIdFallback);
}

/**
 * normaliseEntry on an object the caller owns (freshly parsed at start-up): fields are fixed where
 * they are, so 100,000 entries are not copied once more. Key order is the same as a copy's.
 */
export function normaliseEntryInPlace(id: string, raw: Record<string, unknown>, projectIdFallback: string): RegistryEntry {
  const createdAt = num(raw['created_at']);
  raw['id'] = id;
  raw['agent_id'] = str(raw['agent_id'], 'main');
  raw['title'] = str(raw['title']);
  raw['created_at'] = createdAt;
  raw['updated_at'] = num(raw['updated_at'], createdAt);
  raw['source'] = str(raw['source']);
  raw['channel'] = strOrNull(raw['channel']);
  raw['account_id'] = strOrNull(raw['account_id']);
  raw['peer_display'] = strOrNull(raw['peer_display']);
  raw['peer_id'] = strOrNull(raw['peer_id']);
  raw['pinned'] = bool(raw['pinned']);
  raw['archived'] = bool(raw['archived']);
  raw['group'] = str(raw['group']);
  raw['status'] = str(raw['status'], 'idle') || 'idle';
  raw['unread'] = bool(raw['unread']);
  raw['preview'] = typeof raw['preview'] === 'string' ? raw['preview'] : null;
  raw['project_id'] = str(raw['project_id'], projectIdFallback) || projectIdFallback;
  return raw as RegistryEntry;
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
