import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { readLiveLock } from '../lib/process/data-dir-lock.js';
import type { ListScope, SessionRow } from '../lib/store/index.js';
import { CliError, type CliBackend, type ExportFormat } from './backend.js';
import { HttpBackend, readCliToken } from './http-backend.js';
import { LocalBackend } from './local-backend.js';

const USAGE = `Entity Memory command line

usage: entity-memory [--data DIR] [--user EMAIL] [--json] <command>

  users add <email> --password <pw> [--admin]   create a user
  users list                                    list users
  users disable <email|id>                      disable a user (ends their sign-ins)
  users enable <email|id>                       enable a user again
  tokens create <name> [--expires <date>]       create an API token (shown once)
  sessions list [--scope active|archived|all] [--limit N] [-q TEXT]
  sessions archive <id>                         (also: archive <id>)
  sessions unarchive <id>                       (also: unarchive <id>)
  sessions rename <id> <title>
  sessions delete <id>
  sessions export <id> [--format md|json|bundle] [-o FILE] [--no-tools] [--reasoning]
                                                Markdown (the current branch), JSON (lossless,
                                                the default) or the session repo as a git bundle
  export --all <out.zip>                        every session as one zip of JSON files

With a server running on the data directory the CLI talks to it over HTTP (with the token in
DATA/auth/cli-token); otherwise it opens the data directory itself. --user names the user to act
as (default: the first admin). DATA defaults to OPENPROGRAM_DATA_DIR or ./data.`;

interface Output {
  out(line: string): void;
  err(line: string): void;
}

const SCOPES: readonly ListScope[] = ['active', 'archived', 'all'];

function usageError(message: string): CliError {
  return new CliError(`${message}\n\n${USAGE}`, 'bad_input');
}

function formatRow(row: SessionRow): string {
  const flags = [row.pinned ? 'pinned' : '', row.archived ? 'archived' : '', row.unread ? 'unread' : '', row.status !== 'idle' ? row.status : '']
    .filter(Boolean)
    .join(',');
  const title = row.title || row.preview || '(untitled)';
  return [row.id, new Date(row.updatedAt).toISOString(), flags || '-', title].join('\t');
}

/** Pick HTTP when a live server holds the data directory, else the directory itself. */
export function openBackend(dataDir: string, asUser: string | null): CliBackend {
  const holder = readLiveLock(dataDir);
  if (holder) {
    if (!holder.url) throw new CliError(`another process (pid ${holder.pid}) holds ${dataDir} and serves no HTTP API`, 'unavailable');
    return new HttpBackend(holder.url, readCliToken(dataDir), asUser);
  }
  return LocalBackend.open(dataDir, asUser);
}

