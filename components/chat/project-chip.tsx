'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useQuery } from '@tanstack/react-query';
import { Check, ChevronDown, FolderGit2 } from 'lucide-react';
import { useTRPC } from '@/trpc/client';

const chip =
  'inline-flex max-w-64 items-center gap-1 rounded-md border border-neutral-200 px-2 py-1 text-xs text-neutral-700 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:border-neutral-700 dark:text-neutral-300';

/** After the first turn the project is frozen (DESIGN §4.6): shown, not chosen. */
export function ProjectChipReadOnly({ name }: { name: string }) {
  return (
    <button type="button" aria-disabled="true" title="The project is fixed after the first turn" className={`${chip} cursor-default`}>
      <FolderGit2 size={16} aria-hidden />
      <span className="truncate">Project: {name}</span>
    </button>
  );
}

/** A draft's project: a menu of the user's projects; "Home" (the default) unless another is picked. */
export function ProjectPicker({ projectId, onChange }: { projectId: string; onChange: (projectId: string) => void }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const list = projects.data ?? [];
  const current = list.find((project) => project.id === projectId) ?? list.find((project) => project.isDefault);
  const name = current?.name ?? 'Home';
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className={`${chip} hover:bg-neutral-100 dark:hover:bg-neutral-800`}>
        <FolderGit2 size={16} aria-hidden />
        <span className="truncate">Project: {name}</span>
        <ChevronDown size={16} aria-hidden />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="start" sideOffset={4} className="z-50 min-w-56 rounded-md border border-neutral-200 bg-white p-1 text-sm shadow-lg dark:border-neutral-800 dark:bg-neutral-900">
          {list.map((project) => (
            <DropdownMenu.Item
              key={project.id}
              disabled={project.pathMissing}
              onSelect={() => onChange(project.id)}
              className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 outline-none data-[disabled]:cursor-not-allowed data-[disabled]:opacity-50 data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800"
            >
              <Check size={16} aria-hidden className={project.id === current?.id ? 'opacity-100' : 'opacity-0'} />
              <span className="truncate">{project.name}</span>
              {project.pathMissing ? <span className="ml-auto text-xs text-neutral-500">folder missing</span> : null}
            </DropdownMenu.Item>
          ))}
          {list.length === 0 ? <div className="px-2 py-1.5 text-neutral-500">Loading projects…</div> : null}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
