import type { SessionRow } from './session-types';

type WayIn = SessionRow['wayIn'];

/**
 * Who wrote a session, in words: the agent's name, the same whichever way its sessions came in
 * ("Claude Code" recorded, imported or through the API). Null when nobody was named (the person's
 * own chat, a client that said nothing): "main" would tell a reader nothing.
 */
export function agentLabel(row: Pick<SessionRow, 'agentName'>): string | null {
  return row.agentName;
}

const WAY_IN_WORDS: Record<WayIn, string | null> = { 'web chat': null, API: 'API', imported: 'imported', recorded: 'recorded' };

/** How the session came in, said beside the agent (nothing for the person's own web chat). */
export function wayInLabel(row: Pick<SessionRow, 'wayIn'>): string | null {
  return WAY_IN_WORDS[row.wayIn];
}

/** The row's line under its title: the agent and how it came in, e.g. "Claude Code · imported". */
export function writerLine(row: Pick<SessionRow, 'agentName' | 'wayIn'>): string | null {
  const parts = [agentLabel(row), wayInLabel(row)].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(' · ') : null;
}
