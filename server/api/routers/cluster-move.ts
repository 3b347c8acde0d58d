import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { MoveError } from '@/lib/cluster/move/index';
import { adminMove, clusterOverview, continueAdminMove, startAdminMove } from '@/server/cluster/admin-moves';
import { getAuthStore } from '@/server/runtime';
import { audited } from '@/server/audit/audit-runtime';
import { adminProcedure, createTRPCRouter } from '../trpc';
import { userIdInput } from '../schemas';

const instanceIdInput = z.string().min(1).max(200).regex(/^[A-Za-z0-9._-]+$/, 'an instance id is letters, digits, . _ -');
const moveIdInput = z.string().regex(/^[0-9a-z]{8,40}$/, 'not a move id');

async function moveErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof MoveError)) throw error;
    throw new TRPCError({ code: error.code === 'bad_input' ? 'BAD_REQUEST' : error.code === 'conflict' ? 'CONFLICT' : 'BAD_GATEWAY', message: error.message });
  }
}

/** The Admin page's Move control (DESIGN §11): users between instances, run by this instance as the mover. */
export const clusterMoveRouter = createTRPCRouter({
  overview: adminProcedure.query(() => clusterOverview(getAuthStore().users.list().map((user) => user.id))),

  /** Checked and recorded at once; the steps run in the background (follow them with `get`). */
  start: adminProcedure
    .input(z.object({ userId: userIdInput, to: instanceIdInput }).strict())
    .mutation(({ ctx, input }) => audited(ctx, 'move.start', `${input.userId} to ${input.to}`, () => moveErrors(() => startAdminMove(input.userId, input.to)))),

  continue: adminProcedure
    .input(z.object({ moveId: moveIdInput, action: z.enum(['resume', 'rollback']) }).strict())
    .mutation(({ ctx, input }) => audited(ctx, 'move.continue', `${input.moveId} ${input.action}`, () => moveErrors(() => continueAdminMove(input.moveId, input.action)))),

  get: adminProcedure.input(z.object({ moveId: moveIdInput }).strict()).query(({ input }) => {
    const move = adminMove(input.moveId);
    if (!move) throw new TRPCError({ code: 'NOT_FOUND', message: `no move ${input.moveId}` });
    return move;
  }),
});
