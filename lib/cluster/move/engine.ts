import { MOVE_STEPS, MoveJournal, newMoveId, type MoveRecord, type MoveStep } from './journal.js';
import { MoveError, type InstanceControlPort, type ShardDirectoryPort } from './ports.js';
import { rsyncUser, type CopyReport } from './rsync.js';

export interface MoveProgress {
  move: MoveRecord;
  step: MoveStep;
  phase: 'start' | 'done';
}

export interface MoveEngineOptions {
  directory: ShardDirectoryPort;
  journal: MoveJournal;
  /** the control endpoint of an instance, by id */
  control: (instanceId: string) => Promise<InstanceControlPort>;
  /**
   * copies the user from one rsync location to another (rsyncUser; tests may slow it down); a
   * copy that reports nothing leaves the verify to fsck every repository
   */
  copy?: (sourceDataDir: string, targetDataDir: string, userId: string, options: { final: boolean }) => Promise<CopyReport | void>;
  onProgress?: (progress: MoveProgress) => void;
  now?: () => number;
  /** releases what the engine's opener made for it (openMover's Postgres pool) */
  close?: () => Promise<void>;
}

/**
 * Moves one user between instances, a step at a time, each recorded in the journal before the
 * next begins. Every step can run again (a resume repeats the step that was cut off), and until
 * the flip the source is the owner: a kill anywhere leaves the user complete on exactly one
 * instance, and the move can be resumed or rolled back.
 */
export class MoveEngine {
  private readonly copy: NonNullable<MoveEngineOptions['copy']>;
  private readonly now: () => number;
  /** moves whose freeze step this engine ran, the final copy not yet begun (not kept across a restart) */
  private readonly frozenByThisRun = new Set<string>();

  constructor(private readonly options: MoveEngineOptions) {
    this.copy = options.copy ?? rsyncUser;
    this.now = options.now ?? Date.now;
  }

  get directory(): ShardDirectoryPort {
    return this.options.directory;
  }

  /** Ends the connections openMover made for this engine (none for a directory it was given). */
  async close(): Promise<void> {
    await this.options.close?.();
  }

  /** Check the move can begin, record it, run it to the end. */
  async start(userId: string, to: string): Promise<MoveRecord> {
    return this.run(await this.begin(userId, to));
  }

  /** Check the move can begin and record it, without running it (the Admin page runs it in the background with resume). */
  async begin(userId: string, to: string): Promise<MoveRecord> {
    const { directory, journal } = this.options;
    const owner = await directory.owner(userId);
    if (!owner) throw new MoveError(`no user ${userId} in the shard directory`, 'bad_input');
    if (owner.shard === to) throw new MoveError(`${userId} is already on ${to}`, 'bad_input');
    if (!(await directory.instance(to))) throw new MoveError(`no instance ${to}`, 'bad_input');
    const open = journal.openMoveOf(userId);
    if (open) throw new MoveError(`move ${open.id} of ${userId} has not ended: resume or roll it back`, 'conflict');
    if (owner.state !== 'active') throw new MoveError(`${userId} is ${owner.state} on ${owner.shard}`, 'conflict');
    const at = this.now();
    const record: MoveRecord = { id: newMoveId(at), userId, from: owner.shard, to, epoch: owner.epoch, step: 'precopy', status: 'running', startedAt: at, updatedAt: at, finished: [] };
    journal.save(record);
    return record;
  }

  /** Continue a move that was cut off (or failed) from the step it was in. */
  async resume(id: string): Promise<MoveRecord> {
    const record = this.open(id);
    record.status = 'running';
    delete record.error;
    this.options.journal.save(record);
    return this.run(record);
  }

  /**
   * Undo a move that has not flipped: the target's copy removed, the source writable again.
   * After the flip the user is the target's: only a resume (to clean up) is left.
   */
  async rollback(id: string): Promise<MoveRecord> {
    const record = this.open(id);
    const owner = await this.options.directory.owner(record.userId);
    if (record.step === 'cleanup' || (owner && owner.shard === record.to && owner.epoch === record.epoch + 1)) {
      throw new MoveError(`move ${id} has flipped: ${record.userId} is on ${record.to} now; resume it to finish the clean-up`, 'conflict');
    }
    const errors: string[] = [];
    // The target first: it must never keep a copy a later move would mistake for current.
    await this.attempt(errors, async () => (await this.options.control(record.to)).discard(record.userId));
    await this.attempt(errors, async () => (await this.options.control(record.from)).unfreeze(record.userId));
    if (owner && owner.shard === record.from && owner.epoch === record.epoch && owner.state !== 'active') {
      await this.attempt(errors, () => this.options.directory.setState(record.userId, 'active', record.epoch).then(() => undefined));
    }
    if (errors.length > 0) {
      record.error = `roll-back incomplete: ${errors.join('; ')}`;
      record.status = 'failed';
      this.options.journal.save(record);
      throw new MoveError(record.error);
    }
    record.status = 'rolled-back';
    record.updatedAt = this.now();
    this.options.journal.save(record);
    return record;
  }

  private open(id: string): MoveRecord {
    const record = this.options.journal.get(id);
    if (!record) throw new MoveError(`no move ${id}`, 'bad_input');
    if (record.status === 'done' || record.status === 'rolled-back') throw new MoveError(`move ${id} has ended (${record.status})`, 'conflict');
    return record;
  }

