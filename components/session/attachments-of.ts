/** An attachment a message names, as a download of this session. */
export interface AttachmentLink {
  /** the stored file name: the only part a download URL may carry */
  file: string;
  /** what to show */
  label: string;
  size: number | null;
}

const STORED_NAME = /^[^/\\\0]+$/;

function fileOf(value: string): string | null {
  // A path written by the chat (…/workdir/attachments/<id>) or the id itself.
  const file = value.split(/[/\\]/).pop() ?? '';
  return file && file !== '.' && file !== '..' && STORED_NAME.test(file) ? file : null;
}

/**
 * The attachments of a message: `metadata.attachments` as the upload answers (`{id, name, size}`)
 * or as paths/ids, and the `[attachment: <path>]` / `[attached: <path>]` markers of the seeds.
 */
export function attachmentsOf(metadata: Record<string, unknown>, content: string): AttachmentLink[] {
  const out: AttachmentLink[] = [];
  const seen = new Set<string>();
  const add = (file: string | null, label?: unknown, size?: unknown) => {
    if (!file || seen.has(file)) return;
    seen.add(file);
    out.push({ file, label: typeof label === 'string' && label.trim() ? label : file, size: typeof size === 'number' ? size : null });
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

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}
