import { truncateWithEllipsis } from '../text.js';

/** The list preview of the seeds' `_truncate`: trimmed, newlines to spaces, over 80 → 77 + "…". */
export function previewOf(text: unknown): string | null {
  if (typeof text !== 'string' || text === '') return null;
  const flat = text.trim().replace(/\n/g, ' ');
  return truncateWithEllipsis(flat, 80, 77);
}
