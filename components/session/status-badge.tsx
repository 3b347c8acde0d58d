import { Ban, CircleAlert, LoaderCircle } from 'lucide-react';
import { cn } from '@/components/ui/cn';

const LOOKS: Record<string, { label: string; className: string; icon: typeof Ban }> = {
  running: { label: 'Running', className: 'bg-blue-50 text-blue-700 dark:bg-blue-950 dark:text-blue-300', icon: LoaderCircle },
  failed: { label: 'Failed', className: 'bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300', icon: CircleAlert },
  cancelled: { label: 'Cancelled', className: 'bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300', icon: Ban },
};

/** The session's status next to its title; nothing while idle. */
export function StatusBadge({ status }: { status: string }) {
  const look = LOOKS[status];
  if (!look) return null;
  const Icon = look.icon;
  return (
    <span role="status" className={cn('inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium', look.className)}>
      <Icon aria-hidden size={14} className={status === 'running' ? 'animate-spin' : undefined} />
      {look.label}
    </span>
  );
}
