import { AGENT_EMAIL, parseAgentTrailers } from '../commit-message.js';

/** Who made a commit that blame names: the agent (with our trailers) or a person. */

export interface GitBlameCommit {
  sha: string;
  by: 'agent' | 'person';
  /** the model the agent commit names (`agent (<model> via Entity Memory)`), else its author name */
  agent: string | null;
  sessionId: string | null;
  turn: number | null;
}

/** A commit from its author (as mailmapped, the way blame shows it) and, for the agent's, the trailers of its message. */
export function agentCommit(sha: string, name: string, email: string, trailers: string): GitBlameCommit {
  if (email !== AGENT_EMAIL) return { sha, by: 'person', agent: null, sessionId: null, turn: null };
  return { sha, by: 'agent', agent: modelOfAgentName(name), ...parseAgentTrailers(trailers) };
}

/** `agent (<model> via Entity Memory)` (or via OpenProgram, in older repos) → the model; anything else as it is. */
export function modelOfAgentName(name: string): string {
  const match = /^agent \((.*?) ?via (?:Entity Memory|OpenProgram)\)$/.exec(name);
  return match ? (match[1] || 'agent') : name;
}
