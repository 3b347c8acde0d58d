import { PreconditionError } from '../errors.js';
import { branchMessages } from '../dag/branch.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import { type StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import { cleanModelTitle } from '../titles/truncate.js';
import { titleRequest } from '../titles/title-request.js';
import type { SessionRow } from '../types.js';

/** "Regenerate title": the model now, without the lock, so automatic titles go on. */
export async function regenerateTitle(ctx: StoreContext, sessionId: string): Promise<SessionRow> {
  const model = ctx.titleModel;
  const branch = await withSession(ctx, sessionId, (session) => {
    if (!model) throw new PreconditionError('no model is configured, so titles cannot be generated');
    return branchMessages(session.graph, session.meta.head_id);
  });
  if (branch.length === 0) throw new PreconditionError('the session has no messages to title');
  const title = cleanModelTitle(await model!.complete(titleRequest(branch, false)));
  if (title === '') throw new PreconditionError('the model returned an empty title');
  return withSession(ctx, sessionId, async (session) => {
    const entry = await updateSessionFields(ctx, session, {
      title,
      _user_titled: false,
      _auto_titled: true,
      _title_gen_count: (session.meta._title_gen_count ?? 0) + 1,
    });
    return toRow(ctx, entry);
  });
}

