import { Paperclip } from 'lucide-react';
import { formatBytes, type AttachmentLink } from './attachments-of';

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
