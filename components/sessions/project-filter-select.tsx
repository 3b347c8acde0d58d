'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';

/** The Chats page's project filter (a saved view keeps it): every project with its session count. */
export function ProjectFilterSelect({ value, onChange }: { value: string | null; onChange: (projectId: string | null) => void }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const listed = projects.data ?? [];
  return (
    <label className="flex items-center gap-2 text-sm text-neutral-600 dark:text-neutral-400">
      Project
      <select
        aria-label="Project"
        value={value ?? ''}
        onChange={(event) => onChange(event.target.value || null)}
        className="max-w-48 rounded-md border border-neutral-300 bg-white px-2 py-2 text-sm text-neutral-900 focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
      >
        <option value="">All projects</option>
        {listed.map((project) => (
          <option key={project.id} value={project.id}>
            {project.name} ({project.sessionCount})
          </option>
        ))}
        {value && !listed.some((project) => project.id === value) ? <option value={value}>{value} (0)</option> : null}
      </select>
    </label>
  );
}
