import { realpathSync, rmSync } from 'node:fs';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { assertProjectId, DEFAULT_PROJECT_ID } from '../ids.js';
import { forgetMigration, readMigrationJournal, recordMigration, type MigrationEntry, type MigrationStep } from '../session/migration-journal.js';
import { locateMigration, publishMigration, stagedPaths, stageMigration, verifyMigration } from '../session/migration-steps.js';
import { checkStateSource, stateTurnsOf, type StateSessionInput } from '../session/state-source.js';
import { repoDirOf } from '../session/locations.js';
import type { StoreContext } from '../session/store-context.js';

/** What moving a new session in did (importSession's result, for the added case). */
export interface StateSessionResult {
  outcome: 'added';
  nodesAdded: number;
  turnsAdded: number;
  redacted: number;
}

export type { StateSessionInput } from '../session/state-source.js';

/** For the tests: called after each step is recorded (and once between the two renames of the publish). */
export type MigrationStepHook = (step: MigrationStep | 'mid-publish' | 'located') => void;

/**
 * Move a new session of another state directory in (DESIGN §10, operations.zh.md "附件与恢复"):
 * through the migration journal whole, its git history as it was (redacted if it held secrets).
 * One known already gets only the nodes it lacks through importSession (SessionStore decides).
 */
export async function importStateSession(ctx: StoreContext, input: StateSessionInput, onStep?: MigrationStepHook): Promise<StateSessionResult> {
  const repo = checkStateSource(ctx, input);
  const projectId = assertProjectId(input.projectId ?? DEFAULT_PROJECT_ID);
  if (ctx.registry.has(input.id)) throw new InvalidInputError(`session ${input.id} is here already: import its new turns instead`);

  if (projectId !== DEFAULT_PROJECT_ID) {
    if (!ctx.projects.has(projectId)) {
      if (!input.project) throw new PreconditionError(`session ${input.id}: its project ${projectId} is not in the state directory's projects.json`);
      await ctx.projects.adopt(projectId, input.project.name, input.project.path);
    }
  }

  return ctx.locks.run(input.id, async () => {
    if (ctx.registry.has(input.id)) throw new InvalidInputError(`session ${input.id} appeared during its import; import again`);
    const previous = readMigrationJournal(ctx.sessionsDir).get(input.id);
    if (previous && previous.step !== 'failed') throw new PreconditionError(`session ${input.id} is being moved in already`);
    let entry: MigrationEntry = { sessionId: input.id, projectId, from: repo, recoveryFrom: input.recoveryDir ? realRecoveryDir(input.recoveryDir) : null, step: 'inventoried' };
    recordMigration(ctx.sessionsDir, entry);
    onStep?.('inventoried');
    try {
      entry = await stageMigration(ctx, entry);
      onStep?.('staged');
      entry = await verifyMigration(ctx, entry);
      onStep?.('verified');
    } catch (error) {
      // Nothing was published: the staged copy and the entry go, the project stays as it was.
      rollBack(ctx, input.id);
      throw error;
    }
    entry = await publishMigration(ctx, entry, () => onStep?.('mid-publish'));
    onStep?.('published');
    await locateMigration(ctx, entry);
    onStep?.('located');
    const { turns } = stateTurnsOf(repoDirOf(ctx, input.id));
    return { outcome: 'added', nodesAdded: turns.flat().length, turnsAdded: turns.length, redacted: entry.redacted ?? 0 };
  });
}

function realRecoveryDir(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function rollBack(ctx: StoreContext, sessionId: string): void {
  rmSync(stagedPaths(ctx, sessionId).root, { recursive: true, force: true });
  forgetMigration(ctx.sessionsDir, sessionId);
}
