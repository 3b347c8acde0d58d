import { z } from 'zod';
import { defaultResumeFolder, prepareResume } from '@/lib/resume/index';
import { getDataDir } from '@/server/runtime';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { pathInput, sessionIdInput } from '../schemas';

/** DESIGN §14 "Resume in the agent": a turn of a session as the agent's own transcript. */
export const resumeRouter = createTRPCRouter({
  /**
   * The branch up to `turn` (default: the current branch) as a Claude Code transcript or a Codex
   * rollout, with where it goes and the command that continues it; the proxy then records that
   * run as a branch of this session from that turn. `cwd`: the absolute folder the agent will run
   * in (default: the session's project folder). A mutation: it keeps the link the proxy follows.
   */
  prepare: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          turn: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
          agent: z.enum(['claude', 'codex']),
          cwd: pathInput.refine((path) => path.startsWith('/'), 'must be an absolute path').optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      const cwd = input.cwd ?? (await defaultResumeFolder(ctx.store, ctx.sessionId));
      return prepareResume(ctx.store, { dataDir: getDataDir(), userId: ctx.user.id }, { sessionId: ctx.sessionId, agent: input.agent, cwd, ...(input.turn !== undefined ? { turn: input.turn } : {}) });
    }),
});
