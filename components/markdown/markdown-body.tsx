import { cn } from '@/components/ui/cn';
import styles from './markdown-body.module.css';

/**
 * A message's Markdown as the server rendered it (server/render): HTML written by React from a
 * sanitised tree, where every text of the message is escaped. Code blocks carry shiki's
 * `--shiki-light` / `--shiki-dark` variables per token and the stylesheet picks one by the theme,
 * so switching themes is pure CSS.
 */
export function MarkdownBody({ html, className }: { html: string; className?: string }) {
  return <div className={cn(styles.body, className)} dangerouslySetInnerHTML={{ __html: html }} />;
}
