import { branchMessages } from '../dag/branch.js';
import { contentOf } from '../dag/node-content.js';
import { runInBackground, type OpenSession, type StoreContext } from './store-context.js';
import { cleanModelTitle, titleFromText } from '../titles/truncate.js';
import { isAgentSession, RETITLE_AT_TURNS } from '../titles/title-model.js';
import { titleRequest } from '../titles/title-request.js';
import { updateSessionFields, withSession } from './session-access.js';

/**
 * _maybe_auto_title of the seeds, run at the end of finalize: phase 1 (truncation) at turn 1,
 * phase 2 (the model) in the background after turns 1, 6, 16 and 40 of the current branch.
 * _user_titled stops both for good. An agent's session gets phase 2 only with `titleAgentSessions`.
 */
export async function maybeAutoTitle(ctx: StoreContext, session: OpenSession): Promise<void> {
  if (session.meta._user_titled) return;
  // Count first: building the branch's messages is the expensive part, needed only at a threshold.
  const turn = session.graph.userCountTo(session.meta.head_id);
  if (!RETITLE_AT_TURNS.includes(turn)) return;
  // From memory: a title needs the first characters of each message, not files of a megabyte.
  const branch = branchMessages(session.graph, session.meta.head_id, undefined, 'memory');
  const lastTitledTurn = typeof session.meta['_title_turn'] === 'number' ? (session.meta['_title_turn'] as number) : 0;
  if (turn <= lastTitledTurn) return;

  let phaseOneTitle: string | null = null;
  if (turn === 1 || !session.meta._auto_titled) {
    const firstUser = branch.find((message) => message.role === 'user');
    // Whole: attachment markers to strip may run past a stub's first characters.
    const firstNode = firstUser ? session.graph.get(firstUser.id) : undefined;
    phaseOneTitle = titleFromText(firstNode ? contentOf(session.graph.full(firstNode)) : '');
    await updateSessionFields(ctx, session, {
      title: phaseOneTitle,
      _auto_titled: true,
      _title_gen_count: Math.max(1, session.meta._title_gen_count ?? 0),
      _title_turn: turn,
    });
  } else {
    await updateSessionFields(ctx, session, { _title_turn: turn }, { writeNow: false });
  }
  const model = ctx.titleModel;
  if (!model) return;
  if (!ctx.titleAgentSessions && isAgentSession(session.meta)) return;
  const request = titleRequest(branch, phaseOneTitle !== null);
  runInBackground(
    ctx,
    model
      .complete(request)
      .then((raw) => applyModelTitle(ctx, session.id, cleanModelTitle(raw), phaseOneTitle))
      .catch(() => undefined), // a failed title leaves the truncated one; the user is not bothered
  );
}

/** The race check of phase 2: a rename (or, the first time, any change of the title) wins. */
function applyModelTitle(ctx: StoreContext, sessionId: string, title: string, phaseOneTitle: string | null): Promise<void> {
  if (title === '') return Promise.resolve();
  return withSession(ctx, sessionId, async (session) => {
    if (session.meta._user_titled) return;
    if (phaseOneTitle !== null && session.meta.title !== phaseOneTitle) return;
    await updateSessionFields(ctx, session, {
      title,
      _auto_titled: true,
      _title_gen_count: (session.meta._title_gen_count ?? 0) + 1,
    });
  }).catch(() => undefined); // deleted meanwhile: nothing to title
}
