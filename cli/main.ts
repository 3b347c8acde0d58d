import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { readLiveLock } from '../lib/process/data-dir-lock.js';
import { SingleBar } from 'cli-progress';
import type { IndexStatus, SearchHit } from '../lib/search/index.js';
import type { ListScope, SessionRow } from '../lib/store/index.js';
import { CliError, type CliBackend, type ExportFormat, type ShownSession } from './backend.js';
import { HttpBackend, readCliToken } from './http-backend.js';
import { LocalBackend } from './local-backend.js';
import { runImport } from './import-command.js';
import { CLUSTER_COMMANDS, runClusterCommand } from './cluster-command.js';
import { runClusterMove } from './cluster-move-command.js';
import { runUsageCommand, USAGE_USAGE } from './usage-command.js';

const SCOPES: readonly ListScope[] = ['active', 'archived', 'all'];

const GENERAL_HELP = `Entity Memory command line

usage: entity-memory [--data DIR] [--user EMAIL] [--json] <command>

With a server running on the data directory the CLI talks to it over HTTP (with the token in
DATA/auth/cli-token); otherwise it opens the data directory itself. --user names the user to act
as (default: the first admin). DATA defaults to OPENPROGRAM_DATA_DIR or ./data. --json prints
what a command answers as JSON. \`entity-memory help <command>\` explains one command.`;

interface Output {
  out(line: string): void;
  err(line: string): void;
  /** where a progress bar may draw (a terminal); without it progress is printed as lines */
  progressStream?: NodeJS.WriteStream;
}

