/** What a turn did to one file, as git says it. */
export type TurnFileChange = 'added' | 'modified' | 'deleted';

const VERBS: Record<'undo' | 'redo', Record<TurnFileChange, string>> = {
  // Undoing a file the agent created removes it; one it changed gets its old content back.
  undo: { added: 'Removed', modified: 'Restored', deleted: 'Recreated' },
  redo: { added: 'Recreated', modified: 'Reapplied the changes to', deleted: 'Removed' },
};

/**
 * The outcome of an undo or redo in words a person reads right: "Removed hello.txt." for a file
 * the turn had created, "Restored notes.md." for one it had changed.
 */
export function describeMove(direction: 'undo' | 'redo', changes: readonly { path: string; change: TurnFileChange }[]): string {
  if (changes.length === 0) return direction === 'undo' ? 'Nothing to undo: no files were changed.' : 'Nothing to redo: no files were changed.';
  const groups = new Map<string, string[]>();
  for (const { path, change } of changes) {
    const verb = VERBS[direction][change];
    groups.set(verb, [...(groups.get(verb) ?? []), path]);
  }
  return [...groups].map(([verb, paths]) => `${verb} ${paths.join(', ')}.`).join(' ');
}

/** A manifest entry's change: no file before is an addition, none after a deletion. */
export function changeOf(before: { exists: boolean }, after: { exists: boolean } | null): TurnFileChange {
  if (!before.exists) return 'added';
  if (after && !after.exists) return 'deleted';
  return 'modified';
}
