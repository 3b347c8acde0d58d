import { execFileSync } from 'node:child_process';

/** git in a repository, its failure a value rather than a throw, so a check can report it and go on. */
export function git(repo: string, args: string[]): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
