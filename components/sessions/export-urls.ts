/** The download addresses of server/http/export.ts. */
export type ExportFormat = 'md' | 'json' | 'bundle' | 'agent-trace';

export const EXPORT_ITEMS: ReadonlyArray<{ format: ExportFormat; label: string }> = [
  { format: 'md', label: 'Export as Markdown' },
  { format: 'json', label: 'Export as JSON' },
  { format: 'bundle', label: 'Download git bundle' },
  // DESIGN §14 Blame: which lines each turn's project commits added, as cursor/agent-trace records
  { format: 'agent-trace', label: 'Export attribution (Agent Trace)' },
];

/** What the Markdown holds besides the messages (DESIGN §10: tool calls on, reasoning off). */
export interface MarkdownSwitches {
  toolCalls: boolean;
  reasoning: boolean;
}

export const MARKDOWN_DEFAULTS: MarkdownSwitches = { toolCalls: true, reasoning: false };

/** The Markdown's switches go in the query only when they differ from the server's defaults. */
export function exportUrl(sessionId: string, format: ExportFormat, switches: MarkdownSwitches = MARKDOWN_DEFAULTS): string {
  let url = `/api/export/${encodeURIComponent(sessionId)}?format=${format}`;
  if (format === 'md') {
    if (switches.toolCalls !== MARKDOWN_DEFAULTS.toolCalls) url += `&toolCalls=${switches.toolCalls ? 1 : 0}`;
    if (switches.reasoning !== MARKDOWN_DEFAULTS.reasoning) url += `&reasoning=${switches.reasoning ? 1 : 0}`;
  }
  return url;
}

export const EXPORT_ZIP_URL = '/api/export/all.zip';
