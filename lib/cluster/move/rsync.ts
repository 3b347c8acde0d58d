import { spawn } from 'node:child_process';
import { MoveError } from './ports.js';

/** The parents of a user's folders under a data directory, as rsync names them (a path or host:path). */
function parents(dataDir: string): string[] {
  const base = dataDir.endsWith('/') ? dataDir.slice(0, -1) : dataDir;
  return [`${base}/users/`, `${base}/workspaces/`];
}

/**
 * Make the target's copy of one user equal to the source's (`rsync -a --delete`): a pre-copy
 * while the user still writes, then, frozen, a final one that also compares contents
 * (`--checksum`): a file rewritten within the second with the same size would otherwise be skipped.
 * The parent is copied through a filter of the user's folder alone, so a user who has no folder
 * yet (never signed in) copies as nothing, and a stale copy on the target is removed.
 */
export async function rsyncUser(sourceDataDir: string, targetDataDir: string, userId: string, options: { final: boolean }): Promise<void> {
  const sources = parents(sourceDataDir);
  const targets = parents(targetDataDir);
  for (let i = 0; i < sources.length; i++) {
    const filter = [`--include=/${userId}/***`, '--exclude=*'];
    await run(['-a', '--delete', '--mkpath', ...(options.final ? ['--checksum'] : []), ...filter, sources[i]!, targets[i]!]);
  }
}

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('rsync', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      reject(new MoveError(`rsync could not start: ${(error as Error).message}`));
      return;
    }
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new MoveError(error.code === 'ENOENT' ? 'rsync is not installed (apt-get install -y rsync)' : `rsync failed: ${error.message}`)),
    );
    child.on('close', (code) => {
      // 24: files vanished while copying (a live pre-copy); the final copy runs frozen.
      if (code === 0 || code === 24) resolve();
      else reject(new MoveError(`rsync ${args.slice(-2).join(' → ')} failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`));
    });
  });
}
