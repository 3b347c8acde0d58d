import { anthropicCounts, type ExchangeUsage } from '../proxy/usage.js';

/** What is known to be wrong with Claude Code's own counts: said beside every figure read from them. */
export const CLAUDE_CODE_UNDERCOUNT =
  "Claude Code's transcripts undercount: input tokens 100–174× and output 10–17× below the API's own figures (ccusage #866); each streamed line repeats a snapshot of its message's usage";

/**
 * An imported Claude Code answer's `metadata.usage` (DESIGN §15): its lines share one message id
 * and each repeats a snapshot of the usage, so the message is counted once, from its last line
 * (never the sum of the lines), and marked estimated. Null when no line carried usage.
 */
export function claudeCodeUsage(usage: unknown, model: string | null, status: string | null): ExchangeUsage | null {
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return null;
  return { ...anthropicCounts(usage as Record<string, unknown>), model, agent: 'claude-code', ttfbMs: null, durationMs: null, status, exact: false, estimate: CLAUDE_CODE_UNDERCOUNT };
}
