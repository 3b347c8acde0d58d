import { join } from 'node:path';

/** Per-turn recovery records live beside the session repos (DESIGN §3). */
const RECOVERY_DIR = '.file-recovery';

/** `sessions/.file-recovery` under the data directory's sessions folder. */
export function recoveryRoot(sessionsDir: string): string {
  return join(sessionsDir, RECOVERY_DIR);
}

/** One session's records: `sessions/.file-recovery/<sid>`. */
export function recoveryDir(sessionsDir: string, sessionId: string): string {
  return join(recoveryRoot(sessionsDir), sessionId);
}
