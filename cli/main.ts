import { resolve } from 'node:path';
import { readLiveLock } from '../lib/process/data-dir-lock.js';
import { CliError, type CliBackend } from './backend.js';
import { HttpBackend, readCliToken } from './http-backend.js';
import { LocalBackend } from './local-backend.js';
import { runImport } from './import-command.js';
import { CLUSTER_COMMANDS, runClusterCommand } from './cluster-command.js';
import { runClusterMove } from './cluster-move-command.js';
import { parseCommandLine, usageError, type CommandSpec, type Output } from './command-spec.js';
import { PROJECT_COMMANDS } from './commands/projects.js';
import { SESSION_COMMANDS } from './commands/sessions.js';
import { USER_COMMANDS } from './commands/users.js';
import { BLAME_SUMMARY, BLAME_USAGE, runBlame } from './blame-command.js';
import { RESUME_SUMMARY, RESUME_USAGE, runResume } from './resume-command.js';
import { BISECT_SUMMARY, BISECT_USAGE, runBisect } from './bisect-command.js';
import { runUsageCommand, USAGE_USAGE } from './usage-command.js';
import { BACKUP_COMMANDS } from './backup-command.js';
import { COLLECT_COMMANDS } from './collect-command.js';

const GENERAL_HELP = `Entity Memory command line

usage: entity-memory [--data DIR] [--user EMAIL] [--json] <command>

With a server running on the data directory the CLI talks to it over HTTP (with the token in
DATA/auth/cli-token); otherwise it opens the data directory itself. --user names the user to act
as (default: the first admin). DATA defaults to OPENPROGRAM_DATA_DIR or ./data. --json prints
what a command answers as JSON. \`entity-memory help <command>\` explains one command.`;

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
  ...USER_COMMANDS,
  ...PROJECT_COMMANDS,
  ...SESSION_COMMANDS,
  ...BACKUP_COMMANDS,
  ...COLLECT_COMMANDS,
  'usage summary': {
    usage: USAGE_USAGE,
    summary: 'tokens, cost and cache hit rate by day, model, project or session (DESIGN §15)',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('usage takes only options', this);
      await runUsageCommand(backend, values, output);
    },
  },
  'resume session': {
    usage: RESUME_USAGE,
    summary: RESUME_SUMMARY,
    run: async (backend, args, values, output) => void (await runResume(backend, args, values, output)),
  },
  'bisect turns': {
    usage: BISECT_USAGE,
    summary: BISECT_SUMMARY,
    async run(backend, args, values, output) {
      await runBisect(backend, args, values, output, this);
    },
  },
  'blame file': { usage: BLAME_USAGE, summary: BLAME_SUMMARY, run: async (backend, args, values, output) => void (await runBlame(backend, args, values, output)) },
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
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
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
      return error.exitCode ?? (error.kind === 'bad_input' && error.message.includes('usage:') ? 2 : 1);
    }
    output.err(`error: ${(error as Error).message}`);
    return 1;
  } finally {
    await backend?.close();
  }
}

/** `archive <id>` is `sessions archive <id>`. */
function normalise(positionals: string[]): string[] {
  const [first, ...rest] = positionals;
  // `import <path>…`: the paths are the arguments (a path could be named like an action)
  if (first === 'import') return ['import', 'files', ...rest];
  if (first === 'resume') return ['resume', 'session', ...rest];
  // `bisect <session> -- <command>…`: what follows the session is the command, whatever its words
  if (first === 'bisect') return ['bisect', 'turns', ...rest];
  if (first === 'blame') return ['blame', 'file', ...rest];
  if (first === 'usage' && rest[0] !== 'summary') return ['usage', 'summary', ...rest];
  if (first === 'collect') return ['collect', 'transcripts', ...rest];
  if (first === 'backup' || first === 'restore' || first === 'verify') return ['backup', first === 'backup' ? 'create' : first, ...rest];
  if (first === 'archive' || first === 'unarchive' || first === 'rename' || first === 'delete') return ['sessions', first, ...rest];
  // `export --all out.zip`: the flag is the command, the file its argument.
  if (first === 'export') return ['export', 'all', ...rest];
  return positionals;
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const code = await run(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progressStream: process.stderr,
  });
  process.exitCode = code;
}
