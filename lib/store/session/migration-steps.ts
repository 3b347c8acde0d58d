import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, lstat, mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { constants as fsConstants } from 'node:fs';
import { PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { readMeta, writeMeta } from '../repo/session-files.js';
import { GitCommandError, runGit } from '../git/git-cli.js';
import { recoveryDir } from '../recovery/paths.js';
import { defaultRepoDir, projectRepoDir, saveLocations } from './locations.js';
import { entryFromDir } from './rebuild.js';
import { toRow } from '../registry/row.js';
import { forgetMigration, readMigrationJournal, recordMigration, stagingDir, type MigrationEntry } from './migration-journal.js';
import { redactStagedRepo } from './migration-redact.js';
import type { StoreContext } from './store-context.js';

/** Where the staged copy of a session's repo and of its recovery records sit. */
export function stagedPaths(ctx: Pick<StoreContext, 'sessionsDir'>, sessionId: string): { root: string; repo: string; recovery: string } {
  const root = stagingDir(ctx.sessionsDir, sessionId);
  return { root, repo: join(root, 'repo'), recovery: join(root, 'file-recovery') };
}

/** The published place of a session: sessions/<sid>, or sessions/projects/<pid>/<sid>. */
export function publishedRepoDir(ctx: Pick<StoreContext, 'sessionsDir'>, entry: Pick<MigrationEntry, 'sessionId' | 'projectId'>): string {
  return entry.projectId === DEFAULT_PROJECT_ID ? defaultRepoDir(ctx, entry.sessionId) : projectRepoDir(ctx, entry.projectId, entry.sessionId);
}

/**
 * Copy a tree, refusing what could lead outside it: a symbolic link or anything that is not a
 * file or a folder is an error, never followed.
 */
async function copyTree(from: string, to: string, shown: string): Promise<void> {
  await mkdir(to, { recursive: true, mode: DIR_MODE });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    const where = `${shown}/${entry.name}`;
    if (entry.isDirectory()) await copyTree(source, target, where);
    else if (entry.isFile()) await copyFile(source, target, fsConstants.COPYFILE_EXCL);
    else throw new PreconditionError(`refused: ${where} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a file or folder'}`);
  }
}

/** Step 1 → 2: the repo and its recovery records copied into staging (a copy left by a crash is redone). */
export async function stageMigration(ctx: StoreContext, entry: MigrationEntry): Promise<MigrationEntry> {
  const staged = stagedPaths(ctx, entry.sessionId);
  rmSync(staged.root, { recursive: true, force: true });
  await copyTree(entry.from, staged.repo, entry.sessionId);
  if (entry.recoveryFrom && existsSync(entry.recoveryFrom)) await copyTree(entry.recoveryFrom, staged.recovery, `.file-recovery/${entry.sessionId}`);
  const next: MigrationEntry = { ...entry, step: 'staged' };
  recordMigration(ctx.sessionsDir, next);
  return next;
}

const SESSION_GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

/**
 * Step 2 → 3: the staged copy is a whole session repo of this id: its own config and hooks
 * replaced (they came from elsewhere), `git fsck` clean, `main` a commit and every ref resolving
 * to one; then secrets are taken out and meta.json says where it came from.
 */
export async function verifyMigration(ctx: StoreContext, entry: MigrationEntry): Promise<MigrationEntry> {
  const { repo } = stagedPaths(ctx, entry.sessionId);
  const meta = readMeta(repo);
  if (!meta || meta.id !== entry.sessionId) throw new PreconditionError(`refused: the meta.json of ${entry.sessionId} is missing or names another session`);
  const dotGit = join(repo, '.git');
  if (!(await lstat(dotGit).catch(() => null))?.isDirectory()) throw new PreconditionError(`refused: ${entry.sessionId} has no .git folder`);
  writeFileSync(join(dotGit, 'config'), SESSION_GIT_CONFIG);
  rmSync(join(dotGit, 'hooks'), { recursive: true, force: true });
  // Nothing may make git read objects or history from outside the copy: fsck then finds any hole.
  for (const name of ['objects/info/alternates', 'objects/info/http-alternates', 'commondir', 'gitdir', 'info/grafts']) rmSync(join(dotGit, name), { force: true });
  try {
    await runGit(repo, ['fsck', '--full', '--no-dangling', '--no-progress']);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new PreconditionError(`refused: git fsck of ${entry.sessionId} failed: ${error.stderr.trim().split('\n').slice(0, 3).join('; ')}`);
  }
  const main = await runGit(repo, ['rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}'], { okCodes: [0, 1, 128] });
  if (main.code !== 0) throw new PreconditionError(`refused: ${entry.sessionId} has no main branch`);
  const refs = (await runGit(repo, ['for-each-ref', '--format=%(objecttype) %(refname)'])).stdout.toString().split('\n').filter(Boolean);
  for (const line of refs) {
    const [type, name] = line.split(' ');
    if (type !== 'commit' && type !== 'tag') throw new PreconditionError(`refused: ref ${name} of ${entry.sessionId} does not name a commit`);
    if (name?.startsWith('refs/replace/')) throw new PreconditionError(`refused: ${entry.sessionId} has a replace ref (${name}), which would rewrite what its history shows`);
  }
  const redacted = ctx.redactor ? await redactStagedRepo(repo, ctx.redactor) : 0;
  const after = readMeta(repo)!;
  const origin = typeof after.source === 'string' && after.source !== '' && after.source !== 'openprogram' ? { origin_source: after.source } : {};
  writeMeta(repo, {
    ...after,
    ...origin,
    source: 'openprogram',
    project_id: entry.projectId,
    status: 'idle',
    ...(redacted > 0 ? { redacted: (typeof after['redacted'] === 'number' ? after['redacted'] : 0) + redacted } : {}),
  }, ctx.redactor);
  const next: MigrationEntry = { ...entry, step: 'verified', redacted };
  recordMigration(ctx.sessionsDir, next);
  return next;
}

