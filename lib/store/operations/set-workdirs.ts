import { InvalidInputError } from '../errors.js';
import { type StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import type { SessionRow } from '../types.js';
import { updateSessionFields, withSession } from '../session/session-access.js';

/**
 * Additional working directories: unlike the project folder they may change at any time; each
 * must be an existing directory inside the allowed roots (checked on its real path).
 */
export async function setWorkdirs(ctx: StoreContext, sessionId: string, workdirs: string[]): Promise<SessionRow> {
  if (!Array.isArray(workdirs) || workdirs.some((dir) => typeof dir !== 'string' || dir === '')) {
    throw new InvalidInputError('workdirs must be a list of directory paths');
  }
  return withSession(ctx, sessionId, async (session) => {
    const real = await ctx.projects.checkWorkdirs(workdirs);
    await updateSessionFields(ctx, session, { workdirs: [...new Set(real)] });
    return toRow(ctx, ctx.registry.get(sessionId)!);
  });
}
