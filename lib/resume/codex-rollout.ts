import { resultText, type ResumeEntry } from './conversation.js';

export interface CodexRolloutOptions {
  /** the new Codex thread id (a UUID): session_meta's id and the file name's tail */
  agentSessionId: string;
  /** the folder Codex will run in */
  cwd: string;
  /** when the file is written (its folder and name are that day and time) */
  now: Date;
}

type Json = Record<string, unknown>;

const pad = (value: number): string => String(value).padStart(2, '0');

/**
 * `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl` under `$CODEX_HOME` (IMPORT.md
 * §2): Codex names the file in local time, as it does its own.
 */
export function codexRolloutPath(agentSessionId: string, now: Date): string {
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return `sessions/${now.getFullYear()}/${pad(now.getMonth() + 1)}/${pad(now.getDate())}/rollout-${day}T${time}-${agentSessionId}.jsonl`;
}

/** The conversation as Responses input items, as Codex sends a resumed thread (calls after the message that made them). */
export function responsesItems(entries: readonly ResumeEntry[]): Json[] {
  const items: Json[] = [];
  for (const entry of entries) {
    if (entry.role === 'user') {
      items.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: entry.text }] });
      continue;
    }
    if (entry.text !== '') items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: entry.text }] });
    for (const call of entry.calls) {
      items.push({ type: 'function_call', name: call.name, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}), call_id: call.id });
      items.push({ type: 'function_call_output', call_id: call.id, output: resultText(call) });
    }
  }
  return items;
}

/**
 * The branch as a Codex rollout: session_meta, then each prompt as a user response_item with its
 * user_message event (the pair Codex writes), each model message and call as response_items.
 * The inverse of lib/import/codex.ts.
 */
export function codexRollout(entries: readonly ResumeEntry[], options: CodexRolloutOptions): string {
  const lines: string[] = [];
  const at = (ms: number): string => new Date(ms).toISOString();
  const push = (timestamp: string, type: string, payload: Json): void => {
    lines.push(JSON.stringify({ timestamp, type, payload }));
  };
  const started = options.now.toISOString();
  // No model_provider: Codex refuses to resume a thread under a provider other than the one it names,
  // and the user's own configuration (the recording proxy's provider) is the one it should take.
  push(started, 'session_meta', { id: options.agentSessionId, timestamp: started, cwd: options.cwd, originator: 'codex_cli_rs', cli_version: '0.0.0', instructions: null, source: 'cli' });
  let model: string | null = null;
  const items = responsesItems(entries);
  let item = 0;
  for (const entry of entries) {
    const time = at(entry.createdAt);
    if (entry.role === 'assistant' && entry.model && entry.model !== model) {
      model = entry.model;
      push(time, 'turn_context', { cwd: options.cwd, approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model, summary: 'auto' });
    }
    const count = entry.role === 'user' ? 1 : (entry.text !== '' ? 1 : 0) + entry.calls.length * 2;
    for (const payload of items.slice(item, item + count)) push(time, 'response_item', payload);
    item += count;
    if (entry.role === 'user') push(time, 'event_msg', { type: 'user_message', message: entry.text, images: [] });
    else if (entry.text !== '') push(time, 'event_msg', { type: 'agent_message', message: entry.text });
  }
  return `${lines.join('\n')}\n`;
}
