import { z } from 'zod';
import { retentionPolicySchema } from '@/lib/retention/index';
import { retentionSettings, setInstanceRetention, setOwnRetention, sweepEveryUser } from '@/server/retention/retention-service';
import { adminProcedure, cookieOnlyProcedure, createTRPCRouter, protectedProcedure } from '../trpc';

/** The latest "as of" an admin may sweep at: a hundred years on (ms). */
const LATEST_AS_OF = Date.UTC(2126, 0, 1);

export const retentionRouter = createTRPCRouter({
  /** DESIGN §17: the caller's own policy (null: the instance's applies), the instance default, and which one applies. */
  settings: protectedProcedure.query(({ ctx }) => retentionSettings(ctx.user.id)),

  /** Cookie only: an agent's token must not be able to make the sweep trash its owner's history. `own: null` follows the instance default. */
  setOwn: cookieOnlyProcedure
    .input(z.object({ own: retentionPolicySchema.nullable() }).strict())
    .mutation(({ ctx, input }) => setOwnRetention(ctx.user.id, input.own)),

  /** The default for every user who has not chosen their own. */
  setInstance: adminProcedure.input(retentionPolicySchema).mutation(({ input }) => setInstanceRetention(input)),

  /**
   * The sweep once, now: every user whose retention is on. `asOf` (ms): measure the limits from
   * that moment (what a later sweep would move); the trash is purged by the real clock only.
   */
  applyNow: adminProcedure
    .input(
      z
        .object({ asOf: z.number({ message: 'asOf must be a time in milliseconds' }).int('asOf must be whole milliseconds').min(0, 'asOf must not be before 1970').max(LATEST_AS_OF, 'asOf must be before 2126').optional() })
        .strict(),
    )
    .mutation(({ input }) => sweepEveryUser(input.asOf)),
});
