/** The argument that says what a tool call is about, by the names agents give it, in order. */
const SUBJECT_KEYS = ['file_path', 'path', 'notebook_path', 'command', 'cmd', 'pattern', 'url', 'query', 'description', 'prompt'] as const;
const MAX_SUBJECT_CHARS = 120;

function inputObject(input: unknown): Record<string, unknown> | null {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * What a folded tool call shows beside its name: the file it wrote, the command it ran, the
 * pattern it searched (Claude Code's Write/Bash/Grep, Codex's shell, our own file tools); '' when none.
 */
export function toolSubject(input: unknown): string {
  const fields = inputObject(input);
  if (!fields) return '';
  for (const key of SUBJECT_KEYS) {
    const value = fields[key];
    // Codex's shell gives its command as argv (["bash", "-lc", "ls"]).
    const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((part) => typeof part === 'string') ? value.join(' ') : '';
    const line = text.trim().split('\n', 1)[0]!.trim();
    if (line) return line.length > MAX_SUBJECT_CHARS ? `${line.slice(0, MAX_SUBJECT_CHARS - 1)}…` : line;
  }
  return '';
}
