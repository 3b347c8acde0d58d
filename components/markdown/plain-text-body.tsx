import { cn } from '@/components/ui/cn';
import styles from './markdown-body.module.css';

/** Why the server showed a message as text (server/render's PlainReason). */
export type PlainTextReason = 'too-large' | 'too-deep' | 'deadline' | 'failed';

const NOTES: Record<PlainTextReason, string> = {
  'too-large': 'Shown as plain text: too long to format.',
  'too-deep': 'Shown as plain text: nested too deeply to format.',
  deadline: 'Shown as plain text: took too long to format.',
  failed: 'Shown as plain text: could not be formatted.',
};

/** A message the server would not or could not render as Markdown: its text, escaped, whitespace kept. */
export function PlainTextBody({ text, reason, className }: { text: string; reason: PlainTextReason; className?: string }) {
  return (
    <div className={cn(styles.body, className)}>
      <p className="whitespace-pre-wrap">{text}</p>
      <p className="text-xs text-neutral-500 dark:text-neutral-400">{NOTES[reason]}</p>
    </div>
  );
}