function usageError(message: string, command?: CommandSpec): CliError {
  return new CliError(`${message}\n\nusage: entity-memory ${command ? command.usage : '<command>  (see entity-memory help)'}`, 'bad_input');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Tab-separated with a header line: readable in a terminal, and `cut -f` still works. */
function table(output: Output, header: string[], rows: string[][]): void {
  output.out(header.join('\t'));
  for (const row of rows) output.out(row.map((cell) => cell.replace(/[\t\n\r]+/g, ' ')).join('\t'));
}

function sessionCells(row: SessionRow): string[] {
  const flags = [row.pinned ? 'pinned' : '', row.archived ? 'archived' : '', row.unread ? 'unread' : ''].filter(Boolean).join(',');
  return [row.id, iso(row.updatedAt), row.status, row.project, flags || '-', row.title || row.preview || '(untitled)'];
}

function printSession(shown: ShownSession, output: Output): void {
  const { session, messages } = shown;
  const fields: Array<[string, string]> = [
    ['Title', session.title || session.preview || '(untitled)'],
    ['ID', session.id],
    ['Project', session.project],
    ['Status', session.status],
    // The agent named once and how it came in, as the app shows it; source and agent id as stored.
    ['Agent', [session.agentName, session.wayIn].filter((part) => part !== null).join(' · ')],
    ['Source', session.agentId ? `${session.source} (${session.agentId})` : session.source],
    ['Created', iso(session.createdAt)],
    ['Updated', iso(session.updatedAt)],
    ['Turns', String(session.turnCount)],
    ['Flags', [session.pinned ? 'pinned' : '', session.archived ? 'archived' : '', session.unread ? 'unread' : ''].filter(Boolean).join(', ') || '-'],
  ];
  for (const [name, value] of fields) output.out(`${`${name}:`.padEnd(9)} ${value}`);
  output.out('');
  output.out(messages.length === 1 ? '1 message on the current branch' : `${messages.length} messages on the current branch`);
  for (const message of messages) {
    output.out('');
    output.out(`[${message.role}${message.name ? ` ${message.name}` : ''}] ${iso(message.createdAt)}  ${message.id}`);
    output.out(message.content === '' ? '(empty)' : message.content);
    for (const call of message.toolCalls) output.out(`  -> ${call.name}: ${call.content.split('\n')[0]?.slice(0, 200) ?? ''}`);
  }
}

type Values = ReturnType<typeof parse>['values'];

interface CommandSpec {
  /** what follows `entity-memory` */
  usage: string;
  summary: string;
  /** a cluster command talks to the instances itself: no backend on the data directory is opened */
  standalone?: { run(dataDir: string, args: string[], values: Values, output: Output, env: NodeJS.ProcessEnv): Promise<void> };
  run(backend: CliBackend, args: string[], values: Values, output: Output): Promise<void>;
}

function one(args: string[], what: string, command: CommandSpec): string {
  if (args.length !== 1 || !args[0]) throw usageError(`expected one ${what}`, command);
  return args[0];
}

const COMMANDS: Record<string, CommandSpec> = {
  'cluster move': {
    usage: 'cluster move <user> <instance> | --resume <move> | --rollback <move> [--json]',
    summary: 'move a user (id or email) to another instance: pre-copy, freeze, final copy, verify, flip, clean-up; a cut-off move is resumed or rolled back',
    standalone: { run: (dataDir, args, values, output, env) => runClusterMove(dataDir, args, values, output, env) },
    run: async () => undefined,
  },
  'import files': {
    usage: 'import <path>… [--watch] [--json]',
    summary: 'import Claude Code / Codex transcripts, ChatGPT exports, our own session JSON and all-sessions zip (files, folders, zips) and OpenProgram state directories (~/.openprogram); --watch keeps importing as they grow',
    async run(backend, args, values, output) {
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      if (values.watch) process.once('SIGINT', stop).once('SIGTERM', stop);
      try {
        await runImport(backend, args, { json: values.json === true, watch: values.watch === true, progressBar: process.stderr.isTTY === true, signal: controller.signal }, output);
      } finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
      }
    },
  },
  'users add': {
    usage: 'users add <email> --password <pw> [--admin]',
    summary: 'create a user',
    async run(backend, args, values, output) {
      const email = one(args, 'email', this);
      if (!values.password) throw usageError('users add needs --password', this);
      const user = await backend.addUser({ email, password: values.password, admin: values.admin === true });
      output.out(values.json ? JSON.stringify(user) : `Created ${user.admin ? 'admin' : 'user'} ${user.email} (${user.id})`);
    },
  },
  'users list': {
    usage: 'users list',
    summary: 'list users',
    async run(backend, _args, values, output) {
      const users = await backend.listUsers();
      if (values.json) output.out(JSON.stringify(users));
      else for (const user of users) output.out([user.id, user.email, user.admin ? 'admin' : 'user', user.disabled ? 'disabled' : 'active'].join('\t'));
    },
  },
  'users disable': {
    usage: 'users disable <email|id>',
    summary: 'disable a user (ends their sign-ins)',
    async run(backend, args, _values, output) {
      const user = await backend.setUserDisabled(one(args, 'email or id', this), true);
      output.out(`Disabled user ${user.email}`);
    },
  },
  'users enable': {
    usage: 'users enable <email|id>',
    summary: 'enable a user again',
    async run(backend, args, _values, output) {
      const user = await backend.setUserDisabled(one(args, 'email or id', this), false);
      output.out(`Enabled user ${user.email}`);
    },
  },
  'users reset-password': {
    usage: 'users reset-password <email|id> --password <pw>',
    summary: 'set a new password (ends their sign-ins)',
    async run(backend, args, values, output) {
      const who = one(args, 'email or id', this);
      if (!values.password) throw usageError('users reset-password needs --password', this);
      const user = await backend.resetPassword(who, values.password);
      output.out(values.json ? JSON.stringify(user) : `Reset the password of ${user.email}; their sign-ins have ended`);
    },
  },
  'tokens create': {
    usage: 'tokens create <name> [--expires <date>]',
    summary: 'create an API token (shown once)',
    async run(backend, args, values, output) {
      const name = one(args, 'token name', this);
      let expiresAt: number | null = null;
      if (values.expires) {
        expiresAt = Date.parse(values.expires);
        if (Number.isNaN(expiresAt)) throw usageError(`--expires: not a date: ${values.expires}`, this);
      }
      const token = await backend.createToken({ name, expiresAt });
      output.out(values.json ? JSON.stringify(token) : token.token);
    },
  },
  'projects list': {
    usage: 'projects list',
    summary: 'list projects (Home first)',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('projects list takes no arguments', this);
      const projects = await backend.listProjects();
      if (values.json) output.out(JSON.stringify(projects));
      else
        table(
          output,
          ['ID', 'NAME', 'SESSIONS', 'AUTO-COMMIT', 'PATH'],
          projects.map((project) => [project.id, project.name, String(project.sessionCount), project.autoCommit ? 'on' : 'off', project.pathMissing ? `${project.path} (missing)` : project.path]),
        );
    },
  },
  'projects add': {
    usage: 'projects add <path> [--name NAME]',
    summary: 'register a git folder as a project (a relative path is from here)',
    async run(backend, args, values, output) {
      const path = resolve(one(args, 'path', this));
      const project = await backend.addProject(values.name === undefined ? { path } : { path, name: values.name });
      if (values.json) output.out(JSON.stringify(project));
      else output.out(`${project.created ? 'Added project' : 'Already a project:'} ${project.name} (${project.id}) at ${project.path}`);
    },
  },
  'sessions list': {
    usage: 'sessions list [--scope active|archived|all] [--limit N] [-q TEXT]',
    summary: 'list sessions, newest first',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('sessions list takes no arguments', this);
      const scope = (values.scope ?? 'active') as ListScope;
      if (!SCOPES.includes(scope)) throw usageError(`--scope must be one of ${SCOPES.join(', ')}`, this);
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive integer', this);
      const rows = await backend.listSessions({ scope, limit, q: values.q });
      if (values.json) output.out(JSON.stringify(rows));
      else table(output, ['ID', 'UPDATED', 'STATUS', 'PROJECT', 'FLAGS', 'TITLE'], rows.map(sessionCells));
    },
  },
  'sessions show': {
    usage: 'sessions show <id>',
    summary: 'a session and the messages of its current branch',
    async run(backend, args, values, output) {
      const shown = await backend.showSession(one(args, 'session id', this));
      if (values.json) output.out(JSON.stringify(shown));
      else printSession(shown, output);
    },
  },
  'usage summary': {
    usage: USAGE_USAGE,
    summary: 'tokens, cost and cache hit rate by day, model, project or session (DESIGN §15)',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('usage takes only options', this);
      await runUsageCommand(backend, values, output);
    },
  },
  'sessions search': {
    usage: 'sessions search <text> [--scope active|archived|all] [--limit N]',
    summary: 'full-text search of every message',
    async run(backend, args, values, output) {
      if (args.length === 0) throw usageError('sessions search needs the text to find', this);
      const q = args.join(' ');
      const scope = (values.scope ?? 'all') as ListScope;
      if (!SCOPES.includes(scope)) throw usageError(`--scope must be one of ${SCOPES.join(', ')}`, this);
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive integer', this);
      const progress = progressReporter(output, 'Catching up the search index');
      const { hits, status } = await backend.search({ q, scope, limit }, progress.update).finally(progress.stop);
      if (values.json) output.out(JSON.stringify({ hits, status }));
      else {
        if (status.state === 'catching_up') output.err(`The search index is catching up (${status.done}/${status.total} sessions): results may be incomplete.`);
        if (hits.length === 0) output.err(`No message matches ${JSON.stringify(q)}.`);
        for (const hit of hits) output.out(formatHit(hit));
      }
    },
  },
  'search reindex': {
    usage: 'search reindex',
    summary: 'rebuild the full-text index, with progress',
    async run(backend, args, _values, output) {
      if (args.length > 0) throw usageError('search reindex takes no arguments', this);
      const progress = progressReporter(output, 'Rebuilding the search index');
      const started = Date.now();
      const status = await backend.reindex(progress.update).finally(progress.stop);
      output.out(`Search index rebuilt: ${status.total} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  },
  'sessions archive': {
    usage: 'sessions archive <id>',
    summary: 'archive a session (also: archive <id>)',
    async run(backend, args, _values, output) {
      const row = await backend.setArchived(one(args, 'session id', this), true);
      output.out(`Archived session ${row.id}`);
    },
  },
  'sessions unarchive': {
    usage: 'sessions unarchive <id>',
    summary: 'unarchive a session (also: unarchive <id>)',
    async run(backend, args, _values, output) {
      const row = await backend.setArchived(one(args, 'session id', this), false);
      output.out(`Unarchived session ${row.id}`);
    },
  },
  'sessions rename': {
    usage: 'sessions rename <id> <title>',
    summary: 'give a session a title',
    async run(backend, args, _values, output) {
      if (args.length < 2) throw usageError('sessions rename needs an id and a title', this);
      const [id, ...words] = args;
      const row = await backend.rename(id!, words.join(' '));
      output.out(`Renamed session ${row.id} to ${row.title}`);
    },
  },
  'sessions export': {
    usage: 'sessions export <id> [--format md|json|bundle] [-o FILE] [--no-tools] [--reasoning]',
    summary: 'Markdown (the current branch), JSON (lossless, the default) or the session repo as a git bundle',
    async run(backend, args, values, output) {
      const sessionId = one(args, 'session id', this);
      const format = (values.format ?? 'json') as ExportFormat;
      if (!EXPORT_FORMATS.includes(format)) throw usageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`, this);
      const file = resolve(values.output ?? `${sessionId}.${EXTENSION[format]}`);
      const chunks = await backend.exportSession({ sessionId, format, toolCalls: values['no-tools'] !== true, reasoning: values.reasoning === true });
      const bytes = await writeExport(chunks, file);
      output.out(values.json ? JSON.stringify({ sessionId, format, file, bytes }) : `Exported session ${sessionId} (${format}) to ${file}: ${bytes} bytes`);
    },
  },
  'export all': {
    usage: 'export --all <out.zip>',
    summary: 'every session as one zip of JSON files',
    async run(backend, args, values, output) {
      if (values.all !== true) throw usageError('export needs --all (one session: sessions export <id>)', this);
      const file = resolve(one(args, 'zip file name', this));
      const bytes = await writeExport(await backend.exportAll(), file);
      output.out(values.json ? JSON.stringify({ file, bytes }) : `Exported every session to ${file}: ${bytes} bytes`);
    },
  },
  'sessions delete': {
    usage: 'sessions delete <id>',
    summary: 'delete a session and its history',
    async run(backend, args, _values, output) {
      const id = one(args, 'session id', this);
      await backend.deleteSession(id);
      output.out(`Deleted session ${id}`);
    },
  },
};

