import type { Redactor, SessionMeta, StoredNode } from '../types.js';

/**
 * Secrets out of the records the store writes besides a message's own parts (DESIGN §10: none may
 * reach disk): meta.json (title, imported cwd / gitBranch, channel, peer, branch labels, …) and a
 * node's own fields (its `name`, a model slug a client chose). Called where those records are
 * written (session-files.ts, the import's pack), so every way in (API, chat, proxy, import) passes
 * through it (issue 27 item 7). A record is redacted in place: what memory keeps (and the registry,
 * the search index and events are made from) is what was written.
 *
 * A message's content, input and metadata are redacted (and counted) before they get here, so a
 * node's are not scanned again, nor meta.json's preview (cut from a stored, so redacted, message);
 * ids are skipped too (they are file and ref names: checked by pattern, never rewritten).
 *
 * One scan costs some 30 µs whatever the text's length, and meta.json is written with every
 * message: fields already seen clean (the same key and value, for this redactor) are not scanned
 * again, so an append whose meta changed only in its head, times and counters scans nothing.
 */
const META_SKIPPED: ReadonlySet<string> = new Set(['id', 'head_id', 'preview']);
const NODE_SKIPPED: ReadonlySet<string> = new Set(['id', 'seq', 'created_at', 'caller', 'predecessor', 'reads', 'output', 'input', 'metadata']);

/** Fields seen clean, per redactor; bounded (cleared when full: a rescan only costs time). */
const MEMO_MAX_CHARS = 8 * 1024 * 1024;
/** A field larger than this is scanned every time rather than kept (a session with a great many branches). */
const MEMO_MAX_FIELD_CHARS = 16 * 1024;

interface Memo {
  seen: Set<string>;
  chars: number;
}

const memos = new WeakMap<Redactor, Memo>();

function memoOf(redactor: Redactor): Memo {
  let memo = memos.get(redactor);
  if (!memo) {
    memo = { seen: new Set(), chars: 0 };
    memos.set(redactor, memo);
  }
  return memo;
}

function remember(memo: Memo, keys: string[]): void {
  for (const key of keys) {
    if (key.length > MEMO_MAX_FIELD_CHARS) continue;
    if (memo.chars + key.length > MEMO_MAX_CHARS) {
      memo.seen.clear();
      memo.chars = 0;
    }
    memo.seen.add(key);
    memo.chars += key.length;
  }
}

/** What a field is remembered by: a value without strings only by its key (a time, a count). */
function memoKeyOf(key: string, value: unknown): string | null {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `k\0${key}`;
  if (typeof value === 'string') return `s\0${key}\0${value}`;
  try {
    return `j\0${key}\0${JSON.stringify(value)}`;
  } catch {
    return null; // not serialisable: the write itself will refuse it
  }
}

/**
 * Every field of `record` not in `skipped` (keys included) through the redactor, in place.
 * Returns how many secrets were taken out.
 */
export function redactRecordInPlace(record: Record<string, unknown>, redactor: Redactor | null | undefined, skipped: ReadonlySet<string>): number {
  if (!redactor) return 0;
  const memo = memoOf(redactor);
  let pending: Record<string, unknown> | null = null;
  const keys: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (skipped.has(key) || value === undefined) continue;
    const memoKey = memoKeyOf(key, value);
    if (memoKey === null) continue;
    if (memo.seen.has(memoKey)) continue;
    (pending ??= {})[key] = value;
    keys.push(memoKey);
  }
  if (!pending) return 0;
  const clean = redactor.mayHoldSecret !== undefined && !redactor.mayHoldSecret(pending);
  const { message, count } = clean ? { message: { content: pending }, count: 0 } : redactor({ content: pending });
  if (count === 0) {
    remember(memo, keys);
    return 0;
  }
  // A key may have changed too (a secret as a key): the redacted fields replace the given ones.
  for (const key of Object.keys(pending)) delete record[key];
  Object.assign(record, message.content as Record<string, unknown>);
  return count;
}

/** meta.json's fields redacted in place; what was taken out is added to its `redacted` count. */
export function redactMetaInPlace(meta: SessionMeta, redactor: Redactor | null | undefined): number {
  const count = redactRecordInPlace(meta, redactor, META_SKIPPED);
  if (count > 0) {
    const before = meta['redacted'];
    meta['redacted'] = (typeof before === 'number' && Number.isSafeInteger(before) ? before : 0) + count;
  }
  return count;
}

/** A node's own fields (not its message parts, redacted before) redacted in place. */
export function redactNodeFieldsInPlace(node: StoredNode, redactor: Redactor | null | undefined): number {
  return redactRecordInPlace(node as unknown as Record<string, unknown>, redactor, NODE_SKIPPED);
}
