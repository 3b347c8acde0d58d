import { join } from 'node:path';
import { isUserId, UserStore } from '../lib/auth/index.js';
import { BackupError, restoreBackup, verifyBackup, writeBackup, type BackupCheck } from '../lib/backup/index.js';
import { CliError } from './backend.js';
import { usageError, type CommandSpec, type Output, type Values } from './command-spec.js';

/** A progress line at most this often: a backup of 100,000 sessions copies a million files. */
const PROGRESS_EVERY_MS = 1_000;

function throttled(output: Output): (line: string) => void {
  let last = Date.now(); // nothing for a backup that takes under a second
  return (line) => {
    const now = Date.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    output.err(line);
  };
}

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function userIdOf(dataDir: string, user: string): string {
  if (isUserId(user)) return user;
  const found = new UserStore(join(dataDir, 'auth')).findByEmail(user);
  if (!found) throw new CliError(`no user ${user} (give a user id or the email of a user of ${dataDir})`, 'not_found');
  return found.id;
}

/** BackupError is the user's to fix (a wrong path, a damaged backup): a refusal, not a crash. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message, 'refused');
    throw error;
  }
}

function checkLines(check: BackupCheck): string[] {
  const what = check.info?.userId ? `user ${check.info.userId}` : 'the whole data directory';
  return [`backup of ${what}, cut at ${check.info?.cutAt ?? '?'}: ${check.entries} entries, ${check.sessions} sessions, ${megabytes(check.bytes)}`];
}

/** DESIGN §17: backup, restore and verify, on this machine's data directory (no server needed, none stopped). */
export const BACKUP_COMMANDS: Record<string, CommandSpec> = {
  'backup create': {
    usage: 'backup <out.tar> [--user <id|email>] [--json]',
    summary: 'a consistent copy of the data directory (or one user\'s part) while the server runs, with a manifest of sha-256 checksums',
    standalone: {
      async run(dataDir: string, args: string[], values: Values, output: Output) {
        if (args.length !== 1 || !args[0]) throw usageError('expected the file to write', BACKUP_COMMANDS['backup create']);
        const out = args[0];
        const userId = values.user ? userIdOf(dataDir, values.user) : null;
        const progress = throttled(output);
        const summary = await refusing(() =>
          writeBackup({ dataDir, out, userId, onProgress: (p) => progress(`backup: ${p.files} files, ${megabytes(p.bytes)} (${p.part})`) }),
        );
        output.out(values.json ? JSON.stringify(summary) : `wrote ${summary.out}: ${summary.files} files, ${summary.sessions} sessions, ${megabytes(summary.bytes)}; cut at ${summary.cutAt}`);
      },
    },
    run: async () => undefined,
  },
  'backup restore': {
    usage: 'restore <backup.tar> --data <new dir> [--json]',
    summary: 'a backup made into a data directory a server starts on (a new or empty directory; a damaged backup writes nothing)',
    standalone: {
      async run(dataDir: string, args: string[], values: Values, output: Output) {
        if (args.length !== 1 || !args[0]) throw usageError('expected the backup to restore', BACKUP_COMMANDS['backup restore']);
        if (!values.data) throw usageError('restore needs --data <dir>: the directory to restore into', BACKUP_COMMANDS['backup restore']);
        const backup = args[0];
        const progress = throttled(output);
        const summary = await refusing(() => restoreBackup(backup, dataDir, (entries, bytes) => progress(`restore: ${entries} entries, ${megabytes(bytes)}`)));
        output.out(values.json ? JSON.stringify({ dataDir: summary.dataDir, info: summary.info, entries: summary.entries, sessions: summary.sessions }) : [...checkLines(summary), `restored into ${summary.dataDir}`].join('\n'));
      },
    },
    run: async () => undefined,
  },
  'backup verify': {
    usage: 'verify <backup.tar> [--json]',
    summary: 'check every byte of a backup against its manifest without restoring it',
    standalone: {
      async run(_dataDir: string, args: string[], values: Values, output: Output) {
        if (args.length !== 1 || !args[0]) throw usageError('expected the backup to check', BACKUP_COMMANDS['backup verify']);
        const backup = args[0];
        const progress = throttled(output);
        const check = await refusing(() => verifyBackup(backup, (entries, bytes) => progress(`verify: ${entries} entries, ${megabytes(bytes)}`)));
        if (values.json) output.out(JSON.stringify({ ok: check.problems.length === 0, ...check }));
        else if (check.problems.length === 0) output.out([...checkLines(check), 'every entry matches the manifest'].join('\n'));
        if (check.problems.length > 0) {
          const shown = check.problems.slice(0, 20);
          const more = check.problems.length - shown.length;
          throw new CliError(`${backup} is damaged:\n${shown.join('\n')}${more > 0 ? `\n… and ${more} more` : ''}`, 'refused');
        }
      },
    },
    run: async () => undefined,
  },
};