  private async attempt(errors: string[], action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      errors.push((error as Error).message);
    }
  }

  private async run(record: MoveRecord): Promise<MoveRecord> {
    const { journal, onProgress } = this.options;
    for (let index = MOVE_STEPS.indexOf(record.step); index < MOVE_STEPS.length; index++) {
      const step = MOVE_STEPS[index]!;
      record.step = step;
      record.updatedAt = this.now();
      journal.save(record);
      onProgress?.({ move: record, step, phase: 'start' });
      const began = this.now();
      try {
        await this.runStep(record, step);
      } catch (error) {
        // A resume after any failure asks the source again: what this run's freeze answered may be stale.
        this.frozenByThisRun.delete(record.id);
        record.status = 'failed';
        record.error = (error as Error).message;
        record.updatedAt = this.now();
        journal.save(record);
        throw error instanceof MoveError ? error : new MoveError(`${step}: ${(error as Error).message}`);
      }
      record.finished.push({ step, at: this.now(), ms: this.now() - began });
      if (index === MOVE_STEPS.length - 1) record.status = 'done';
      record.updatedAt = this.now();
      journal.save(record);
      onProgress?.({ move: record, step, phase: 'done' });
    }
    return record;
  }

  private async runStep(record: MoveRecord, step: MoveStep): Promise<void> {
    const { directory, control } = this.options;
    const { userId, from, to, epoch } = record;
    const source = await control(from);
    const target = await control(to);
    switch (step) {
      case 'precopy': {
        await this.ensureState(record, 'moving');
        // A check recorded by an earlier run of this step describes files this copy may change.
        delete record.precopyClean;
        this.options.journal.save(record);
        await this.copy((await source.describe()).dataDir, (await target.describe()).dataDir, userId, { final: false });
        // Most of the fsck, done while the user still writes: the verify, frozen, repeats it only
        // where the final copy wrote. Not a failure when it cannot run (an instance without
        // `precheck`): the verify then fscks every repository, as before.
        try {
          record.precopyClean = (await target.precheck(userId)).clean;
        } catch (error) {
          if (error instanceof MoveError && error.code === 'conflict') throw error;
        }
        return;
      }
      case 'freeze': {
        await this.ensureState(record, 'frozen');
        // Writes are refused from this request on, and the source's answer only comes once the
        // writes still running have finished: the freeze is timed from here, before that wait.
        // Recorded first, so a resume after a cut-off freeze keeps the first request's time.
        record.freezeRequestedAt ??= this.now();
        this.options.journal.save(record);
        record.frozen = { ...(await source.freeze(userId, record.id)), at: record.freezeRequestedAt };
        this.frozenByThisRun.add(record.id);
        return;
      }
      case 'final-copy': {
        // Again on a resume: a source restarted since comes back frozen (its marker), and its
        // handoff is the one clients now hold ids of. Not when this run has just frozen it: the
        // second answer would be the first one again, at the cost of reading every head inside
        // the freeze once more.
        if (!this.frozenByThisRun.delete(record.id)) {
          record.frozen = { ...(await source.freeze(userId, record.id)), at: record.frozen?.at ?? record.freezeRequestedAt ?? this.now() };
        }
        // A final copy cut off (or failed) may have written files the one run now will not list
        // again: their repositories are unknown, so the verify fscks them all.
        const again = record.finalCopyStarted === true;
        record.finalCopyStarted = true;
        delete record.finalCopyChanged;
        this.options.journal.save(record);
        const report = await this.copy((await source.describe()).dataDir, (await target.describe()).dataDir, userId, { final: true });
        if (!again && report) record.finalCopyChanged = report.changedRepos;
        return;
      }
      case 'verify': {
        if (!record.frozen) throw new MoveError('the move has no freeze record: roll it back');
        // fsck again only what may differ from what the pre-copy check found clean. A repository
        // the final copy did not write is, file for file, the one that check read: nothing else
        // writes the target's copy (the target refuses to check a user it serves), and rsync
        // lists every file it sent or deleted. Corrupted on the source since, it was either
        // changed (a new size or mtime: sent, listed, fscked here) or not sent at all (the
        // target keeps the copy fsck passed). Heads and the registry are checked in full.
        const changed = new Set(record.finalCopyChanged ?? []);
        const fsckSkip = record.precopyClean && record.finalCopyChanged ? record.precopyClean.filter((repo) => !changed.has(repo)) : undefined;
        const report = await target.verify(userId, { heads: record.frozen.heads, sourceDataDir: (await source.describe()).dataDir, ...(fsckSkip ? { fsckSkip } : {}) });
        record.verified = { repos: report.repos, fscked: report.fscked };
        if (!report.ok) throw new MoveError(`verify on ${to} failed: ${report.problems.slice(0, 5).join('; ')}${report.problems.length > 5 ? ` (+${report.problems.length - 5} more)` : ''}`);
        return;
      }
      case 'flip': {
        if (!record.frozen) throw new MoveError('the move has no freeze record: roll it back');
        const owner = await directory.owner(userId);
        const flipped = owner?.shard === to && owner.epoch === epoch + 1;
        if (!flipped) {
          await target.adopt(userId, record.frozen.handoff);
          await directory.flip(userId, from, to, epoch);
          record.freezeMs = this.now() - record.frozen.at;
        }
        const info = await directory.instance(to);
        await source.release(userId, { id: to, url: info?.url ?? '', epoch: epoch + 1 });
        return;
      }
      case 'cleanup': {
        await source.discard(userId);
        return;
      }
    }
  }

  /** The directory row at the move's epoch in `state` (already there on a resume). */
  private async ensureState(record: MoveRecord, state: 'moving' | 'frozen'): Promise<void> {
    const owner = await this.options.directory.owner(record.userId);
    if (!owner || owner.shard !== record.from || owner.epoch !== record.epoch) {
      throw new MoveError(`${record.userId} is no longer on ${record.from} at epoch ${record.epoch}`, 'conflict');
    }
    if (owner.state !== state) await this.options.directory.setState(record.userId, state, record.epoch);
  }
}
