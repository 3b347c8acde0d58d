import { Paperclip } from 'lucide-react';

/** An attachment as the server found it in a message (lib/store's attachmentsOf): its stored file name, label and size. */
export interface AttachmentLink {
  /** the stored file name: the only part a download URL may carry */
  file: string;
  label: string;
  size: number | null;
}

function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Downloads of a message's attachments (served with Content-Disposition: attachment, never
 * rendered), under `base`: the session's `/api/attachments/<id>`, or a share link's own.
 */
export function AttachmentLinks({ base, attachments }: { base: string; attachments: AttachmentLink[] }) {
  if (attachments.length === 0) return null;
  return (
    <ul aria-label="Attachments" className="mt-2 flex flex-wrap gap-2">
      {attachments.map((attachment) => (
        <li key={attachment.file}>
          <a
            href={`${base}/${encodeURIComponent(attachment.file)}`}
            download={attachment.label}
            className="inline-flex items-center gap-1.5 rounded-md border border-neutral-200 px-2 py-1 text-sm hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-800 dark:hover:bg-neutral-900"
          >
            <Paperclip aria-hidden size={16} />
            {attachment.label}
            {attachment.size !== null ? <span className="text-xs text-neutral-500">{formatBytes(attachment.size)}</span> : null}
          </a>
        </li>
      ))}
    </ul>
  );
}
