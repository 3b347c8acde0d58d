import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';
import styles from './markdown-body.module.css';

/**
 * Rendered Markdown (server-rendered elements inside). Code blocks carry shiki's `--shiki-light`
 * / `--shiki-dark` variables per token and the stylesheet picks one by the theme, so switching
 * themes is pure CSS.
 */
export function MarkdownBody({ children, className }: { children: ReactNode; className?: string }) {
  return <div className={cn(styles.body, className)}>{children}</div>;
}
