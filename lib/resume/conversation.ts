import type { BranchMessage } from '../store/index.js';

/** One tool call of an assistant message, with the result that came back for it. */
export interface ResumeCall {
  id: string;
  name: string;
  input: unknown;
  /** null: no result was recorded (the agent is told so, as the agents themselves do) */
  result: string | null;
  isError: boolean;
}

/**
 * The conversation up to the resumed turn as both agents' transcripts need it: a person's
 * messages and the model's, each model message with its tool calls and their results.
 */
export type ResumeEntry =
  | { role: 'user'; nodeId: string; text: string; createdAt: number }
  | { role: 'assistant'; nodeId: string; text: string; model: string; createdAt: number; calls: ResumeCall[] };

const NO_RESULT = '[no result was recorded for this call]';

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/** The id a call had on the wire (kept, so a tool_result pairs with it), else one made from the node. */
function callIdOf(tool: BranchMessage['toolCalls'][number]): string {
  const wire = tool.metadata['tool_call_id'];
  return typeof wire === 'string' && wire !== '' ? wire : `toolu_${tool.id}`;
}

/**
 * The branch's user and assistant messages, oldest first; records (settings, compaction notes)
 * stay out: the agent gets what was said and done, not our bookkeeping.
 */
export function resumeEntries(branch: readonly BranchMessage[]): ResumeEntry[] {
  const entries: ResumeEntry[] = [];
  for (const message of branch) {
    if (message.role === 'user') {
      entries.push({ role: 'user', nodeId: message.id, text: message.content, createdAt: message.createdAt });
    } else if (message.role === 'assistant') {
      const results = message.toolCalls.map((tool) => ({
        id: callIdOf(tool),
        name: tool.name || 'tool',
        input: tool.input ?? {},
        result: tool.content === '' && tool.metadata['noResult'] === true ? null : textOf(tool.content),
        isError: tool.metadata['is_error'] === true,
      }));
      const calls = inWireOrder(message.metadata['tool_calls'], results);
      const model = typeof message.metadata['model'] === 'string' && message.metadata['model'] !== '' ? message.metadata['model'] : message.name;
      entries.push({ role: 'assistant', nodeId: message.id, text: message.content, model, createdAt: message.createdAt, calls });
    }
  }
  return entries;
}

/**
 * A proxied reply keeps its calls as the model made them (`metadata.tool_calls`): that order and
 * those arguments are the message's identity, so they lead; a call whose result never came is
 * still part of what the model said. Calls of other ways in (chat, import) are the tool nodes.
 */
function inWireOrder(recorded: unknown, results: ResumeCall[]): ResumeCall[] {
  if (!Array.isArray(recorded) || recorded.length === 0) return results;
  const byId = new Map(results.map((call) => [call.id, call]));
  const calls: ResumeCall[] = [];
  for (const item of recorded as { id?: unknown; name?: unknown; arguments?: unknown }[]) {
    const id = typeof item.id === 'string' ? item.id : '';
    const found = byId.get(id);
    byId.delete(id);
    calls.push(found ?? { id: id || `toolu_${calls.length}`, name: typeof item.name === 'string' ? item.name : 'tool', input: parseArguments(item.arguments), result: null, isError: false });
  }
  return [...calls, ...byId.values()];
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export function resultText(call: ResumeCall): string {
  return call.result ?? NO_RESULT;
}
