import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_HARDENING_ARGS, GitCommandError, gitArgv, gitEnv, runGit, splitNul, streamGit, type GitRunOptions } from './git-cli.js';
import { cleanupTempDirs, makeRepo } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

/** runGit's stdout as trimmed UTF-8 text. */
async function gitText(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<string> {
  const { stdout } = await runGit(cwd, args, options);
  return stdout.toString('utf8').trim();
}

describe('git runner hardening', () => {
  it('puts every override from DESIGN §2 before the subcommand', () => {
    const argv = gitArgv(['status', '--porcelain']);
    const settings = ['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.pager=cat', 'diff.external=', 'protocol.allow=never', 'protocol.ext.allow=never', 'protocol.file.allow=never'];
    // And never into a submodule, whose own config these overrides cannot reach.
    settings.push('diff.ignoreSubmodules=dirty', 'status.submoduleSummary=false', 'submodule.recurse=false');
    for (const setting of settings) {
      const at = argv.indexOf(setting);
      expect(at, setting).toBeGreaterThan(0);
      expect(argv[at - 1]).toBe('-c');
      expect(at).toBeLessThan(argv.indexOf('status'));
    }
    expect(argv.slice(0, GIT_HARDENING_ARGS.length)).toEqual([...GIT_HARDENING_ARGS]);
  });

  it('adds --no-ext-diff to diff, show and log only', () => {
    expect(gitArgv(['diff', 'HEAD'])).toContain('--no-ext-diff');
    expect(gitArgv(['log', '-p'])).toContain('--no-ext-diff');
    expect(gitArgv(['show', 'HEAD'])).toContain('--no-ext-diff');
    expect(gitArgv(['status'])).not.toContain('--no-ext-diff');
    expect(gitArgv(['status'])).toContain('--ignore-submodules=dirty');
    expect(gitArgv(['diff-index', '--cached', 'HEAD'])).toContain('--ignore-submodules=dirty');
  });

  it('gives git no system or global config, no prompts and nothing inherited from GIT_*', () => {
    process.env.GIT_DIR = '/somewhere/else';
    process.env.GIT_CONFIG_PARAMETERS = "'core.fsmonitor'='touch /tmp/x'";
    try {
      const env = gitEnv('/a/b');
      expect(env.GIT_CONFIG_NOSYSTEM).toBe('1');
      expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
      expect(env.GIT_TERMINAL_PROMPT).toBe('0');
      expect(env.GIT_DIR).toBeUndefined();
      expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
      expect(env.GIT_CEILING_DIRECTORIES).toBe('/a');
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_CONFIG_PARAMETERS;
    }
  });

  it('never uses an enclosing repository for a folder without its own .git', async () => {
    const outer = makeRepo();
    const inner = join(outer, 'sub');
    mkdirSync(inner);
    const res = await runGit(inner, ['rev-parse', '--git-dir'], { okCodes: [0, 128] });
    expect(res.code).toBe(128);
  });

  it('passes stdin, returns binary-safe stdout and reports failures as GitCommandError', async () => {
    const repo = makeRepo();
    const sha = await gitText(repo, ['hash-object', '--stdin'], { input: 'abc\n' });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    await expect(runGit(repo, ['rev-parse', '--verify', 'no-such-ref'])).rejects.toBeInstanceOf(GitCommandError);
    expect(splitNul(Buffer.from('a\0b c\0'))).toEqual(['a', 'b c']);
  });

  it('handles output far larger than the default 1 MB of execFile', async () => {
    const repo = makeRepo();
    const big = 'x'.repeat(3 * 1024 * 1024);
    const sha = await gitText(repo, ['hash-object', '-w', '--stdin'], { input: big });
    const { stdout } = await runGit(repo, ['cat-file', 'blob', sha]);
    expect(stdout.length).toBe(big.length);
  });
});

describe('streamGit', () => {
  afterEach(() => cleanupTempDirs());

  it('streams stdout with the same hardening and rejects with git\'s error on a bad exit', async () => {
    const repo = makeRepo();
    const ok = streamGit(repo, ['config', '--get', 'core.hooksPath']);
    let out = '';
    for await (const chunk of ok.stdout) out += chunk.toString();
    await ok.exited;
    expect(out.trim()).toBe('/dev/null');
    const bad = streamGit(repo, ['rev-parse', 'no-such-ref']);
    for await (const _ of bad.stdout) void _;
    await expect(bad.exited).rejects.toBeInstanceOf(GitCommandError);
  });
});
