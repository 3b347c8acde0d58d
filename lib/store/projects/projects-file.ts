import { mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { atomicWriteFile, DIR_MODE } from '../../fs/atomic-write.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { isSessionId } from '../ids.js';

/**
 * `projects/projects.json` (FORMAT.md): `{projectId: {id, name, path, is_default, session_ids,
 * status, created_at}}` plus our `auto_commit`. Entries are kept as raw objects so that keys
 * OpenProgram writes (icon, hidden, description, …) survive every rewrite.
 */

export type RawEntry = Record<string, unknown>;
export type Registry = Record<string, unknown>;

export function isRecord(value: unknown): value is RawEntry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sessionIdsOf(entry: RawEntry): string[] {
  const raw = entry.session_ids;
  return Array.isArray(raw) ? [...new Set(raw.filter(isSessionId))] : [];
}

/** The document on disk, re-read when another process changed it, written back atomically. */
export class ProjectsFile {
  registry: Registry = {};
  private signature = '';

  constructor(readonly path: string) {
    this.reloadIfChanged();
  }

  /** Serialise writers, start from what is on disk, write back atomically. */
  mutate<T>(fn: () => Promise<T>): Promise<T> {
    return processLocks.run(`registry:${this.path}`, async () => {
      this.reloadIfChanged();
      const before = JSON.stringify(this.registry);
      let result: T;
      try {
        result = await fn();
      } catch (error) {
        // Nothing is written when a request is refused; drop any half-made change.
        this.registry = JSON.parse(before) as Registry;
        throw error;
      }
      if (JSON.stringify(this.registry) !== before) {
        await atomicWriteFile(this.path, JSON.stringify(this.registry, null, 2));
        this.signature = fileSignature(this.path);
      }
      return result;
    });
  }

  /** Pick up edits by another process (the CLI, OpenProgram itself) before using the registry. */
  reloadIfChanged(): void {
    const signature = fileSignature(this.path);
    if (signature === this.signature) return;
    this.signature = signature;
    if (signature === '') {
      this.registry = {};
      return;
    }
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      if (!isRecord(parsed)) throw new Error('not an object');
      this.registry = parsed;
    } catch {
      // Keep the unreadable file for a person to look at rather than overwrite it on the next write.
      mkdirSync(dirname(this.path), { recursive: true, mode: DIR_MODE });
      renameSync(this.path, `${this.path}.corrupt-${Date.now()}`);
      this.registry = {};
      this.signature = '';
    }
  }
}

function fileSignature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}
