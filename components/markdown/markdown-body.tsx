import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';

/**
 * The look of rendered Markdown (server-rendered elements inside). Code blocks carry shiki's
 * `--shiki-light` / `--shiki-dark` variables per token; the `dark:` rules pick the dark one, so
 * a theme switch is pure CSS.
 */
export function MarkdownBody({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={cn(
        'min-w-0 text-[15px] leading-relaxed break-words',
        '[&>*+*]:mt-3 [&_li+li]:mt-1 [&_ol]:list-decimal [&_ol]:pl-6 [&_ul]:list-disc [&_ul]:pl-6',
        '[&_li.task-list-item]:list-none [&_ul.contains-task-list]:pl-1 [&_input]:mr-1.5 [&_input]:align-middle',
        '[&_h1]:text-xl [&_h1]:font-semibold [&_h2]:text-lg [&_h2]:font-semibold [&_h3]:font-semibold [&_h4]:font-semibold',
        '[&_a]:text-blue-600 [&_a]:underline [&_a]:underline-offset-2 dark:[&_a]:text-blue-400',
        '[&_blockquote]:border-l-4 [&_blockquote]:border-neutral-300 [&_blockquote]:pl-3 [&_blockquote]:text-neutral-600 dark:[&_blockquote]:border-neutral-700 dark:[&_blockquote]:text-neutral-400',
        '[&_hr]:border-neutral-200 dark:[&_hr]:border-neutral-800',
        '[&_table]:block [&_table]:max-w-full [&_table]:overflow-x-auto [&_table]:border-collapse [&_table]:text-sm',
        '[&_td]:border [&_td]:border-neutral-200 [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:border-neutral-200 [&_th]:bg-neutral-50 [&_th]:px-2 [&_th]:py-1 [&_th]:text-left',
        'dark:[&_td]:border-neutral-800 dark:[&_th]:border-neutral-800 dark:[&_th]:bg-neutral-900',
        '[&_:not(pre)>code]:rounded [&_:not(pre)>code]:bg-neutral-100 [&_:not(pre)>code]:px-1 [&_:not(pre)>code]:py-0.5 [&_:not(pre)>code]:text-[0.9em] dark:[&_:not(pre)>code]:bg-neutral-800',
        '[&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:border [&_pre]:border-neutral-200 [&_pre]:bg-neutral-50 [&_pre]:p-3 [&_pre]:text-[13px] [&_pre]:leading-normal',
        'dark:[&_pre]:border-neutral-800 dark:[&_pre]:bg-neutral-900',
        '[&_.shiki_span]:text-(color:--shiki-light) dark:[&_.shiki_span]:text-(color:--shiki-dark)',
        '[&_img]:max-h-96 [&_img]:rounded-md',
        className,
      )}
    >
      {children}
    </div>
  );
}
