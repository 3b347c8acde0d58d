import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitCommandError, runGit } from '../lib/store/index.js';
import { CliError } from './backend.js';

/** How long a stopped command's process group has after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 3_000;

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The temporary git worktrees of one bisect (DESIGN §14), each at one turn's project commit,
 * outside the project folder (its per-exchange commit would take a worktree inside it in), and
 * the command run in them in a process group of its own, so that a stop reaches all it started.
 */
export class BisectWorkspace {
  private current: string | null = null;
  private child: ChildProcess | null = null;
  private exited: Promise<CommandExit> | null = null;

  private constructor(
    readonly projectFolder: string,
    private readonly root: string,
  ) {}

  /** Refuses a folder that is not a git repository here. */
  static async open(projectFolder: string): Promise<BisectWorkspace> {
    const isRepo = await runGit(projectFolder, ['rev-parse', '--is-inside-work-tree'], { okCodes: [0, 128] }).catch(() => null);
    if (!isRepo || isRepo.code !== 0) throw new CliError(`the project folder ${projectFolder} is not a git repository on this machine`, 'unavailable');
    return new BisectWorkspace(projectFolder, await mkdtemp(join(tmpdir(), 'entity-memory-bisect-')));
  }

  /** Whether the project's repository holds the commit (a folder copied elsewhere may not). */
  async hasCommit(sha: string): Promise<boolean> {
    const found = await runGit(this.projectFolder, ['cat-file', '-e', `${sha}^{commit}`], { okCodes: [0, 1, 128] });
    return found.code === 0;
  }

  /** A fresh detached worktree at `sha`; the one before it is removed first. */
  async checkout(name: string, sha: string): Promise<string> {
    await this.removeCurrent();
    const path = join(this.root, name);
    this.current = path;
    try {
      await runGit(this.projectFolder, ['worktree', 'add', '--detach', path, sha]);
    } catch (error) {
      if (error instanceof GitCommandError) throw new CliError(`could not check out ${sha.slice(0, 7)} in a worktree: ${error.stderr.trim().slice(0, 300)}`, 'unavailable');
      throw error;
    }
    return path;
  }

  /** The command in `cwd`, its output on this process's stderr (stdout stays the answer's). */
  run(argv: readonly string[], cwd: string): Promise<CommandExit> {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, detached: true, stdio: ['ignore', 2, 2] });
    this.child = child;
    this.exited = new Promise<CommandExit>((resolve, reject) => {
      child.once('error', (error) => reject(new CliError(`could not run ${argv[0]}: ${error.message}`, 'bad_input')));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    }).finally(() => {
      if (this.child === child) this.child = null;
    });
    return this.exited;
  }

  /** Ends the running command and everything in its process group: SIGTERM, then SIGKILL after a grace. */
  async stopCommand(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const group = -child.pid;
    signalGroup(group, 'SIGTERM');
    const kill = setTimeout(() => signalGroup(group, 'SIGKILL'), STOP_GRACE_MS);
    await this.exited?.catch(() => undefined);
    clearTimeout(kill);
    // What it left running in its group (a background job) goes too.
    signalGroup(group, 'SIGKILL');
  }

  private async removeCurrent(): Promise<void> {
    const path = this.current;
    if (!path) return;
    this.current = null;
    await runGit(this.projectFolder, ['worktree', 'remove', '--force', '--force', path], { okCodes: [0, 128] });
    await rm(path, { recursive: true, force: true });
  }

  /** The command stopped, the worktree removed and pruned, the temporary folder gone. */
  async cleanUp(): Promise<void> {
    await this.stopCommand();
    await this.removeCurrent();
    await runGit(this.projectFolder, ['worktree', 'prune'], { okCodes: [0, 128] });
    await rm(this.root, { recursive: true, force: true });
  }
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(group, signal);
  } catch {
    // ESRCH: the group has ended
  }
}
