import { createHash, randomUUID } from 'node:crypto';

/**
 * A UUID (version 4 layout) made from a seed: the same conversation written twice gets the same
 * line ids, and each line's id is unique within the file. Both agents check that their ids look
 * like UUIDs.
 */
export function uuidFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A new agent session id: the resumed run is a session of its own to the agent. */
export function newAgentSessionId(): string {
  return randomUUID();
}
