'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';
import { ProjectRow } from './project-row';

type Project = RouterOutputs['project']['list'][number];

/** The projects, kept fresh by the mutations of their rows. */
export function ProjectList({ initialProjects }: { initialProjects: Project[] }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions(undefined, { initialData: initialProjects }));
  const rows = projects.data ?? initialProjects;
  return (
    <ul className="space-y-3" aria-label="Projects">
      {rows.map((project) => (
        <li key={project.id}>
          <ProjectRow project={project} />
        </li>
      ))}
    </ul>
  );
}
