import type { APIRequestContext } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, mutate, type FinalizeTurnResult, type Message } from '../fixtures';

/** Turns seeded through the API as an agent would make them: begin, messages, file writes, finalize. */
export interface SeededTurn {
  user: Message;
  reply: Message;
  result: FinalizeTurnResult;
}

export async function agentTurn(
  api: APIRequestContext,
  sessionId: string,
  question: string,
  options: { projectDir?: string; files?: Record<string, string>; parentId?: string } = {},
): Promise<SeededTurn> {
  const begun = await mutate(api, 'turn.begin', { sessionId });
  if (begun.status !== 200) throw new Error(`turn.begin failed: ${JSON.stringify(begun.body)}`);
  const user = await appendMessage(api, sessionId, { role: 'user', content: question, ...(options.parentId ? { parentId: options.parentId } : {}) });
  const files = options.files ?? {};
  for (const [path, content] of Object.entries(files)) writeFileSync(join(options.projectDir!, path), content);
  const reply = await appendMessage(api, sessionId, { role: 'assistant', content: `Done: ${question}\nDetails follow.` });
  const finalized = await mutate<FinalizeTurnResult>(api, 'turn.finalize', { sessionId, writtenPaths: Object.keys(files), model: 'e2e-model' });
  if (finalized.status !== 200) throw new Error(`turn.finalize failed: ${JSON.stringify(finalized.body)}`);
  return { user, reply, result: finalized.data };
}