/** The whole list, or one group's commands, or one command. */
function helpText(topic: string[]): string | null {
  const key = topic.join(' ');
  const matching = Object.entries({ ...COMMANDS, ...CLUSTER_COMMANDS }).filter(([name]) => key === '' || name === key || name.startsWith(`${key} `));
  if (matching.length === 0) return null;
  const width = Math.max(...matching.map(([, command]) => command.usage.length));
  const lines = matching.map(([, command]) => `  ${command.usage.padEnd(width)}  ${command.summary}`);
  return key === '' ? `${GENERAL_HELP}\n\ncommands:\n${lines.join('\n')}\n  help [command]${' '.repeat(Math.max(0, width - 14))}  this text, or one command's` : `usage:\n${lines.join('\n')}`;
}

/** A hit on one line: ids, the session's name, the snippet with the matched text in «». */
function formatHit(hit: SearchHit): string {
  const snippet = hit.snippet.map((segment) => (segment.match ? `«${segment.text}»` : segment.text)).join('');
  const name = hit.title || hit.preview || '(untitled)';
  return [hit.sessionId, hit.messageId ?? '-', hit.kind, hit.archived ? 'archived' : '-', name, snippet].join('\t');
}

/** Progress of a rebuild: a bar on a terminal, else a line per tenth. */
function progressReporter(output: Output, label: string): { update: (status: IndexStatus) => void; stop: () => void } {
  const stream = output.progressStream;
  if (stream?.isTTY) {
    const bar = new SingleBar({ stream, format: `${label} [{bar}] {percentage}% | {value}/{total} sessions | {eta_formatted} left`, hideCursor: true });
    let started = false;
    return {
      update(status) {
        if (!started) {
          bar.start(status.total, status.done);
          started = true;
        } else bar.update(status.done, { total: status.total });
        bar.setTotal(status.total);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update(status) {
      const tenth = status.total === 0 ? 10 : Math.floor((status.done / status.total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        output.err(`${label}: ${status.done}/${status.total} sessions`);
      }
    },
    stop: () => undefined,
  };
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
    output.err(`${(error as Error).message}\n\nsee entity-memory help`);
    return 2;
  }
  const { values, positionals } = parsed;
  const words = normalise(positionals);
  if (words.length === 0 && !values.help) {
    output.err(helpText([])!);
    return 2;
  }
  if (values.help || words[0] === 'help') {
    const topic = words[0] === 'help' ? words.slice(1) : words;
    const text = helpText(topic);
    if (text === null) {
      output.err(`no command ${topic.join(' ')}: see entity-memory help`);
      return 2;
    }
    output.out(text);
    return 0;
  }
  const dataDir = resolve(values.data ?? env['OPENPROGRAM_DATA_DIR'] ?? './data');
  let backend: CliBackend | null = null;
  try {
    const [group, action, ...rest] = words;
    // `cluster move` is a command of its own (the mover, on this data directory); the rest ask the cluster database.
    if (group === 'cluster' && action !== 'move') {
      await runClusterCommand(`cluster ${action ?? ''}`.trim(), { args: rest, values, out: output.out, err: output.err }, env);
      return 0;
    }
    const command = COMMANDS[`${group} ${action}`];
    if (!command) throw usageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`);
    if (command.standalone) {
      await command.standalone.run(dataDir, rest, values, output, env);
      return 0;
    }
    backend = openBackend(dataDir, values.user ?? null);
    await command.run(backend, rest, values, output);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      // The seeds' CLI says exactly this for an unknown session; like every error, on stderr.
      output.err(error.kind === 'not_found' && /session/.test(error.message) ? 'no session' : error.message);
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
      name: { type: 'string' },
      scope: { type: 'string' },
      limit: { type: 'string' },
      q: { type: 'string', short: 'q' },
      watch: { type: 'boolean' },
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      all: { type: 'boolean' },
      'no-tools': { type: 'boolean' },
      reasoning: { type: 'boolean' },
      socket: { type: 'string' },
      map: { type: 'string' },
      'links-map': { type: 'string' },
      by: { type: 'string' },
      since: { type: 'string' },
      resume: { type: 'string' },
      rollback: { type: 'string' },
    },
  });
}

/** `archive <id>` is `sessions archive <id>`. */
function normalise(positionals: string[]): string[] {
  const [first, ...rest] = positionals;
  // `import <path>…`: the paths are the arguments (a path could be named like an action)
  if (first === 'import') return ['import', 'files', ...rest];
  if (first === 'usage' && rest[0] !== 'summary') return ['usage', 'summary', ...rest];
  if (first === 'archive' || first === 'unarchive' || first === 'rename' || first === 'delete') return ['sessions', first, ...rest];
  // `export --all out.zip`: the flag is the command, the file its argument.
  if (first === 'export') return ['export', 'all', ...rest];
  return positionals;
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

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const code = await run(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progressStream: process.stderr,
  });
  process.exitCode = code;
}
