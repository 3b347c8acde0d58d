import { z } from 'zod';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput } from '../schemas';

/** Branches of a session's DAG. Switching changes the conversation head only, never git HEAD. */
export const branchRouter = createTRPCRouter({
  /** `[{headId, name, createdAt, updatedAt, current}]` */
  list: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).query(({ ctx }) => ctx.store.listBranches(ctx.sessionId)),

  /** Recency is kept. */
  setHead: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, headId: nodeIdInput }).strict())
    .mutation(({ ctx, input }) => ctx.store.setHead(ctx.sessionId, input.headId)),

  /** `{headId}`: the newest branch tip through `nodeId`, where a switch to that message's branch goes. */
  tipOf: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, nodeId: nodeIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.tipOf(ctx.sessionId, input.nodeId)),

  /** The head moves to the retried reply's parent, where the next reply goes (`{parentId}`); records `retry-<id>`. */
  retry: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, assistantId: nodeIdInput }).strict())
    .mutation(({ ctx, input }) => ctx.store.retry(ctx.sessionId, input.assistantId)),
});
