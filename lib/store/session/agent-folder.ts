import { isAbsolute } from 'node:path';
import { isInsideAny, realpathOrNull } from '../../fs/real-path.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import type { StoreContext } from './store-context.js';
import { updateSessionFields, withSession } from './session-access.js';

/** The meta.json field of the folder an agent in Home worked in. */
export const AGENT_FOLDER_KEY = 'agent_folder';

/** Keep the folder an agent of a session in Home worked in (written only when it changed). */
export function noteAgentFolder(ctx: StoreContext, sessionId: string, folder: string): Promise<void> {
  return withSession(ctx, sessionId, async (session) => {
    if (ctx.registry.get(sessionId)?.project_id !== DEFAULT_PROJECT_ID) return;
    if (session.meta[AGENT_FOLDER_KEY] === folder) return;
    await updateSessionFields(ctx, session, { [AGENT_FOLDER_KEY]: folder }, { writeNow: false });
  });
}

/** What the session page offers for an agent's folder: the folder, and whether the user may add it as a project. */
export async function agentFolderOffer(ctx: StoreContext, projectId: string, folder: unknown): Promise<{ path: string; addable: boolean } | null> {
  if (projectId !== DEFAULT_PROJECT_ID || typeof folder !== 'string' || !isAbsolute(folder)) return null;
  const real = await realpathOrNull(folder);
  const home = await realpathOrNull(ctx.projects.workspaceRoot);
  // The workspace root is Home itself; a folder gone or outside the roots cannot be added.
  const addable = real !== null && real !== home && (await isInsideAny(real, ctx.projects.allowedRoots));
  return { path: folder, addable };
}
