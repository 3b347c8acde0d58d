'use client';

import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '@/trpc/types';

/** `useTRPC()` in client components: `useQuery(trpc.token.list.queryOptions())`. */
export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();
