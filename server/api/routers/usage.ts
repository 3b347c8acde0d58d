import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { isRealDay, priceSchema, readPrices, setPrice, USAGE_BY, USAGE_SPLITS } from '@/lib/usage/index';
import { getDataDir } from '@/server/runtime';
import { sessionUsage, usageSummary } from '@/server/usage/usage-service';
import { audited } from '@/server/audit/audit-runtime';
import { adminProcedure, createTRPCRouter, protectedProcedure, sessionProcedure } from '../trpc';
import { sessionIdInput } from '../schemas';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day as YYYY-MM-DD').refine(isRealDay, 'must be a real day');
/** A range of at most this many days: a summary reads sums per day. */
const MAX_RANGE_DAYS = 3_660;

const summaryInput = z
  .object({
    from: day,
    to: day,
    by: z.enum(USAGE_BY).default('day'),
    split: z.enum(USAGE_SPLITS).optional(),
    /** the admin: every user's figures (split `user` implies it) */
    everyone: z.boolean().default(false),
    topSessions: z.number().int().min(0).max(100).default(10),
  })
  .strict()
  .refine((input) => input.from <= input.to, { message: 'from must not be after to', path: ['from'] })
  .refine((input) => (Date.parse(input.to) - Date.parse(input.from)) / 86_400_000 <= MAX_RANGE_DAYS, { message: `at most ${MAX_RANGE_DAYS} days at once`, path: ['to'] });

/** Usage and cost (DESIGN §15): a user's own figures; the admin's, everyone's and each user's; the price table. */
export const usageRouter = createTRPCRouter({
  /** `{from, to, by: day|week|month, split?: model|project|agent|user, everyone?}` (UTC days, `to` included) → rows, totals, top sessions. */
  summary: protectedProcedure.input(summaryInput).query(({ ctx, input }) => {
    const everyone = input.everyone || input.split === 'user';
    if (everyone && !ctx.user.admin) throw new TRPCError({ code: 'FORBIDDEN', message: "only an admin sees other users' usage" });
    return usageSummary({ id: ctx.user.id, email: ctx.user.email }, { ...input, everyone });
  }),

  /** `{sessionId}` → the session's tokens, cost and cache hit rate (its header); null while the figures cannot be read. */
  session: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).query(({ ctx }) => sessionUsage(ctx.user.id, ctx.sessionId)),

  /** The price table in force (per million tokens, USD, each valid from its day). */
  prices: protectedProcedure.meta({ project: 'none' }).query(() => readPrices(getDataDir())),

  /** Admin → Prices: a model's price from a day on (the same model and day replaced); figures before that day keep theirs. */
  setPrice: adminProcedure.input(priceSchema.strict()).mutation(({ ctx, input }) => audited(ctx, 'admin.setPrice', input.model, () => setPrice(getDataDir(), input))),
});
