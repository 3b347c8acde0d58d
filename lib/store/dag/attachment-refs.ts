/**
 * An attachment a message names: the stored file name (the only part a download URL may carry),
 * what to show for it, its size when known.
 */
export interface AttachmentRef {
  file: string;
  label: string;
  size: number | null;
}

const STORED_NAME = /^[^/\\\0]+$/;
const MARKER = /\[(?:attachment|attached):\s*([^\]\n]+)\]/g;

/** The last part of a path written by the chat (…/workdir/attachments/<id>) or the id itself; null when it names no file. */
function fileOf(value: string): string | null {
  const file = value.split(/[/\\]/).pop() ?? '';
  return file && file !== '.' && file !== '..' && STORED_NAME.test(file) ? file : null;
}

/**
 * The attachments of a message: `metadata.attachments` as the upload answers (`{id, name, size}`)
 * or as paths/ids, and the seeds' `[attachment: <path>]` / `[attached: <path>]` markers. The
 * session page links these and a share link serves these files and no other, so both ask here.
 * A label that looks like a path shows only its last part: a page names no folder.
 */
export function attachmentsOf(metadata: Readonly<Record<string, unknown>>, content: string): AttachmentRef[] {
  const out: AttachmentRef[] = [];
  const seen = new Set<string>();
  const add = (file: string | null, label?: unknown, size?: unknown) => {
    if (!file || seen.has(file)) return;
    seen.add(file);
    const shown = typeof label === 'string' && label.trim() ? (fileOf(label.trim()) ?? file) : file;
    out.push({ file, label: shown, size: typeof size === 'number' ? size : null });
  };
  const listed = metadata['attachments'];
  if (Array.isArray(listed)) {
    for (const item of listed) {
      if (typeof item === 'string') add(fileOf(item));
      else if (item && typeof item === 'object') {
        const record = item as Record<string, unknown>;
        const ref = [record['id'], record['path'], record['name']].find((v): v is string => typeof v === 'string' && v !== '');
        add(ref ? fileOf(ref) : null, record['name'], record['size']);
      }
    }
  }
  for (const match of content.matchAll(MARKER)) add(fileOf(match[1]!.trim()));
  return out;
}
