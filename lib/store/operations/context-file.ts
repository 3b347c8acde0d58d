import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIR_MODE, atomicWriteFileSync } from '../../fs/atomic-write.js';
import { assertNodeId } from '../ids.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';

/**
 * `context/commits/<replyId>.json` (DESIGN §3): what was sent to the model for a reply, written
 * before the turn's commit so the commit holds it next to the reply it produced.
 */
export function writeContextFile(ctx: StoreContext, sessionId: string, replyId: string, context: unknown): Promise<void> {
  assertNodeId(replyId);
  return withSession(ctx, sessionId, (session) => {
    const dir = join(session.dir, 'context', 'commits');
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    // What was sent to the model (its system prompt, tools, messages): secrets out like every write (issue 27 item 7).
    const stored = ctx.redactor ? ctx.redactor({ content: context }).message.content : context;
    atomicWriteFileSync(join(dir, `${replyId}.json`), `${JSON.stringify(stored)}\n`);
  });
}
