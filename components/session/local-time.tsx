'use client';

import { useEffect, useState } from 'react';

/** A time in the reader's own zone and language, filled in after hydration (the server knows neither). */
export function LocalTime({ ms, className }: { ms: number; className?: string }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    setText(new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
  }, [ms]);
  return (
    <time dateTime={new Date(ms).toISOString()} className={className}>
      {text ?? ''}
    </time>
  );
}
