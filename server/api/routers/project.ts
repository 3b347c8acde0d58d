import { z } from 'zod';
import { createTRPCRouter, sessionProcedure, storeProcedure } from '../trpc';
import { projectBlame, projectFiles } from '@/lib/store/index';
import { commitIdInput, labelInput, limitInput, pathInput, projectIdInput, sessionIdInput } from '../schemas';

/** Projects: folders inside the caller's allowed roots, each with its own git repository. */
export const projectRouter = createTRPCRouter({
  /** `[{id, name, path, isDefault, pathMissing, sessionCount, autoCommit}]`, Home first. */
  list: storeProcedure.query(({ ctx }) => ctx.store.listProjects()),

  /** Where project folders may be: the workspace root (Home) first, then the roots an admin added. */
  roots: storeProcedure.query(({ ctx }) => ({ roots: [...ctx.store.allowedRoots] })),

  /** What create would do with this folder: `{path, exists, isRepository, projectId, initBlockers}`; outside the roots FORBIDDEN. */
  inspect: storeProcedure
    .input(z.object({ path: pathInput }).strict())
    .query(({ ctx, input }) => ctx.store.inspectProject(input.path)),

  /**
   * `path` absolute or relative to the workspace root; the same folder always gives the same project.
   * A missing folder is created and a folder without a repository gets `git init` (see project.inspect).
   */
  create: storeProcedure
    .input(z.object({ path: pathInput, name: labelInput().optional() }).strict())
    .mutation(({ ctx, input }) => ctx.store.createProject(input.path, input.name)),

  /**
   * Repairs a project whose folder moved (same id, new path); the session that asked gets a
   * project/relocate record. Not a session procedure: sessionId is optional, and the store
   * answers an unknown one with the same NOT_FOUND before changing anything.
   */
  relocate: storeProcedure
    .input(z.object({ id: projectIdInput, path: pathInput, sessionId: sessionIdInput.optional() }).strict())
    .mutation(({ ctx, input }) => ctx.store.relocateProject(input.id, input.path, input.sessionId)),

  /** Registry only: the folder and its history stay. */
  unregister: storeProcedure
    .input(z.object({ id: projectIdInput }).strict())
    .mutation(({ ctx, input }) => ctx.store.unregisterProject(input.id)),

  setAutoCommit: storeProcedure
    .input(z.object({ id: projectIdInput, on: z.boolean() }).strict())
    .mutation(({ ctx, input }) => ctx.store.setProjectAutoCommit(input.id, input.on)),

  /** A draft may pick any project; after the first turn only the same one (else CONFLICT). */
  setForSession: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, projectId: projectIdInput }).strict())
    .mutation(({ ctx, input }) => ctx.store.setSessionProject(ctx.sessionId, input.projectId)),

  /** The agent's commits in the project, newest first. */
  commits: storeProcedure
    .input(z.object({ id: projectIdInput, limit: limitInput.optional() }).strict())
    .query(({ ctx, input }) => ctx.store.projectCommits(input.id, input.limit)),

  /** One project commit's patch: `{files: [{path, status, patch, truncated}]}`, read by the hardened git CLI. */
  commitDiff: storeProcedure
    .input(z.object({ id: projectIdInput, sha: commitIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.projectCommitDiff(input.id, input.sha)),

  /**
   * DESIGN §14: per line of the file at `rev` (default HEAD) `{line, text, sha, sessionId?, turn?, agent?, prompt?, messageId?, by}`.
   * A path outside the project BAD_REQUEST, no such file NOT_FOUND, a binary file BAD_REQUEST, over 20,000 lines PAYLOAD_TOO_LARGE.
   */
  blame: storeProcedure
    .input(z.object({ projectId: projectIdInput, path: pathInput, rev: z.string().min(1).max(200).optional() }).strict())
    .query(({ ctx, input }) => projectBlame(ctx.store, input)),

  /** The file view's list: `{rev, files, truncated}`, the paths of the project's files at `rev` (default HEAD), at most 5,000. */
  files: storeProcedure
    .input(z.object({ projectId: projectIdInput, rev: z.string().min(1).max(200).optional() }).strict())
    .query(({ ctx, input }) => projectFiles(ctx.store, input)),
});
