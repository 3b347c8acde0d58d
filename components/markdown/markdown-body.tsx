'use client';

import 'katex/dist/katex.min.css';
import type { MouseEvent } from 'react';
import { toast } from 'sonner';
import { cn } from '@/components/ui/cn';
import styles from './markdown-body.module.css';

/** The Copy button of a code block (server/render/rehype-code-frame.ts) copies the block's text. */
function copyCode(event: MouseEvent<HTMLDivElement>) {
  const button = (event.target as HTMLElement).closest('button[data-copy-code]');
  const code = button?.closest('[data-code-block]')?.querySelector('pre');
  if (!code) return;
  navigator.clipboard.writeText(code.textContent ?? '').then(
    () => toast.success('Code copied'),
    (error: unknown) => toast.error(`Could not copy: ${(error as Error).message}`),
  );
}

/**
 * A message's Markdown as the server rendered it (server/render): HTML written by React from a
 * sanitised tree, where every text of the message is escaped. Code blocks carry shiki's
 * `--shiki-light` / `--shiki-dark` variables per token and the stylesheet picks one by the theme,
 * so switching themes is pure CSS; formulas are KaTeX's markup with its stylesheet (bundled, no network).
 */
export function MarkdownBody({ html, className }: { html: string; className?: string }) {
  return <div className={cn(styles.body, className)} onClick={copyCode} dangerouslySetInnerHTML={{ __html: html }} />;
}
