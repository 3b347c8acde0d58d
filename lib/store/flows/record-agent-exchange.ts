import { DEFAULT_PROJECT_ID } from '../ids.js';
import { noteAgentFolder } from '../session/agent-folder.js';
import type { StoreContext } from '../session/store-context.js';
import { moveFromHome } from '../operations/add-agent-folder.js';
import { placeOfAgent, type AgentWhereabouts } from '../operations/agent-project.js';
import { finalizeTurn, type FinalizeTurnResult } from '../operations/commit-turn.js';
import { createSession } from '../operations/create-session.js';
import { recordExchange, type RecordExchangeInput, type RecordExchangeResult } from '../operations/record-exchange.js';

export interface AgentExchangeOptions {
  source: string;
  agentId: string;
  status?: 'idle' | 'failed' | 'cancelled';
  model?: string;
  where?: AgentWhereabouts;
  answerEndedAt?: number;
}

/**
 * A model exchange seen by the recording proxy: the session created when it is new (in the
 * project the agent worked in), its new nodes in place (DESIGN §12), then one turn commit with
 * the exchange's status and the agent's project folder committed as it stands (DESIGN §14).
 */
export async function recordAgentExchange(ctx: StoreContext, input: RecordExchangeInput, options: AgentExchangeOptions): Promise<RecordExchangeResult & FinalizeTurnResult & { created: boolean }> {
  // Where the agent worked matters only for a new session (its project) or one in Home (the offer to add the folder).
  const existing = ctx.registry.get(input.sessionId);
  const place = options.where && (!existing || existing.project_id === DEFAULT_PROJECT_ID) ? await placeOfAgent(ctx, options.where) : null;
  const { created } = await createSession(ctx, { id: input.sessionId, source: options.source, agentId: options.agentId, ...(place?.projectId ? { projectId: place.projectId } : {}) });
  if (ctx.registry.get(input.sessionId)?.project_id === DEFAULT_PROJECT_ID) {
    // Begun in Home (an agent's first call named no folder, or the folder became a project since): moved, as "Add … as a project" would.
    if (place?.projectId) await moveFromHome(ctx, input.sessionId, place.projectId);
    else if (place?.folder) await noteAgentFolder(ctx, input.sessionId, place.folder);
  }
  const recorded = await recordExchange(ctx, input);
  // The agent ran its tools itself: its project folder is committed as it stands.
  const agentExchange = { callsTools: (input.reply?.toolCalls?.length ?? 0) > 0, answerEndedAt: options.answerEndedAt };
  const turn = await finalizeTurn(ctx, input.sessionId, { status: options.status ?? 'idle', model: options.model, agentExchange });
  return { ...recorded, ...turn, created };
}
