import { statSync } from 'node:fs';
import { readJsonFile, userStatePath, writeJsonFile } from '../fs/user-state-file.js';
import { prefixedId } from '../proxy/session-identity.js';
import type { ResumeAgent } from './resume-fingerprints.js';

/**
 * A conversation handed to an agent to continue (DESIGN §14 "Resume in the agent"): the agent's
 * new session id, the session and node it continues, and the fingerprints of the history it
 * was given, so the proxy records the continued run as a branch of that session from that node.
 */
export interface ResumeLink {
  agent: ResumeAgent;
  /** the id the agent knows the resumed run by (the transcript's file name) */
  agentSessionId: string;
  sessionId: string;
  nodeId: string;
  turn: number;
  createdAt: number;
  /** [chained fingerprint, node id] of each message written, oldest first */
  fingerprints: [string, string][];
}

/** Links kept per user: the newest; an older resume's run is then recorded as a session of its own. */
export const MAX_RESUME_LINKS = 100;

const FILE = 'resume-links.json';

/** The file as last read, by path: the proxy asks on every exchange, the file changes only when a resume is written. */
const cache = new Map<string, { mtimeMs: number; size: number; links: ResumeLink[] }>();

function isLink(value: unknown): value is ResumeLink {
  const link = value as ResumeLink | null;
  return (
    typeof link === 'object' &&
    link !== null &&
    (link.agent === 'claude' || link.agent === 'codex') &&
    typeof link.agentSessionId === 'string' &&
    typeof link.sessionId === 'string' &&
    typeof link.nodeId === 'string' &&
    Array.isArray(link.fingerprints)
  );
}

/** A user's resume links, newest last. */
export function readResumeLinks(dataDir: string, userId: string): ResumeLink[] {
  const path = userStatePath(dataDir, userId, FILE);
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  const known = cache.get(path);
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.links;
  const value = readJsonFile(path);
  const links = Array.isArray(value) ? value.filter(isLink) : [];
  cache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, links });
  return links;
}

export function addResumeLink(dataDir: string, userId: string, link: ResumeLink): void {
  const links = [...readResumeLinks(dataDir, userId).filter((item) => item.agentSessionId !== link.agentSessionId), link].slice(-MAX_RESUME_LINKS);
  const path = userStatePath(dataDir, userId, FILE);
  writeJsonFile(path, links);
  cache.delete(path);
}

/** The session the recording proxy would give the resumed run by its own id (`cc-<id>`, `codex-<id>`). */
export function proxySessionIdOf(link: Pick<ResumeLink, 'agent' | 'agentSessionId'>): string {
  return prefixedId(link.agent === 'claude' ? 'cc' : 'codex', link.agentSessionId);
}

/** Where a resumed request continues: the link, the index of the last request step it recognises, and that step's node. */
export interface ResumeMatch {
  link: ResumeLink;
  stepIndex: number;
  nodeId: string;
  fingerprint: string;
}

/**
 * The link a request of a resumed run belongs to: the one its agent session id names (the
 * agent kept the id it was given), else one whose whole history the request holds (the agent
 * gave the run a new id). The request's last step that is a message of that history is where
 * the new part hangs.
 */
export function matchResume(links: readonly ResumeLink[], proxySessionId: string | null, chain: readonly (string | null)[]): ResumeMatch | null {
  // Without the id, only the whole history says it: a new conversation may well begin with the same prompt.
  const held = new Set(chain);
  const link =
    links.findLast((item) => proxySessionId !== null && proxySessionIdOf(item) === proxySessionId) ??
    links.findLast((item) => item.fingerprints.length > 0 && held.has(item.fingerprints.at(-1)![0]));
  if (!link) return null;
  const nodeOf = new Map(link.fingerprints);
  for (let i = chain.length - 1; i >= 0; i--) {
    const fingerprint = chain[i];
    const nodeId = fingerprint ? nodeOf.get(fingerprint) : undefined;
    if (fingerprint && nodeId) return { link, stepIndex: i, nodeId, fingerprint };
  }
  return null;
}
