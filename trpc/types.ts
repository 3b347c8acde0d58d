import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';

/** Router types for components: `RouterOutputs['session']['list']['rows'][number]`. Components import these, never server/. */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type { AppRouter };
/** The answer of POST /api/import (one file's import report, DESIGN §10). */
export type { ImportReport } from '@/server/http/import-upload';
