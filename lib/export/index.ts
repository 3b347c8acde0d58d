export type { ExportSource } from './source.js';
export { sessionJson, SESSION_EXPORT_SCHEMA } from './session-json.js';
export { markdownExport, markdownParts, attachmentFiles, ExportTooLargeError, MAX_MARKDOWN_BYTES, markdownLimitFromEnv, type MarkdownOptions } from './markdown.js';
export { sessionBundle } from './bundle.js';
export { allSessionIds, sessionsZip } from './sessions-zip.js';
export { agentTraceJsonl, agentTraceRecords, AGENT_TRACE_VERSION, type AgentTraceRecord } from './agent-trace.js';
