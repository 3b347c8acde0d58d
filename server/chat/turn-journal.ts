import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSessionId, type SessionStore } from '@/lib/store/index';

/**
 * A note per chat turn in progress (`<state>/.chat-turns/<sessionId>.json`), written when the
 * turn starts and removed when it ends. One left behind means the process died mid-turn: the
 * next start ends that turn as failed, committing what it had already written.
 */
function dirOf(store: SessionStore): string {
  return join(store.stateDir, '.chat-turns');
}

export function noteTurnStarted(store: SessionStore, sessionId: string, info: { turn: number; model: string }): void {
  const dir = dirOf(store);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${sessionId}.json`), JSON.stringify({ ...info, startedAt: Date.now() }), { mode: 0o600 });
}

export function noteTurnEnded(store: SessionStore, sessionId: string): void {
  rmSync(join(dirOf(store), `${sessionId}.json`), { force: true });
}

export async function failInterruptedTurns(store: SessionStore): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(dirOf(store));
  } catch {
    return [];
  }
  const failed: string[] = [];
  for (const name of names) {
    const sessionId = name.replace(/\.json$/, '');
    if (isSessionId(sessionId) && store.hasSession(sessionId)) {
      let model: string | undefined;
      try {
        model = (JSON.parse(readFileSync(join(dirOf(store), name), 'utf8')) as { model?: string }).model;
      } catch {
        model = undefined;
      }
      try {
        await store.finalizeTurn(sessionId, { status: 'failed', ...(model ? { model } : {}) });
        failed.push(sessionId);
      } catch (error) {
        console.error(`[chat] could not end the interrupted turn of ${sessionId}:`, error);
      }
    }
    rmSync(join(dirOf(store), name), { force: true });
  }
  return failed;
}