/** Run one command; returns the exit code (0 ok, 1 refused or not found, 2 usage). */
export async function run(argv: string[], output: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    output.err((error as Error).message);
    output.err(USAGE);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    output.out(USAGE);
    return positionals.length === 0 && !values.help ? 2 : 0;
  }
  const dataDir = resolve(values.data ?? env['OPENPROGRAM_DATA_DIR'] ?? './data');
  let backend: CliBackend | null = null;
  try {
    const [group, action, ...rest] = normalise(positionals);
    const command = commandFor(group, action);
    backend = openBackend(dataDir, values.user ?? null);
    await command(backend, rest, values, output);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      // The seeds' CLI prints exactly this for an unknown session, on standard output.
      if (error.kind === 'not_found' && /session/.test(error.message)) output.out('no session');
      else output.err(error.message);
      return error.kind === 'bad_input' && error.message.includes('usage:') ? 2 : 1;
    }
    output.err(`error: ${(error as Error).message}`);
    return 1;
  } finally {
    await backend?.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      user: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      password: { type: 'string' },
      admin: { type: 'boolean' },
      expires: { type: 'string' },
      scope: { type: 'string' },
      limit: { type: 'string' },
      q: { type: 'string', short: 'q' },
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      all: { type: 'boolean' },
      'no-tools': { type: 'boolean' },
      reasoning: { type: 'boolean' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];
type Command = (backend: CliBackend, args: string[], values: Values, output: Output) => Promise<void>;

/** `archive <id>` is `sessions archive <id>`. */
function normalise(positionals: string[]): string[] {
  const [first, ...rest] = positionals;
  if (first === 'archive' || first === 'unarchive' || first === 'rename' || first === 'delete') return ['sessions', first, ...rest];
  // `export --all out.zip`: the flag is the command, the file its argument.
  if (first === 'export') return ['export', 'all', ...rest];
  return positionals;
}

function one(args: string[], what: string): string {
  if (args.length !== 1 || !args[0]) throw usageError(`expected one ${what}`);
  return args[0];
}

const EXPORT_FORMATS: readonly ExportFormat[] = ['md', 'json', 'bundle'];
const EXTENSION: Record<ExportFormat, string> = { md: 'md', json: 'json', bundle: 'bundle' };

/**
 * Stream an export into `file`: written beside it first and renamed when complete, so a failed
 * export never leaves a file that looks whole. Returns the bytes written.
 */
async function writeExport(chunks: AsyncIterable<string | Uint8Array>, file: string): Promise<number> {
  const partial = `${file}.part`;
  let bytes = 0;
  const counted = Readable.from(chunks).on('data', (chunk: Buffer | string) => (bytes += Buffer.byteLength(chunk)));
  try {
    await pipeline(counted, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return bytes;
}

const COMMANDS: Record<string, Command> = {
  'users add': async (backend, args, values, output) => {
    const email = one(args, 'email');
    if (!values.password) throw usageError('users add needs --password');
    const user = await backend.addUser({ email, password: values.password, admin: values.admin === true });
    output.out(values.json ? JSON.stringify(user) : `Created ${user.admin ? 'admin' : 'user'} ${user.email} (${user.id})`);
  },
  'users list': async (backend, _args, values, output) => {
    const users = await backend.listUsers();
    if (values.json) output.out(JSON.stringify(users));
    else for (const user of users) output.out([user.id, user.email, user.admin ? 'admin' : 'user', user.disabled ? 'disabled' : 'active'].join('\t'));
  },
  'users disable': async (backend, args, _values, output) => {
    const user = await backend.setUserDisabled(one(args, 'email or id'), true);
    output.out(`Disabled user ${user.email}`);
  },
  'users enable': async (backend, args, _values, output) => {
    const user = await backend.setUserDisabled(one(args, 'email or id'), false);
    output.out(`Enabled user ${user.email}`);
  },
  'tokens create': async (backend, args, values, output) => {
    const name = one(args, 'token name');
    let expiresAt: number | null = null;
    if (values.expires) {
      expiresAt = Date.parse(values.expires);
      if (Number.isNaN(expiresAt)) throw usageError(`--expires: not a date: ${values.expires}`);
    }
    const token = await backend.createToken({ name, expiresAt });
    output.out(values.json ? JSON.stringify(token) : token.token);
  },
  'sessions list': async (backend, args, values, output) => {
    if (args.length > 0) throw usageError('sessions list takes no arguments');
    const scope = (values.scope ?? 'active') as ListScope;
    if (!SCOPES.includes(scope)) throw usageError(`--scope must be one of ${SCOPES.join(', ')}`);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive integer');
    const rows = await backend.listSessions({ scope, limit, q: values.q });
    if (values.json) output.out(JSON.stringify(rows));
    else for (const row of rows) output.out(formatRow(row));
  },
  'sessions archive': async (backend, args, _values, output) => {
    const row = await backend.setArchived(one(args, 'session id'), true);
    output.out(`Archived session ${row.id}`);
  },
  'sessions unarchive': async (backend, args, _values, output) => {
    const row = await backend.setArchived(one(args, 'session id'), false);
    output.out(`Unarchived session ${row.id}`);
  },
  'sessions rename': async (backend, args, _values, output) => {
    if (args.length < 2) throw usageError('sessions rename needs an id and a title');
    const [id, ...words] = args;
    const row = await backend.rename(id!, words.join(' '));
    output.out(`Renamed session ${row.id} to ${row.title}`);
  },
  'sessions export': async (backend, args, values, output) => {
    const sessionId = one(args, 'session id');
    const format = (values.format ?? 'json') as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) throw usageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    const file = resolve(values.output ?? `${sessionId}.${EXTENSION[format]}`);
    const chunks = await backend.exportSession({ sessionId, format, toolCalls: values['no-tools'] !== true, reasoning: values.reasoning === true });
    const bytes = await writeExport(chunks, file);
    output.out(values.json ? JSON.stringify({ sessionId, format, file, bytes }) : `Exported session ${sessionId} (${format}) to ${file}: ${bytes} bytes`);
  },
  'export all': async (backend, args, values, output) => {
    if (values.all !== true) throw usageError('export needs --all (one session: sessions export <id>)');
    const file = resolve(one(args, 'zip file name'));
    const bytes = await writeExport(await backend.exportAll(), file);
    output.out(values.json ? JSON.stringify({ file, bytes }) : `Exported every session to ${file}: ${bytes} bytes`);
  },
  'sessions delete': async (backend, args, _values, output) => {
    const id = one(args, 'session id');
    await backend.deleteSession(id);
    output.out(`Deleted session ${id}`);
  },
};

function commandFor(group: string | undefined, action: string | undefined): Command {
  const command = COMMANDS[`${group} ${action}`];
  if (!command) throw usageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`);
  return command;
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const code = await run(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
