/**
 * Whether a tool call failed, whichever way it came in: the recording proxy and Claude Code imports
 * write `metadata.is_error` (the Anthropic wire's name; Claude Code imports before issue 28 wrote
 * `isError`), the web chat's tools `refused` for a path outside the project. Every reader (export,
 * rendering) asks here, as reasoningOf does for reasoning.
 */
export function toolCallFailed(metadata: Readonly<Record<string, unknown>>): boolean {
  return metadata['is_error'] === true || metadata['isError'] === true || metadata['refused'] === true;
}
