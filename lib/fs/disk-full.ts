/**
 * A write refused because the data directory's file system is full (or the user's quota is used
 * up), however it reached us: node's errno (ENOSPC, EDQUOT), SQLite's SQLITE_FULL, or the stderr
 * of a git process, possibly as the `cause` of an error that wraps it.
 */
const ERRNO_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const MESSAGES = /\b(ENOSPC|EDQUOT)\b|no space left on device|disk quota exceeded|database or disk is full/i;

export function isDiskFull(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && ERRNO_CODES.has(code)) return true;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** What a person reads when a write meets a full disk (503 in the API). */
export const DISK_FULL_MESSAGE = 'The server is out of disk space: this change was not saved. Free some space on the data directory and try again; everything saved before is intact.';
