import { z } from 'zod';
import { runBulk, SESSION_STATUSES, type SessionStore } from '@/lib/store/index';
import { MAX_QUERY_CHARS, SEARCH_LIMIT_MAX } from '@/lib/search/index';
import { getChatDispatcher } from '@/server/chat/runtime';
import { getSettledSearch, getUserSearch } from '@/server/runtime';
import { audited, type AuditActor } from '@/server/audit/audit-runtime';
import { createTRPCRouter, sessionProcedure, storeProcedure } from '../trpc';
import { forkProcedure } from './session-fork';
import { compareProcedure } from './session-compare';
import { replayProcedure } from './session-replay';
import { narrowedFilter, narrowedNewSessionProject, projectOf } from '../token-access';
import { cursorInput, labelInput, limitInput, pathInput, projectIdInput, sessionIdInput, sessionStateInput, tagFilterInput, tagListInput } from '../schemas';

const statusInput = z.enum(SESSION_STATUSES);
const titleInput = labelInput(500);
const BULK_ACTIONS = ['archive', 'unarchive', 'delete', 'markRead'] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

/** One session of a bulk request; false when it is not (or no longer) in the caller's store. */
async function applyBulk(store: SessionStore, who: AuditActor & { user: { id: string } }, id: string, action: BulkAction): Promise<boolean> {
  if (!store.hasSession(id)) return false;
  try {
    if (action === 'delete') {
      await getChatDispatcher().stop(who.user.id, id);
      await audited(who, 'session.delete', id, () => store.deleteSession(id));
    }
    else if (action === 'markRead') await store.updateSession(id, { unread: false });
    else await store.setArchived(id, action === 'archive');
    return true;
  } catch (error) {
    // Deleted by another request meanwhile: missing, like an id that never existed.
    if ((error as { code?: unknown }).code === 'NOT_FOUND') return false;
    throw error;
  }
}

