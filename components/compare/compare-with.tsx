'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useQueryClient } from '@tanstack/react-query';
import { GitCompare } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { compareHref } from './compare-href';

export interface CompareChoice {
  id: string;
  label: string;
}

/**
 * "Compare with…" (DESIGN §14): the user picks the other branch and the compare page opens.
 * `choices` are branch tips (the branch graph), or, with `toTips`, messages (a fork's siblings):
 * then both ends go to their newest tip first, so the whole branches are compared, not one message.
 */
export function CompareWith({ sessionId, from, choices, toTips = false }: { sessionId: string; from: string; choices: CompareChoice[]; toTips?: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const tipOf = async (nodeId: string) =>
    toTips ? (await queryClient.fetchQuery({ ...trpc.branch.tipOf.queryOptions({ sessionId, nodeId }), staleTime: 0 })).headId : nodeId;

  const open = async (other: string) => {
    setBusy(true);
    try {
      const [a, b] = await Promise.all([tipOf(from), tipOf(other)]);
      router.push(compareHref(sessionId, a, b));
    } catch (error) {
      toast.error(`Could not open the comparison: ${(error as Error).message}`);
      setBusy(false);
    }
  };

  if (choices.length === 0) return null;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        disabled={busy}
        className="inline-flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50 dark:border-neutral-700 dark:hover:bg-neutral-800"
      >
        <GitCompare size={14} aria-hidden />
        Compare with…
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="start" sideOffset={4} className="z-50 min-w-48 rounded-md border border-neutral-200 bg-white p-1 text-sm shadow-lg dark:border-neutral-800 dark:bg-neutral-900">
          {choices.map((choice) => (
            <DropdownMenu.Item
              key={choice.id}
              onSelect={() => void open(choice.id)}
              className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800"
            >
              <span className="truncate">{choice.label}</span>
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
