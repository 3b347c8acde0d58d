/** An attachment a shared message names: the stored file name (the only part a URL carries), a label, a size. */
export interface SharedAttachment {
  file: string;
  label: string;
  size: number | null;
}

const STORED_NAME = /^[^/\\\0]+$/;

function fileOf(value: string): string | null {
  // A path written by the chat (…/workdir/attachments/<id>) or the id itself: only its last part leaves.
  const file = value.split(/[/\\]/).pop() ?? '';
  return file && file !== '.' && file !== '..' && STORED_NAME.test(file) ? file : null;
}

/**
 * The attachments of a message, as the session page finds them (components/session/attachments-of.ts,
 * which runs in the browser and so cannot share this module): `metadata.attachments` as the upload
 * answers or as paths, and the seeds' `[attachment: <path>]` markers. A share link serves these
 * files and no other.
 */
export function attachmentsOfMessage(metadata: Record<string, unknown>, content: string): SharedAttachment[] {
  const out: SharedAttachment[] = [];
  const seen = new Set<string>();
  const add = (file: string | null, label?: unknown, size?: unknown) => {
    if (!file || seen.has(file)) return;
    seen.add(file);
    // A label that looks like a path shows only its last part: a shared page names no folder.
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
  for (const match of content.matchAll(/\[(?:attachment|attached):\s*([^\]\n]+)\]/g)) add(fileOf(match[1]!.trim()));
  return out;
}
