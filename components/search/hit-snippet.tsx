import type { SearchHit } from './types';

/** The snippet's segments as text; the matched ones in <mark>. Never HTML from the index. */
export function HitSnippet({ snippet }: { snippet: SearchHit['snippet'] }) {
  return (
    <>
      {snippet.map((segment, i) =>
        segment.match ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-inherit dark:bg-amber-500/40">
            {segment.text}
          </mark>
        ) : (
          <span key={i}>{segment.text}</span>
        ),
      )}
    </>
  );
}
