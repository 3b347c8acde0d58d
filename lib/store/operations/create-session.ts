import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { ConflictError, InvalidInputError, NotFoundError, PreconditionError } from '../errors.js';
import { projectMigrationBlock } from '../session/migration-journal.js';
import { DEFAULT_PROJECT_ID, assertProjectId, assertSessionId, newSessionId } from '../ids.js';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { entryFromMeta } from '../registry/entry.js';
import { readMeta, writeMeta } from '../repo/session-files.js';
import { initSessionRepo } from '../repo/session-git.js';
import { type StoreContext } from '../session/store-context.js';
import { defaultRepoDir, projectRepoDir, saveLocations } from '../session/locations.js';
import { toRow } from '../registry/row.js';
import type { RegistryEntry, SessionMeta, SessionRow } from '../types.js';

export interface CreateSessionInput {
  id?: string;
  agentId?: string;
  title?: string;
  source?: string;
  channel?: string | null;
  accountId?: string | null;
  peerDisplay?: string | null;
  peerId?: string | null;
  projectId?: string;
}

/**
 * create_session of the seeds. An existing id returns its row unchanged. The repo lands at
 * sessions/<sid>, or sessions/projects/<pid>/<sid> (recorded in locations.json) for a project.
 */
export async function createSession(ctx: StoreContext, input: CreateSessionInput): Promise<{ row: SessionRow; created: boolean }> {
  const id = input.id === undefined ? newSessionId() : assertSessionId(input.id);
  const projectId = input.projectId === undefined ? DEFAULT_PROJECT_ID : assertProjectId(input.projectId);
  if (input.title !== undefined && typeof input.title !== 'string') throw new InvalidInputError('title must be a string');
  return ctx.locks.run(id, async () => {
    const existing = ctx.registry.get(id);
    if (existing) return { row: toRow(ctx, existing), created: false };
    if (!ctx.projects.has(projectId)) throw new NotFoundError(`unknown project: ${projectId}`);
    const blocked = projectId === DEFAULT_PROJECT_ID ? null : projectMigrationBlock(ctx.sessionsDir, projectId);
    if (blocked) throw new PreconditionError(blocked);

    const dir = projectId === DEFAULT_PROJECT_ID ? defaultRepoDir(ctx, id) : projectRepoDir(ctx, projectId, id);
    const onDisk = readMeta(dir);
    if (onDisk && onDisk.id !== id) throw new ConflictError(`the directory for ${id} holds another session`);
    // Held, not only journaled: another session's registry write finishing while the repo is
    // being made would drop the id from the journal, and a crash then would leave a directory
    // without meta.json that start-up never looks at (found by bench/crash).
    const release = ctx.writer.hold(id);
    const now = ctx.now();
    const title = input.title?.trim() ?? '';
    const meta: SessionMeta = onDisk ?? {
      id,
      agent_id: input.agentId ?? 'main',
      title,
      source: input.source ?? '',
      created_at: now,
      updated_at: now,
      project_id: projectId,
      head_id: null,
      status: 'idle',
      pinned: false,
      archived: false,
      unread: false,
      group: '',
      channel: input.channel ?? null,
      account_id: input.accountId ?? null,
      peer_display: input.peerDisplay ?? null,
      peer_id: input.peerId ?? null,
      // Present from the start, so a rebuild or reconcile reads the preview from meta.json and never
      // from a user node whose meta.json write a crash cut off (OpenProgram's meta has no preview).
      preview: null,
      // A title chosen at creation is a person's (or agent's) choice: automatic titles leave it.
      _user_titled: title !== '',
      _auto_titled: false,
      _title_gen_count: 0,
      turn_count: 0,
      workdirs: [],
      branches: {},
    };
    let entry: RegistryEntry;
    const addsLocation = dir !== defaultRepoDir(ctx, id) && ctx.locations.get(id) !== dir;
    const dirExisted = existsSync(dir);
    try {
      // The location first: start-up reconciles a journaled id at its location, so a crash before
      // the registry has the session must find the project directory there, to remove it (no
      // meta.json yet) or list it (found by bench/crash once it bound sessions to projects).
      if (addsLocation) {
        ctx.locations.set(id, dir);
        saveLocations(ctx);
      }
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      if (!onDisk) {
        await initSessionRepo(dir, now);
        writeMeta(dir, meta, ctx.redactor);
      }
      entry = entryFromMeta(meta, id, typeof meta.preview === 'string' ? meta.preview : null);
      ctx.registry.set(entry);
    } catch (error) {
      // A create that failed (a full disk) leaves nothing: its location would send a later create
      // of the same id in Home into this project's folder, and once released the id is no longer
      // journaled for start-up to clear it.
      if (!dirExisted) rmSync(dir, { recursive: true, force: true });
      if (addsLocation && ctx.locations.delete(id)) {
        try {
          saveLocations(ctx);
        } catch {
          // the disk still refuses: gone from memory, the next save of locations.json drops it
        }
      }
      throw error;
    } finally {
      release();
    }
    await ctx.writer.writeNow();
    if (projectId !== DEFAULT_PROJECT_ID) await ctx.projects.addSession(projectId, id);
    const row = toRow(ctx, entry);
    ctx.events.emit('session_created', row);
    return { row, created: true };
  });
}