/** Test hook: called between the two renames of a publish (a kill there must resume). */
export type MidPublishHook = () => void;

/**
 * Step 3 → 4: the repo to its place, the recovery records beside the others. Repeatable after
 * a crash: what already moved is recognised by its meta.json. A failure is recorded as `failed`
 * (the project stays unavailable) and thrown.
 */
export async function publishMigration(ctx: StoreContext, entry: MigrationEntry, midPublish?: MidPublishHook): Promise<MigrationEntry> {
  const staged = stagedPaths(ctx, entry.sessionId);
  const target = publishedRepoDir(ctx, entry);
  try {
    ctx.writer.journal(entry.sessionId);
    if (existsSync(staged.repo)) {
      if (existsSync(target)) throw new PreconditionError(`a folder is already in the way at ${target}`);
      mkdirSync(dirname(target), { recursive: true, mode: DIR_MODE });
      renameSync(staged.repo, target);
    } else if (readMeta(target)?.id !== entry.sessionId) {
      throw new PreconditionError(`the staged copy of ${entry.sessionId} is gone and it is not at ${target}`);
    }
    midPublish?.();
    if (existsSync(staged.recovery)) {
      const recovery = recoveryDir(ctx.sessionsDir, entry.sessionId);
      if (existsSync(recovery)) throw new PreconditionError(`recovery records of ${entry.sessionId} are already in the way at ${recovery}`);
      mkdirSync(dirname(recovery), { recursive: true, mode: DIR_MODE });
      renameSync(staged.recovery, recovery);
    }
  } catch (error) {
    const failed: MigrationEntry = { ...entry, step: 'failed', error: (error as Error).message };
    recordMigration(ctx.sessionsDir, failed);
    throw error;
  }
  const next: MigrationEntry = { ...entry, step: 'published' };
  recordMigration(ctx.sessionsDir, next);
  return next;
}

/** Step 4 → done: the location record (the authority on where the repo is), the project's index, the registry. */
export async function locateMigration(ctx: StoreContext, entry: MigrationEntry): Promise<void> {
  const target = publishedRepoDir(ctx, entry);
  if (entry.projectId !== DEFAULT_PROJECT_ID) {
    ctx.locations.set(entry.sessionId, target);
    saveLocations(ctx);
    await ctx.projects.addSession(entry.projectId, entry.sessionId);
  }
  const row = entryFromDir(target, entry.sessionId);
  if (!row) throw new PreconditionError(`the published session ${entry.sessionId} has no readable meta.json`);
  const isNew = !ctx.registry.has(entry.sessionId);
  ctx.registry.set(row);
  ctx.writer.markDirty();
  forgetMigration(ctx.sessionsDir, entry.sessionId);
  rmSync(stagedPaths(ctx, entry.sessionId).root, { recursive: true, force: true });
  if (isNew) ctx.events.emit('session_created', toRow(ctx, row));
  // A session replaced whole by its move in: no event says so, the feed must.
  else ctx.changes.append(entry.sessionId, 'created');
}

export interface ReconcileReport {
  resumed: string[];
  rolledBack: string[];
  failed: string[];
}

/**
 * Start-up: a migration a crash cut short before it was verified is rolled back (the import
 * starts it again); a verified or published one is carried to its end; a failed one stays
 * failed, and its project unavailable, until an import of it succeeds.
 */
export async function reconcileMigrations(ctx: StoreContext): Promise<ReconcileReport> {
  const report: ReconcileReport = { resumed: [], rolledBack: [], failed: [] };
  for (const entry of readMigrationJournal(ctx.sessionsDir).values()) {
    if (entry.step === 'inventoried' || entry.step === 'staged') {
      rmSync(stagedPaths(ctx, entry.sessionId).root, { recursive: true, force: true });
      forgetMigration(ctx.sessionsDir, entry.sessionId);
      report.rolledBack.push(entry.sessionId);
      continue;
    }
    if (entry.step === 'failed') {
      report.failed.push(entry.sessionId);
      continue;
    }
    try {
      const published = entry.step === 'verified' ? await publishMigration(ctx, entry) : entry;
      await locateMigration(ctx, published);
      report.resumed.push(entry.sessionId);
    } catch (error) {
      recordMigration(ctx.sessionsDir, { ...entry, step: 'failed', error: (error as Error).message });
      report.failed.push(entry.sessionId);
    }
  }
  return report;
}
