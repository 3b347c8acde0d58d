import type { RouterOutputs } from '@/trpc/types';

export type TagSummary = RouterOutputs['tag']['list'][number];
export type TagColour = TagSummary['colour'];
export type SessionStateName = 'active' | 'review' | 'done';

/** DESIGN §16's names and order; null is "none". */
export const STATE_CHOICES: ReadonlyArray<{ value: SessionStateName | null; label: string }> = [
  { value: null, label: 'None' },
  { value: 'active', label: 'Active' },
  { value: 'review', label: 'Needs review' },
  { value: 'done', label: 'Done' },
];

export function stateLabel(state: SessionStateName | null): string {
  return STATE_CHOICES.find((choice) => choice.value === state)?.label ?? 'None';
}

/** A tag's chip by its colour's name (the server only ever gives one of these names). */
export const CHIP: Record<TagColour, string> = {
  gray: 'bg-neutral-200 text-neutral-800 dark:bg-neutral-700 dark:text-neutral-100',
  red: 'bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-100',
  orange: 'bg-orange-100 text-orange-800 dark:bg-orange-900/60 dark:text-orange-100',
  yellow: 'bg-yellow-100 text-yellow-900 dark:bg-yellow-900/60 dark:text-yellow-100',
  green: 'bg-green-100 text-green-800 dark:bg-green-900/60 dark:text-green-100',
  teal: 'bg-teal-100 text-teal-800 dark:bg-teal-900/60 dark:text-teal-100',
  blue: 'bg-blue-100 text-blue-800 dark:bg-blue-900/60 dark:text-blue-100',
  purple: 'bg-purple-100 text-purple-800 dark:bg-purple-900/60 dark:text-purple-100',
  pink: 'bg-pink-100 text-pink-800 dark:bg-pink-900/60 dark:text-pink-100',
};

export const STATE_CHIP: Record<SessionStateName, string> = {
  active: 'text-blue-700 dark:text-blue-300',
  review: 'font-medium text-amber-700 dark:text-amber-300',
  done: 'text-green-700 dark:text-green-300',
};
