'use client';

import * as Dialog from '@radix-ui/react-dialog';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useQuery } from '@tanstack/react-query';
import { Check, ChevronDown, FolderGit2, FolderPlus, X } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { AddProjectForm } from '@/components/projects/add-project-form';
import { useTRPC } from '@/trpc/client';

const chip =
  'inline-flex max-w-64 items-center gap-1 rounded-md border border-neutral-200 px-2 py-1 text-xs text-neutral-700 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:border-neutral-700 dark:text-neutral-300';

const FROZEN = 'A session keeps its project after its first turn: its turns ran and were committed in that folder. Start a new chat to work in another project.';
// Home has no repository: nothing of its turns was committed anywhere, so the sentence above would be false.
const FROZEN_HOME = 'A session keeps its project after its first turn. Its turns ran in Home, which commits nothing. Start a new chat to work in a project.';

/** After the first turn the project is frozen (DESIGN §4.6, operations.zh.md): shown, not chosen; a click says why. */
export function ProjectChipReadOnly({ name, inHome = false }: { name: string; inHome?: boolean }) {
  const why = inHome ? FROZEN_HOME : FROZEN;
  return (
    // Not disabled: a click says why it cannot change, which a disabled button could not.
    <button type="button" title={why} onClick={() => toast.info(why)} className={`${chip} cursor-help`}>
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
  const [adding, setAdding] = useState(false);
  return (
    <>
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
          <DropdownMenu.Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" />
          <DropdownMenu.Item
            onSelect={() => setAdding(true)}
            className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800"
          >
            <FolderPlus size={16} aria-hidden />
            Add project…
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
    <Dialog.Root open={adding} onOpenChange={setAdding}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 max-h-[calc(100vh-2rem)] w-[min(40rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 space-y-3 overflow-y-auto rounded-lg border border-neutral-200 bg-white p-5 shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900">
          <div className="flex items-start justify-between gap-2">
            <Dialog.Title className="text-base font-semibold">Add project</Dialog.Title>
            <Dialog.Close aria-label="Close" className="rounded-md p-1 text-neutral-500 hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800">
              <X size={16} aria-hidden />
            </Dialog.Close>
          </div>
          <Dialog.Description className="text-sm text-neutral-600 dark:text-neutral-400">The new project becomes this chat&apos;s project.</Dialog.Description>
          <AddProjectForm
            autoFocus
            onAdded={(project) => {
              setAdding(false);
              onChange(project.id);
            }}
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
    </>
  );
}
