import type { RegistryEntry, SessionMeta } from '../types.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { stateOf, tagsOf } from '../organise/tags.js';

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

/**
 * The registry entry a session's own files imply (rebuild and reconcile): meta.json's registry
 * fields, as one object literal of a fixed shape (a rebuild makes 10,000 of them).
 */
export function entryFromMeta(meta: SessionMeta, id: string, preview: string | null): RegistryEntry {
  const raw = meta as unknown as Record<string, unknown>;
  const createdAt = num(raw['created_at']);
  return {
    id,
    agent_id: str(raw['agent_id'], 'main'),
    title: str(raw['title']),
    created_at: createdAt,
    updated_at: num(raw['updated_at'], createdAt),
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
    preview: typeof preview === 'string' ? preview : null,
    project_id: str(raw['project_id'], DEFAULT_PROJECT_ID) || DEFAULT_PROJECT_ID,
    // only when set, as an update writes them (DESIGN §16)
    ...organisedFields(raw),
  };
}

function organisedFields(raw: Record<string, unknown>): Partial<RegistryEntry> {
  const tags = tagsOf(raw['tags']);
  const state = stateOf(raw['state']);
  const out: Partial<RegistryEntry> = {};
  if (tags.length > 0) out.tags = [...tags];
  if (state !== null) out.state = state;
  // DESIGN §17: the collector's machine, kept in meta.json and the registry so the list names it
  if (typeof raw['machine'] === 'string' && raw['machine'] !== '') out.machine = raw['machine'];
  return out;
}
