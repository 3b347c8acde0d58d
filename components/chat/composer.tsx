'use client';

import { ArrowUp, Paperclip, Square } from 'lucide-react';
import { useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';
import { toast } from 'sonner';
import { cn } from '@/components/ui/cn';
import { AttachmentChips } from './attachment-chips';
import { MAX_ATTACHMENT_BYTES } from './upload-attachment';

export interface ComposerProps {
  value: string;
  onChange: (value: string) => void;
  files: File[];
  onFilesChange: (files: File[]) => void;
  onSend: () => void;
  onStop: () => void;
  /** a turn of this session is running: Stop instead of Send */
  running: boolean;
  /** the send request is on its way */
  sending: boolean;
  /** no model: the box stays usable for drafting, sending is off */
  sendDisabled: boolean;
  /** the project chip (a picker for a draft, read-only after the first turn) */
  projectChip: ReactNode;
}

const button =
  'inline-flex items-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50';

/**
 * The message box: Enter sends, Shift+Enter breaks the line; files by the clip button, drag and
 * drop or paste (20 MB each). DESIGN §7 names: textbox "Message", buttons "Send" / "Stop".
 */
export function Composer(props: ComposerProps) {
  const { value, onChange, files, onFilesChange, onSend, onStop, running, sending, sendDisabled, projectChip } = props;
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const canSend = !sendDisabled && !running && !sending && value.trim() !== '';

  function addFiles(list: FileList | File[]) {
    const accepted: File[] = [];
    for (const file of Array.from(list)) {
      if (file.size > MAX_ATTACHMENT_BYTES) toast.error(`${file.name} is larger than 20 MB`);
      else accepted.push(file);
    }
    if (accepted.length > 0) onFilesChange([...files, ...accepted]);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (canSend) onSend();
    }
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    if (event.clipboardData.files.length > 0) {
      event.preventDefault();
      addFiles(event.clipboardData.files);
    }
  }

  function onDrop(event: DragEvent<HTMLFormElement>) {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length > 0) addFiles(event.dataTransfer.files);
  }

  return (
    <form
      aria-label="Composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend) onSend();
      }}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      className={cn(
        'rounded-xl border border-neutral-200 bg-white shadow-sm dark:border-neutral-800 dark:bg-neutral-900',
        dragging && 'border-blue-600 ring-2 ring-blue-600/30 dark:border-blue-400',
      )}
    >
      <AttachmentChips files={files} onRemove={(index) => onFilesChange(files.filter((_, i) => i !== index))} />
      <textarea
        aria-label="Message"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        rows={3}
        placeholder="Message… (Enter to send, Shift+Enter for a new line)"
        className="block max-h-72 min-h-20 w-full resize-y bg-transparent px-3 py-3 text-sm outline-none placeholder:text-neutral-400"
      />
      <div className="flex flex-wrap items-center gap-2 border-t border-neutral-200 px-2 py-2 dark:border-neutral-800">
        {projectChip}
        <input ref={input} type="file" multiple hidden aria-label="Attach files" onChange={(event) => event.target.files && addFiles(event.target.files)} />
        <button type="button" aria-label="Attach files" onClick={() => input.current?.click()} className={cn(button, 'px-2 text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800')}>
          <Paperclip size={16} aria-hidden />
        </button>
        <span className="flex-1" />
        {running ? (
          <button type="button" onClick={onStop} className={cn(button, 'border border-neutral-300 text-neutral-900 hover:bg-neutral-100 dark:border-neutral-700 dark:text-neutral-100 dark:hover:bg-neutral-800')}>
            <Square size={16} aria-hidden />
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!canSend} className={cn(button, 'bg-blue-600 text-white hover:bg-blue-700 dark:bg-blue-500 dark:hover:bg-blue-400')}>
            <ArrowUp size={16} aria-hidden />
            Send
          </button>
        )}
      </div>
    </form>
  );
}
