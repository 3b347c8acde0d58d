import { truncateWithEllipsis, sliceCodePoints } from '../text.js';

const ATTACHMENT_MARKERS: RegExp[] = [
  /<attachment-preview\b[^>]*>[\s\S]*?<\/attachment-preview>/g,
  /<file\b[^>]*>[\s\S]*?<\/file>/g,
  /\[attachment:[^\]]*\]/g,
  /\[attached:[^\]]*\]/g,
];

/** Phase 1 title (FORMAT.md): markers removed, first non-empty line, 50 code points + "…". */
export function titleFromText(text: string): string {
  let clean = text;
  for (const marker of ATTACHMENT_MARKERS) clean = clean.replace(marker, '');
  const firstLine = clean.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
  return truncateWithEllipsis(firstLine, 50, 50);
}

/** Model answers are stripped of quotes and a "Title:" prefix and cut to 80 code points. */
export function cleanModelTitle(raw: string): string {
  let title = raw.trim().split('\n')[0]?.trim() ?? '';
  title = title.replace(/^title\s*:\s*/i, '');
  title = title.replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, '').trim();
  return sliceCodePoints(title, 80);
}
