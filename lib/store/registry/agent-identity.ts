/**
 * Who wrote a session and how it came in, as two facts (issue 28 item 4): every way in names an
 * agent the same ("Claude Code", whether recorded by the proxy, imported or written through the
 * API), and the way in ("recorded", "imported", "API", "web chat") is said beside it. Derived from
 * the row's `agentId` and `source` (DESIGN §5), so sessions written before this read alike too.
 */

import type { WayIn } from '../types.js';

export interface AgentIdentity {
  /** the agent's name, one per agent whichever way its sessions came; null: nobody was named (the person's own chat, or a client that said nothing) */
  name: string | null;
  wayIn: WayIn;
  /** what the Chats page's agent filter lists and `session.list {agent}` takes: the name, or who wrote it when there is none */
  group: string;
}

/** Agents by the id they go by in an `agentId`, an importer's `source` or after `proxy:`. */
const AGENT_NAMES: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  chatgpt: 'ChatGPT',
  openprogram: 'OpenProgram',
  anthropic: 'Anthropic SDK',
  'anthropic-sdk': 'Anthropic SDK',
  openai: 'OpenAI SDK',
  'openai-sdk': 'OpenAI SDK',
};

/** The `source` each importer writes (lib/import, the OpenProgram state importer). */
const IMPORT_SOURCES = new Set(['claude-code', 'codex', 'chatgpt', 'openprogram']);
const RECORDED_PREFIX = 'proxy:';
/** The agent id a session gets when its writer named none. */
const DEFAULT_AGENT = 'main';

export const WEB_CHAT_GROUP = 'You, in the web chat';
export const UNNAMED_GROUP = 'Unnamed agent';

const nameOf = (id: string): string => AGENT_NAMES[id.toLowerCase()] ?? id;
const named = (agentId: string): boolean => agentId !== '' && agentId !== DEFAULT_AGENT;

function identify(agentId: string, source: string): AgentIdentity {
  let name: string | null;
  let wayIn: WayIn;
  if (source.startsWith(RECORDED_PREFIX)) {
    wayIn = 'recorded';
    const agent = source.slice(RECORDED_PREFIX.length);
    name = agent !== '' ? nameOf(agent) : named(agentId) ? nameOf(agentId) : null;
  } else if (IMPORT_SOURCES.has(source)) {
    wayIn = 'imported';
    name = nameOf(source);
  } else if (source === 'web') {
    wayIn = 'web chat';
    name = named(agentId) ? nameOf(agentId) : null;
  } else {
    // Anything else came through the API (curl, a script, an SDK): the agent it named, else the source it gave.
    wayIn = 'API';
    name = named(agentId) ? nameOf(agentId) : source !== '' ? nameOf(source) : null;
  }
  return { name, wayIn, group: name ?? (wayIn === 'web chat' ? WEB_CHAT_GROUP : UNNAMED_GROUP) };
}

// A store holds few distinct (agentId, source) pairs and lists 100,000 rows: each pair is worked out once.
const known = new Map<string, Map<string, AgentIdentity>>();
const MAX_REMEMBERED = 10_000;
let remembered = 0;

export function agentIdentity(agentId: string, source: string): AgentIdentity {
  const agent = agentId.trim();
  const from = source.trim();
  let bySource = known.get(agent);
  const hit = bySource?.get(from);
  if (hit) return hit;
  if (remembered >= MAX_REMEMBERED) {
    known.clear();
    remembered = 0;
    bySource = undefined;
  }
  if (!bySource) known.set(agent, (bySource = new Map()));
  const identity = identify(agent, from);
  bySource.set(from, identity);
  remembered++;
  return identity;
}
