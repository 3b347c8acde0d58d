import type { RouterOutputs } from '@/trpc/types';

type WordChange = NonNullable<RouterOutputs['session']['compare']['rows'][number]['words']>[number];

/**
 * One side of a pair's word differences as text (React escapes it: nothing a message holds runs).
 * Side a shows the shared runs and its removed ones, side b the shared and its added ones. Colour
 * is not the only cue: removed words are struck through, added ones underlined, and a screen
 * reader hears "Removed"/"Added" before them (a hidden ::before, so copying the text stays clean).
 */
export function WordChangesText({ words, side }: { words: WordChange[]; side: 'a' | 'b' }) {
  return (
    <p className="whitespace-pre-wrap break-words">
      {words.map((word, index) => {
        if (word.change === 'same') return <span key={index}>{word.text}</span>;
        if (word.change === 'removed') {
          return side === 'a' ? (
            <del key={index} title="Removed" className="rounded-sm bg-red-100 text-red-900 decoration-2 before:sr-only before:content-['Removed:_'] dark:bg-red-950/60 dark:text-red-200">
              {word.text}
            </del>
          ) : null;
        }
        return side === 'b' ? (
          <ins key={index} title="Added" className="rounded-sm bg-emerald-100 text-emerald-900 underline decoration-2 underline-offset-2 before:sr-only before:content-['Added:_'] dark:bg-emerald-950/60 dark:text-emerald-200">
            {word.text}
          </ins>
        ) : null;
      })}
    </p>
  );
}
