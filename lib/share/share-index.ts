import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../fs/user-state-file.js';
import { isShareId } from './share-id.js';

export interface ShareOwnerEntry {
  id: string;
  userId: string;
}

/**
 * Which user a link id belongs to: `/s/<id>` names no user, and the link itself lives in its
 * owner's folder. A single instance keeps it in `data/auth/share-index.json`; a cluster in
 * Postgres (`share_link`, lib/cluster/share-index.ts), where HAProxy's map sync reads it too.
 */
export interface ShareIndex {
  ownerOf(id: string): Promise<string | null>;
  /** idempotent: an id already there keeps its owner */
  add(entries: readonly ShareOwnerEntry[]): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
}

/** The index of a single instance: one small file (0600, atomic), held in memory; only this process writes it. */
export class FileShareIndex implements ShareIndex {
  readonly path: string;
  private readonly owners = new Map<string, string>();

  constructor(authDir: string) {
    this.path = join(authDir, 'share-index.json');
    const parsed = readJsonFile(this.path) as { owners?: Record<string, unknown> } | null;
    for (const [id, userId] of Object.entries(parsed?.owners ?? {})) {
      if (isShareId(id) && typeof userId === 'string') this.owners.set(id, userId);
    }
  }

  ownerOf(id: string): Promise<string | null> {
    return Promise.resolve(this.owners.get(id) ?? null);
  }

  add(entries: readonly ShareOwnerEntry[]): Promise<void> {
    this.addSync(entries);
    return Promise.resolve();
  }

  /** add, synchronously: the start-up migration of a single instance runs before any request. */
  addSync(entries: readonly ShareOwnerEntry[]): void {
    const fresh = entries.filter((entry) => !this.owners.has(entry.id));
    if (fresh.length === 0) return;
    fresh.forEach((entry) => this.owners.set(entry.id, entry.userId));
    this.save(() => fresh.forEach((entry) => this.owners.delete(entry.id)));
  }

  remove(ids: readonly string[]): Promise<void> {
    const gone = ids.flatMap((id) => (this.owners.has(id) ? [[id, this.owners.get(id)!] as const] : []));
    if (gone.length > 0) {
      gone.forEach(([id]) => this.owners.delete(id));
      this.save(() => gone.forEach(([id, userId]) => this.owners.set(id, userId)));
    }
    return Promise.resolve();
  }

  /** A failed write puts the map back, so memory never says more than disk. */
  private save(undo: () => void): void {
    try {
      writeJsonFile(this.path, { version: 1, owners: Object.fromEntries(this.owners) });
    } catch (error) {
      undo();
      throw error;
    }
  }
}
