/** The least a message needs to be aligned: its role. */
export interface Alignable {
  role: string;
}

/** One row of the side-by-side view: a message of each side, or of one side only (the other null). */
export interface AlignedPair<T> {
  a: T | null;
  b: T | null;
}

/** A turn: a user message (or none, for replies straight after the common message) and the replies after it. */
interface Turn<T> {
  user: T | null;
  replies: T[];
}

/** The first turn holds the replies before any user message (often none): they face only the other side's. */
function turnsOf<T extends Alignable>(messages: readonly T[]): Turn<T>[] {
  const turns: Turn<T>[] = [{ user: null, replies: [] }];
  for (const message of messages) {
    if (message.role === 'user') turns.push({ user: message, replies: [] });
    else turns[turns.length - 1]!.replies.push(message);
  }
  return turns;
}

/**
 * Two branches' messages after their common one, aligned turn by turn: the n-th turn of each side
 * in one block, its user messages side by side, then its replies by position; what one side has
 * more of faces an empty cell. Linear in the messages (a 10,000-message compare stays cheap) and
 * stable: two retries of one answer face each other, as do an edited question and its original.
 */
export function alignBranches<T extends Alignable>(a: readonly T[], b: readonly T[]): AlignedPair<T>[] {
  const turnsA = turnsOf(a);
  const turnsB = turnsOf(b);
  const rows: AlignedPair<T>[] = [];
  for (let turn = 0; turn < Math.max(turnsA.length, turnsB.length); turn++) {
    const left = turnsA[turn];
    const right = turnsB[turn];
    if (left?.user || right?.user) rows.push({ a: left?.user ?? null, b: right?.user ?? null });
    const replies = Math.max(left?.replies.length ?? 0, right?.replies.length ?? 0);
    for (let i = 0; i < replies; i++) rows.push({ a: left?.replies[i] ?? null, b: right?.replies[i] ?? null });
  }
  return rows;
}
