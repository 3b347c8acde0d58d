'use client';

import { Tags } from 'lucide-react';
import { useState } from 'react';
import type { SessionRow } from '@/components/sessions/session-types';
import { EditTagsDialog } from './edit-tags-dialog';
import { TagChips } from './tag-chips';

/** The session header's state and tags, and its "Tags" button opening "Edit tags". */
export function HeaderTags({ row, title, chipClassName }: { row: SessionRow; title: string; chipClassName: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={chipClassName} onClick={() => setOpen(true)}>
        <Tags aria-hidden size={16} />
        Tags
      </button>
      <TagChips tags={row.tags} state={row.state} className="flex-wrap" />
      {open ? <EditTagsDialog row={row} title={title} open onOpenChange={setOpen} /> : null}
    </>
  );
}