/** Sessions (DESIGN §5): rows with the 17 fields, times in ms. */
export const sessionRouter = createTRPCRouter({
  /** An existing id returns its row unchanged. */
  create: storeProcedure
    .meta({ project: 'narrowed' })
    .input(
      z
        .object({
          id: sessionIdInput.optional(),
          agentId: labelInput().optional(),
          title: titleInput.optional(),
          source: labelInput().optional(),
          channel: labelInput().nullish(),
          accountId: labelInput().nullish(),
          peerDisplay: labelInput().nullish(),
          peerId: labelInput().nullish(),
          projectId: projectIdInput.optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      const projectId = narrowedNewSessionProject(input.projectId, projectOf(ctx));
      return (await ctx.store.createSession(projectId === undefined ? input : { ...input, projectId })).row;
    }),

  /** Newest updatedAt first (ties by id), paged by an opaque cursor. */
  list: storeProcedure
    .meta({ project: 'narrowed' })
    .input(
      z
        .object({
          scope: z.enum(['active', 'archived', 'all']).optional(),
          pinned: z.boolean().optional(),
          unread: z.boolean().optional(),
          status: statusInput.optional(),
          source: labelInput().optional(),
          agentId: labelInput().optional(),
          // an agent as session.agents lists it: its sessions whichever way they came in
          agent: labelInput().optional(),
          projectId: projectIdInput.optional(),
          q: labelInput(500).optional(),
          ...tagFilterInput,
          limit: limitInput.optional(),
          cursor: cursorInput.nullish(),
          // Sent by TanStack Query's infinite queries (through tRPC); paging is forward only.
          direction: z.enum(['forward', 'backward']).optional(),
        })
        .strict()
        .optional(),
    )
    .query(({ ctx, input: { direction: _direction, ...input } = {} }) => {
      const filter = narrowedFilter(input, projectOf(ctx));
      return filter ? ctx.store.listSessions(filter) : { rows: [], nextCursor: null };
    }),

  /**
   * Full text of the caller's own sessions (DESIGN §10): titles and every message, tool calls
   * included. Newest first, a session's hits side by side; the snippet marks the matched text as
   * data (`{text, match}` segments), never as HTML. `status` says whether the index is catching up.
   */
  search: storeProcedure
    .meta({ project: 'narrowed' })
    .input(
      z
        .object({
          q: z
            .string()
            .trim()
            .min(1, 'must not be empty')
            .refine((value) => [...value].length <= MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
          scope: z.enum(['active', 'archived', 'all']).optional(),
          limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
          cursor: cursorInput.nullish(),
          direction: z.enum(['forward', 'backward']).optional(),
        })
        .strict(),
    )
    .query(async ({ ctx, input: { direction: _direction, q, ...options } }) => {
      const page = await getSettledSearch(ctx.user.id).then((search) => search.search(q, options));
      const project = projectOf(ctx);
      // A project-limited token sees its project's hits only (a page may then hold fewer).
      return project === undefined ? page : { ...page, hits: page.hits.filter((hit) => ctx.store.sessionProjectId(hit.sessionId) === project) };
    }),

  /** The caller's index: ready, or catching up (a rebuild under way, sessions done of total). */
  searchStatus: storeProcedure.query(async ({ ctx }) => (await getUserSearch(ctx.user.id)).status),

  /** Empties the caller's index and rebuilds it from the sessions in the background; poll searchStatus. */
  reindex: storeProcedure.mutation(async ({ ctx }) => {
    const index = await getUserSearch(ctx.user.id);
    index.rebuild().catch((error: unknown) => console.error('[search] rebuild failed:', error));
    return index.status;
  }),
  /** `[{agent, wayIn, sessions}]`: who wrote the sessions of a scope (default all), one entry per agent whichever way in, most first. */
  agents: storeProcedure
    .input(z.object({ scope: z.enum(['active', 'archived', 'all']).optional() }).strict().optional())
    .query(({ ctx, input }) => ctx.store.listAgents(input ?? {})),

  /** The row plus headId, projectId, turnCount and workdirs. */
  get: sessionProcedure.input(z.object({ id: sessionIdInput }).strict()).query(({ ctx }) => ctx.store.getSession(ctx.sessionId)),

  /** A title here is a person's rename: it sets the lock on automatic titles. updatedAt is kept. */
  update: sessionProcedure
    .input(
      z
        .object({
          id: sessionIdInput,
          title: z
            .string()
            .trim()
            .min(1, 'must not be empty (use session.regenerateTitle for a model title)')
            .pipe(titleInput)
            .optional(),
          pinned: z.boolean().optional(),
          unread: z.boolean().optional(),
          group: labelInput().optional(),
          status: statusInput.optional(),
          tags: tagListInput.optional(),
          state: sessionStateInput.nullable().optional(),
        })
        .strict(),
    )
    .mutation(({ ctx, input: { id: _id, ...fields } }) => ctx.store.updateSession(ctx.sessionId, fields)),

  /** The model's title now, without the lock; PRECONDITION_FAILED when no model is configured. */
  regenerateTitle: sessionProcedure
    .input(z.object({ id: sessionIdInput }).strict())
    .mutation(({ ctx }) => ctx.store.regenerateTitle(ctx.sessionId)),

  /** A flag only: recency is kept, so unarchiving puts it back where it was. */
  setArchived: sessionProcedure
    .input(z.object({ id: sessionIdInput, archived: z.boolean() }).strict())
    .mutation(({ ctx, input }) => ctx.store.setArchived(ctx.sessionId, input.archived)),

  /** A running chat turn is stopped first (DESIGN §4.9). */
  delete: sessionProcedure.input(z.object({ id: sessionIdInput }).strict()).mutation(async ({ ctx }) => {
    await getChatDispatcher().stop(ctx.user.id, ctx.sessionId);
    return audited(ctx, 'session.delete', ctx.sessionId, () => ctx.store.deleteSession(ctx.sessionId));
  }),

  /** Ids not in the caller's store (someone else's included) come back in `missing`. */
  bulk: storeProcedure
    .input(z.object({ ids: z.array(sessionIdInput).min(1).max(1000), action: z.enum(BULK_ACTIONS) }).strict())
    .mutation(async ({ ctx, input }) => {
      // A few ids at a time: their registry records share log writes (lib/store/operations/bulk.ts).
      return runBulk(input.ids, (id) => applyBulk(ctx.store, ctx, id, input.action));
    }),

  /**
   * "Add <folder> as a project" (DESIGN §14): the folder an agent of this Home session worked in
   * becomes a project (inside the allowed roots, else FORBIDDEN) and the session moves into it.
   */
  addAgentFolder: sessionProcedure
    .input(z.object({ id: sessionIdInput }).strict())
    .mutation(({ ctx }) => ctx.store.addAgentFolderAsProject(ctx.sessionId)),

  fork: forkProcedure,
  replay: replayProcedure,

  /** Two branches (message ids `a`, `b`) from their common message: aligned rows with word differences, and each side's project changes (DESIGN §14). */
  compare: compareProcedure,

  /** Extra working directories (inside the allowed roots), changeable at any time. */
  setWorkdirs: sessionProcedure
    .input(z.object({ id: sessionIdInput, workdirs: z.array(pathInput).max(32) }).strict())
    .mutation(({ ctx, input }) => ctx.store.setWorkdirs(ctx.sessionId, input.workdirs)),
});
