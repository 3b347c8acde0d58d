'use client';

import { useQuery } from '@tanstack/react-query';
import { FilterSelect } from '@/components/ui/filter-select';
import { useTRPC } from '@/trpc/client';

/** The Chats page's project filter (a saved view keeps it): every project with its session count. */
export function ProjectFilterSelect({ value, onChange }: { value: string | null; onChange: (projectId: string | null) => void }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const listed = projects.data ?? [];
  return (
    <FilterSelect label="Project" allLabel="All projects" value={value} onChange={onChange}>
      {listed.map((project) => (
        <option key={project.id} value={project.id}>
          {project.name} ({project.sessionCount})
        </option>
      ))}
      {value && !listed.some((project) => project.id === value) ? <option value={value}>{value} (0)</option> : null}
    </FilterSelect>
  );
}
