/**
 * What an agent commit in a project repo says about itself (DESIGN §4.8): author and committer
 * `agent (<model> via Entity Memory) <agent@openprogram.local>` (the name says our product; the
 * address stays, so that a `git log --author` of older repos still finds every agent commit), the subject
 * `[agent <sessionId>] turn <N>: <first 60 characters of the user message>`, and trailers that
 * let the timeline find the session and turn again.
 */

export const AGENT_EMAIL = 'agent@openprogram.local';
const SESSION_TRAILER = 'OpenProgram-Session';
const TURN_TRAILER = 'OpenProgram-Turn';
/** Who commits the baseline of a folder that Entity Memory initialised (not the agent, not the user); the address as before. */
export const BASELINE_IDENTITY = { name: 'Entity Memory', email: 'openprogram@local' } as const;

const SUBJECT_CHARS = 60;

/** The agent's git name for a model (none when the agent did not say it); characters git refuses in an ident are dropped. */
export function agentName(model: string | null | undefined): string {
  const cleaned = Array.from((model ?? '').replace(/[<>\r\n\0]/g, '').trim()).slice(0, 100).join('');
  return cleaned ? `agent (${cleaned} via Entity Memory)` : 'agent (via Entity Memory)';
}

/** First line of the trimmed message, at most 60 code points (never half a surrogate pair). */
export function messageLabel(userMessage: string | null | undefined): string {
  const firstLine = (userMessage ?? '').trim().split(/\r?\n|\r/, 1)[0] ?? '';
  return Array.from(firstLine.trimEnd()).slice(0, SUBJECT_CHARS).join('');
}

export function agentCommitMessage(sessionId: string, turn: number, userMessage: string | null | undefined): string {
  const label = messageLabel(userMessage);
  const subject = `[agent ${sessionId}] turn ${turn}${label ? `: ${label}` : ''}`;
  return `${subject}\n\n${SESSION_TRAILER}: ${sessionId}\n${TURN_TRAILER}: ${turn}\n`;
}

/** `OpenProgram-Session` and `OpenProgram-Turn` from a commit body (last occurrence wins). */
export function parseAgentTrailers(body: string): { sessionId: string | null; turn: number | null } {
  let sessionId: string | null = null;
  let turn: number | null = null;
  for (const line of body.split(/\r?\n/)) {
    const match = /^([A-Za-z0-9-]+):\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const key = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (key === SESSION_TRAILER.toLowerCase() && value) sessionId = value;
    if (key === TURN_TRAILER.toLowerCase() && /^\d{1,9}$/.test(value)) turn = Number(value);
  }
  return { sessionId, turn };
}
