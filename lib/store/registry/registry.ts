import { InvalidInputError } from '../errors.js';
import type { ListFilter, RegistryEntry } from '../types.js';
import { agentIdentity } from './agent-identity.js';
import { tagMatcher } from '../organise/tag-filter.js';

/** An id changed since the last log record: its entry now (undefined: deleted), and whether it was deleted and created again meanwhile. */
export type Change = [id: string, entry: RegistryEntry | undefined, recreated?: boolean];

/** Up to this many entries between a changed entry's old and new place are shifted one by one (~0.1 µs for 5 against ~200 µs for a splice of 100,000). */
const SHIFT_MAX = 2_000;

/** a sorts before b: newest updated_at first, ties by id. */
function before(a: RegistryEntry, b: RegistryEntry): boolean {
  return a.updated_at > b.updated_at || (a.updated_at === b.updated_at && a.id < b.id);
}

interface CursorKey {
  updated_at: number;
  id: string;
}

export function encodeCursor(entry: CursorKey): string {
  return Buffer.from(JSON.stringify([entry.updated_at, entry.id])).toString('base64url');
}

export function decodeCursor(cursor: string): CursorKey {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { updated_at: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw new InvalidInputError('invalid cursor');
}

/**
 * The registry in memory. `order` is kept sorted as entries change (one splice per change),
 * so a list call walks from its cursor and stops after `limit` matches: it never sorts.
 */
export class Registry {
  private readonly entries = new Map<string, RegistryEntry>();
  private order: RegistryEntry[] = [];
  /** lower-cased title + preview of order[i], so a search walks two arrays and no map */
  private orderText: string[] = [];
  /** ids set or deleted since the last takeChanged(): what the next log record must carry */
  private changed = new Set<string>();
  /**
   * Of those, ids deleted and created again: their record is a delete then a set, so a map that
   * replays the records (the compaction worker's mirror) moves them to its end as this one did.
   */
  private recreated = new Set<string>();

  get size(): number {
    return this.entries.size;
  }

  get(id: string): RegistryEntry | undefined {
    return this.entries.get(id);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  values(): IterableIterator<RegistryEntry> {
    return this.entries.values();
  }

  /** Replace everything at once (start-up): one sort instead of n inserts. */
  load(entries: RegistryEntry[]): void {
    this.entries.clear();
    this.changed.clear();
    this.recreated.clear();
    for (const entry of entries) this.entries.set(entry.id, entry);
    this.order = [...this.entries.values()].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    this.orderText = this.order.map(searchTextOf);
  }

  set(entry: RegistryEntry): void {
    const previous = this.entries.get(entry.id);
    if (!previous) {
      // New in the map (appended): its change goes last too, so records append in map order.
      if (this.changed.delete(entry.id)) this.recreated.add(entry.id);
    }
    this.entries.set(entry.id, entry);
    this.changed.add(entry.id);
    const from = previous ? this.insertionIndex(previous) : -1;
    if (previous && this.order[from] === previous) return this.move(from, entry);
    if (previous) this.removeFromOrder(previous); // not where its key says: the identity lookup
    const index = this.insertionIndex(entry);
    this.order.splice(index, 0, entry);
    this.orderText.splice(index, 0, searchTextOf(entry));
  }

  /**
   * order[from] (in its sorted place) becomes `entry` at its own. A rename keeps the place; a
   * message moves a session up past the few updated since. Shifting the entries in between costs
   * that distance, where a splice out and one in would move the whole 100,000-entry array, twice,
   * for each.
   */
  private move(from: number, entry: RegistryEntry): void {
    const found = this.insertionIndex(entry);
    // insertionIndex counted order[from] itself when it sorts before the new key.
    const to = found > from ? found - 1 : found;
    const text = searchTextOf(entry);
    if (Math.abs(to - from) > SHIFT_MAX) {
      this.order.splice(from, 1);
      this.orderText.splice(from, 1);
      this.order.splice(to, 0, entry);
      this.orderText.splice(to, 0, text);
      return;
    }
    const { order, orderText } = this;
    for (let i = from; i > to; i--) {
      order[i] = order[i - 1]!;
      orderText[i] = orderText[i - 1]!;
    }
    for (let i = from; i < to; i++) {
      order[i] = order[i + 1]!;
      orderText[i] = orderText[i + 1]!;
    }
    order[to] = entry;
    orderText[to] = text;
  }

  /** Apply fields; returns the names whose value changed. */
  patch(id: string, fields: Partial<RegistryEntry>): string[] {
    const current = this.entries.get(id);
    if (!current) return [];
    const changed = Object.keys(fields).filter((key) => fields[key] !== undefined && !sameValue(current[key], fields[key]));
    if (changed.length === 0) return changed;
    const next = { ...current };
    for (const key of changed) next[key] = fields[key];
    this.set(next);
    return changed;
  }

  delete(id: string): boolean {
    const current = this.entries.get(id);
    if (!current) return false;
    this.removeFromOrder(current);
    this.entries.delete(id);
    this.changed.add(id);
    return true;
  }

  /** Put an id back for the next takeChanged() (a log write that failed). */
  markChanged(id: string): void {
    this.changed.add(id);
  }

  /** Ids changed since the last call, with their entries now (undefined: deleted). */
  takeChanged(): Change[] {
    if (this.changed.size === 0) return [];
    const out: Change[] = [];
    for (const id of this.changed) out.push(this.recreated.has(id) ? [id, this.entries.get(id), true] : [id, this.entries.get(id)]);
    this.changed = new Set();
    this.recreated = new Set();
    return out;
  }

  /** The entries now, for a compaction that writes them while the registry goes on changing (entries are never mutated in place). */
  snapshot(): RegistryEntry[] {
    return [...this.entries.values()];
  }

  /** Up to `limit` matching entries after the cursor, and whether more follow. */
  page(filter: ListFilter, limit: number, cursor: string | null | undefined): { entries: RegistryEntry[]; more: boolean } {
    const start = cursor ? this.upperBound(decodeCursor(cursor)) : 0;
    const match = matcher(filter);
    const entries: RegistryEntry[] = [];
    for (let i = start; i < this.order.length; i++) {
      const entry = this.order[i]!;
      if (!match(entry, this.orderText[i]!)) continue;
      if (entries.length === limit) return { entries, more: true };
      entries.push(entry);
    }
    return { entries, more: false };
  }

  count(filter: ListFilter): number {
    const match = matcher(filter);
    let count = 0;
    for (let i = 0; i < this.order.length; i++) if (match(this.order[i]!, this.orderText[i]!)) count++;
    return count;
  }

  /** index.json text: pretty-printed as OpenProgram writes it. */
  serialize(): string {
    if (this.entries.size === 0) return '{}';
    const parts: string[] = [];
    for (const entry of this.entries.values()) parts.push(chunkOf(entry));
    return `{\n${parts.join(',\n')}\n}`;
  }

  private insertionIndex(entry: RegistryEntry): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.order[mid]!, entry)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First index whose entry sorts after the cursor key. */
  private upperBound(key: CursorKey): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const entry = this.order[mid]!;
      const entryFirst = entry.updated_at > key.updated_at || (entry.updated_at === key.updated_at && entry.id <= key.id);
      if (entryFirst) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private removeFromOrder(entry: RegistryEntry): void {
    let index = this.insertionIndex(entry);
    // Identity lookup as a fallback; the binary search finds it unless a key was mutated in place.
    if (this.order[index] !== entry) index = this.order.indexOf(entry);
    if (index < 0) return;
    this.order.splice(index, 1);
    this.orderText.splice(index, 1);
  }
}

/**
 * One entry's index.json text (without the separator). Deliberately not cached: 100,000 cached
 * strings made during a compaction survive into the old generation, and copying them is what
 * stalled the loop (scavenges of 20–100 ms); text that dies young costs ~1 s of CPU per
 * 100,000-entry snapshot, spread over 2 ms slices.
 */
export function chunkOf(entry: RegistryEntry): string {
  return `  ${JSON.stringify(entry.id)}: ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n  ')}`;
}

function searchTextOf(entry: RegistryEntry): string {
  return `${entry.title ?? ''}\n${entry.preview ?? ''}`.toLowerCase();
}

/** Equal field values; tags are a (sorted) list, equal by content. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}

function matcher(filter: ListFilter): (entry: RegistryEntry, text: string) => boolean {
  const scope = filter.scope ?? 'active';
  const q = filter.q?.trim().toLowerCase() || null;
  const tags = tagMatcher(filter);
  return (entry, text) => {
    if (tags !== null && !tags(entry.tags, entry.state)) return false;
    if (scope === 'active' && entry.archived) return false;
    if (scope === 'archived' && !entry.archived) return false;
    if (filter.pinned !== undefined && entry.pinned !== filter.pinned) return false;
    if (filter.unread !== undefined && entry.unread !== filter.unread) return false;
    if (filter.status !== undefined && entry.status !== filter.status) return false;
    if (filter.source !== undefined && entry.source !== filter.source) return false;
    if (filter.agentId !== undefined && entry.agent_id !== filter.agentId) return false;
    if (filter.agent !== undefined && agentIdentity(entry.agent_id, entry.source).group !== filter.agent) return false;
    if (filter.projectId !== undefined && entry.project_id !== filter.projectId) return false;
    if (q !== null && !text.includes(q)) return false;
    return true;
  };
}
