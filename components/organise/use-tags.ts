'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '@/trpc/client';
import type { TagColour, TagSummary } from './tag-look';

/** The user's tags with colours and counts (tag.list), one query for every row and panel. */
export function useTags(): { tags: TagSummary[]; colourOf(name: string): TagColour } {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.tag.list.queryOptions(), staleTime: 30_000 });
  return useMemo(() => {
    const tags = list.data ?? [];
    const colours = new Map(tags.map((tag) => [tag.name, tag.colour]));
    return { tags, colourOf: (name: string) => colours.get(name) ?? 'gray' };
  }, [list.data]);
}
