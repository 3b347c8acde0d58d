import type { StoreContext } from '../session/store-context.js';
import { moveFromHome } from '../operations/add-agent-folder.js';
import { placeOfAgent } from '../operations/agent-project.js';
import { importSession, type ImportSessionInput, type ImportSessionResult } from '../operations/import-session.js';
import { linkImportedProjectCommits } from '../operations/imported-project-commits.js';

/** A transcript imported, then given its project: an extra, so a failure there leaves the import as it is. */
export async function importIntoProject(ctx: StoreContext, input: ImportSessionInput): Promise<ImportSessionResult> {
  const result = await importSession(ctx, input);
  await linkImportedProjectCommits(ctx, input.id, {
    projectHolding: async (folder) => (await placeOfAgent(ctx, { cwd: folder })).projectId,
    moveFromHome: (id, projectId) => moveFromHome(ctx, id, projectId),
  }).catch(() => undefined);
  return result;
}
