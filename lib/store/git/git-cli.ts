import { spawn } from 'node:child_process';
import { dirname, isAbsolute } from 'node:path';

/**
 * The one way this engine starts git in a user's folder (DESIGN §2). Project repos belong to
 * the user and may carry config that runs programs; every process therefore gets the same
 * hardening, and callers pass argument arrays (never a shell string).
 */

/** `-c` overrides put before every subcommand. Command-line config beats the repo's own. */
export const GIT_HARDENING_ARGS: readonly string[] = Object.freeze([
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.pager=cat',
  '-c', 'diff.external=',
  '-c', 'protocol.allow=never',
  // A repository's own `protocol.<name>.allow` beats the general one; these beat the repository.
  // A lazy fetch (a partial clone's missing object) would otherwise run an ext:: command.
  ...['ext', 'fd', 'file', 'git', 'ssh', 'http', 'https'].flatMap((name) => ['-c', `protocol.${name}.allow=never`]),
  // Not in the DESIGN list, same spirit: no signing program, no background gc/maintenance.
  '-c', 'commit.gpgSign=false',
  '-c', 'gc.auto=0',
  '-c', 'maintenance.auto=false',
  '-c', 'credential.helper=',
  // Never recurse into submodules: their own config (a filter, an fsmonitor) is out of reach of
  // these overrides. `dirty` still reports a moved submodule HEAD (a ref read, no process) but
  // never runs `git status` inside it. `git add` recurses regardless of config: auto-commit keeps
  // gitlinks out of its pathspecs (stage-paths.ts).
  '-c', 'diff.ignoreSubmodules=dirty',
  '-c', 'status.submoduleSummary=false',
  '-c', 'submodule.recurse=false',
  '-c', 'fetch.recurseSubmodules=false',
]);

/** Subcommands that could run an external diff or textconv program. */
const DIFF_SUBCOMMANDS = new Set(['diff', 'show', 'log']);
/** Subcommands that compare the working tree and would look inside submodules. */
const WORKTREE_SUBCOMMANDS = new Set(['status', 'diff', 'diff-files', 'diff-index']);

/** Big repos print a lot (ls-files, status of a fresh checkout); stay far above that. */
const DEFAULT_MAX_BUFFER = 512 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export interface GitRunOptions {
  /** Extra environment (GIT_INDEX_FILE, GIT_AUTHOR_*…), applied after the hardening. */
  env?: Record<string, string>;
  /** Written to stdin. */
  input?: string | Buffer;
  /** Exit codes that are not failures (e.g. check-ignore answers 1 for "nothing ignored"). */
  okCodes?: readonly number[];
  maxBuffer?: number;
  timeoutMs?: number;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** git exited with an unexpected code. An internal failure, not a user error: no StoreError code. */
export class GitCommandError extends Error {
  readonly exitCode: number;
  readonly stderr: string;
  readonly args: readonly string[];
  constructor(args: readonly string[], exitCode: number, stderr: string) {
    const sub = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-c') ?? 'git';
    super(`git ${sub} failed (exit ${exitCode}): ${stderr.trim().slice(0, 500)}`);
    this.name = 'GitCommandError';
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.args = args;
  }
}

/**
 * The environment of every git process: nothing inherited that starts with GIT_ (GIT_DIR,
 * GIT_CONFIG_PARAMETERS, GIT_SSH_COMMAND… could redirect or arm it), no system or global
 * config, no prompts, and no repository discovery above `cwd` (a project folder without its own
 * `.git` must never be treated as part of an enclosing repo, such as the app's own checkout).
 */
export function gitEnv(cwd: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GIT_') || key === 'SSH_ASKPASS' || key === 'EDITOR' || key === 'VISUAL' || key === 'PAGER') continue;
    env[key] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = '/dev/null';
  env.GIT_TERMINAL_PROMPT = '0';
  // Never fetch a missing object from a promisor remote (honoured from git 2.44; the protocol
  // overrides above already refuse the transport on older ones).
  env.GIT_NO_LAZY_FETCH = '1';
  // English messages so that the few stderr checks we make are stable.
  env.LC_ALL = 'C';
  if (isAbsolute(cwd)) env.GIT_CEILING_DIRECTORIES = dirname(cwd);
  return { ...env, ...extra };
}

/**
 * The full argv after `git`: the caller's leading `-c key=value` pairs, then the hardening (so it
 * wins over them), the subcommand, and `--no-ext-diff --no-textconv` where they apply.
 */
export function gitArgv(args: readonly string[]): string[] {
  const callerConfig: string[] = [];
  let i = 0;
  while (args[i] === '-c' && args[i + 1] !== undefined) {
    callerConfig.push('-c', args[i + 1]!);
    i += 2;
  }
  const sub = args[i];
  if (sub === undefined || sub.startsWith('-')) throw new Error(`git: expected a subcommand, got ${String(sub)}`);
  const out = [...callerConfig, ...GIT_HARDENING_ARGS, sub];
  if (DIFF_SUBCOMMANDS.has(sub)) out.push('--no-ext-diff', '--no-textconv');
  if (WORKTREE_SUBCOMMANDS.has(sub)) out.push('--ignore-submodules=dirty');
  out.push(...args.slice(i + 1));
  return out;
}

/** Run git in `cwd`; resolves with the result or rejects with GitCommandError. */
export function runGit(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const argv = gitArgv(args);
  const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, {
      cwd,
      env: gitEnv(cwd, options.env) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let overflow = false;
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxBuffer) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // stderr is for messages only; keep the first 64 KB.
      if (err.reduce((n, b) => n + b.length, 0) < 65_536) err.push(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (overflow) return reject(new GitCommandError(args, -1, `output larger than ${maxBuffer} bytes`));
      const exit = code ?? -1;
      if (!okCodes.includes(exit)) {
        return reject(new GitCommandError(args, exit, signal ? `killed by ${signal}. ${stderr}` : stderr));
      }
      resolve({ stdout: Buffer.concat(out), stderr, code: exit });
    });
    // A git that exits before reading stdin makes the write fail with EPIPE; the exit code says why.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Split `-z` output into its NUL-terminated fields (the last empty one dropped). */
export function splitNul(buffer: Buffer): string[] {
  if (buffer.length === 0) return [];
  const fields = buffer.toString('utf8').split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  return fields;
}

/** A git whose stdout is read as it comes (a bundle, a pack): nothing of it is buffered here. */
export interface GitStream {
  stdout: NodeJS.ReadableStream & AsyncIterable<Buffer>;
  /** resolves when git exits with 0; rejects with GitCommandError otherwise */
  exited: Promise<void>;
  /** stop git (the reader went away) */
  kill: () => void;
}

/** Start git in `cwd` with the same hardening as runGit, stdout streamed. */
export function streamGit(cwd: string, args: readonly string[], options: Pick<GitRunOptions, 'env' | 'timeoutMs'> = {}): GitStream {
  const child = spawn('git', gitArgv(args), {
    cwd,
    env: gitEnv(cwd, options.env) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    windowsHide: true,
  });
  const err: Buffer[] = [];
  let errBytes = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    if (errBytes < 65_536) err.push(chunk);
    errBytes += chunk.length;
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const stderr = Buffer.concat(err).toString('utf8');
      reject(new GitCommandError(args, code ?? -1, signal ? `killed by ${signal}. ${stderr}` : stderr));
    });
  });
  // A caller that only reads stdout must not see an unhandled rejection.
  exited.catch(() => undefined);
  return { stdout: child.stdout, exited, kill: () => child.kill('SIGKILL') };
}
