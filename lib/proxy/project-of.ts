import type { ParsedRequest } from './types.js';

/**
 * Which folder an agent's exchange worked in (DESIGN §14 "Which project"), read from the request
 * alone: the `x-entity-memory-project` header (a project id or a folder) first, else the agent's
 * working directory as the agent itself states it. Pure: the store maps the answer onto the
 * user's registered projects (lib/store/operations/agent-project.ts).
 */

export const PROJECT_HEADER = 'x-entity-memory-project';

/** What a request says of where its agent worked; the server's store decides the project. */
export interface Whereabouts {
  /** the header as sent: a project id or a folder */
  header: string | null;
  /** the agent's working directory, an absolute path */
  cwd: string | null;
}

/** A header value longer than this names no folder or project id of ours. */
const MAX_HINT_CHARS = 4096;

// Claude Code: " - Primary working directory: /path" in its system prompt (older versions: "Working directory: /path").
const CLAUDE_CWD = /^[ \t]*(?:-[ \t]*)?(?:Primary working directory|Working directory):[ \t]*(\S[^\r\n]*?)[ \t]*$/m;
// Codex: `<cwd>/path</cwd>` inside the `<environment_context>` it puts into a user message.
const CODEX_CWD = /<environment_context>[\s\S]*?<cwd>([^<\r\n]+)<\/cwd>[\s\S]*?<\/environment_context>/;

/** An absolute POSIX path with no NUL: anything else is not a working directory we can use. */
function absolutePath(text: string | undefined): string | null {
  const path = text?.trim();
  if (!path || path.length > MAX_HINT_CHARS || !path.startsWith('/') || path.includes('\0')) return null;
  return path;
}

/** The working directory the agent announced in this request, or null. The newest statement wins. */
export function agentWorkingDirectory(parsed: Pick<ParsedRequest, 'system' | 'steps'>): string | null {
  for (let i = parsed.steps.length - 1; i >= 0; i--) {
    const step = parsed.steps[i]!;
    if (step.role !== 'user') continue;
    for (const text of [...step.reminders].reverse()) {
      const found = absolutePath(CODEX_CWD.exec(text)?.[1]);
      if (found) return found;
    }
  }
  return absolutePath(CLAUDE_CWD.exec(parsed.system ?? '')?.[1]);
}

/** The header (any client may send it) and the agent's own statement of its working directory. */
export function whereaboutsOf(header: string | string[] | undefined, parsed: Pick<ParsedRequest, 'system' | 'steps'> | null): Whereabouts {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return {
    header: value && value.length <= MAX_HINT_CHARS && !value.includes('\0') ? value : null,
    cwd: parsed ? agentWorkingDirectory(parsed) : null,
  };
}
