import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNodeId } from '../ids.js';
import type { StoreContext } from '../session/store-context.js';
import { openSession } from '../session/session-access.js';

export interface ReplyContext {
  /** context/commits/<replyId>.json as written (redacted), or null when the reply has none */
  context: Record<string, unknown> | null;
  /** the system prompt it names by hash (context/system/<sha256>.txt), or null */
  system: string | null;
}

const SHA256 = /^[0-9a-f]{64}$/;

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * What was sent to the model for one reply (DESIGN §3 context/): its context file and the system
 * prompt kept by hash. A read: no lock, an unknown session NOT_FOUND, a reply without a file null.
 */
export async function readReplyContext(ctx: StoreContext, sessionId: string, replyId: string): Promise<ReplyContext> {
  assertNodeId(replyId);
  const dir = openSession(ctx, sessionId).dir;
  const text = await readOrNull(join(dir, 'context', 'commits', `${replyId}.json`));
  let context: Record<string, unknown> | null = null;
  try {
    const parsed = text === null ? null : (JSON.parse(text) as unknown);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) context = parsed as Record<string, unknown>;
  } catch {
    context = null;
  }
  const hash = context?.['system'];
  const system = typeof hash === 'string' && SHA256.test(hash) ? await readOrNull(join(dir, 'context', 'system', `${hash}.txt`)) : null;
  return { context, system };
}
