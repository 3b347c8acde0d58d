import { homedir, hostname } from 'node:os';
import { resolve } from 'node:path';
import { collectUnits, CollectRefused, defaultRoots, defaultStatePath, runCollector, TOKEN_VARIABLE } from '../lib/collect/index.js';
import { machineNameProblem } from '../lib/import/index.js';
import { CliError } from './backend.js';
import { usageError, type CommandSpec, type Output, type Values } from './command-spec.js';

const USAGE = 'collect --server <url> --token <t> [--name <machine>] [paths…] [--once] [--install]';

function serverUrl(given: string | undefined, command: CommandSpec): string {
  if (!given) throw usageError('collect needs --server <url>: the Entity Memory server to send to', command);
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw usageError(`--server ${given} is not a URL (e.g. https://memory.example.com)`, command);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--server ${given}: http or https only`, command);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function installText(server: string, machine: string, paths: string[], cli: string): string {
  const home = homedir();
  const units = collectUnits({ node: process.execPath, cli, server, machine, paths, home });
  return [
    `# 1. The token, in a file only you can read (the units never hold it):`,
    `mkdir -p ${resolve(units.envFile, '..')} && (umask 077 && printf '${TOKEN_VARIABLE}=%s\\n' '<your token>' > ${units.envFile})`,
    '',
    `# 2a. Linux (systemd): ${units.systemdPath}, then: systemctl --user daemon-reload && systemctl --user enable --now entity-memory-collect`,
    units.systemd,
    `# 2b. macOS (launchd): ${units.launchdPath}, then: launchctl load -w ${units.launchdPath}`,
    units.launchd,
  ].join('\n');
}

async function runCollect(args: string[], values: Values, output: Output, env: NodeJS.ProcessEnv): Promise<void> {
  const command = COLLECT_COMMANDS['collect transcripts']!;
  const server = serverUrl(values.server, command);
  const machine = (values.name ?? hostname()).trim();
  const problem = machineNameProblem(machine);
  if (problem) throw usageError(`--name: ${problem}`, command);
  const paths = args.map((path) => resolve(path));
  if (values.install) {
    // The CLI this process runs (cli/bin.mjs or the bundle), so the unit starts the same one.
    output.out(installText(server, machine, paths, resolve(process.argv[1] ?? 'entity-memory')));
    return;
  }
  const token = values.token ?? env[TOKEN_VARIABLE];
  if (!token) throw usageError(`collect needs --token <t> (or ${TOKEN_VARIABLE} in its environment): a token of your account on the server`, command);
  const home = homedir();
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const roots = [...defaultRoots(home, env), ...paths];
    if (!values.once) output.err(`collect: watching ${roots.join(', ')} for ${server} as ${machine}`);
    const summary = await runCollector({ server: { url: server, token, machine }, roots, statePath: defaultStatePath(home), once: values.once === true, log: output.err, signal: controller.signal });
    output.out(values.json ? JSON.stringify(summary) : `collect: ${summary.sends} files sent, ${summary.added} sessions added, ${summary.updated} updated`);
  } catch (error) {
    if (error instanceof CollectRefused) throw new CliError(error.message, 'refused');
    throw error;
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}

/** DESIGN §17: this machine's agent transcripts to a server, as they grow. */
export const COLLECT_COMMANDS: Record<string, CommandSpec> = {
  'collect transcripts': {
    usage: USAGE,
    summary: `send this machine's Claude Code and Codex transcripts (~/.claude/projects, \${CODEX_HOME:-~/.codex}/sessions, and any path given) to a server as they grow, marked with the machine's name; --once sends what is there and stops; --install prints a systemd unit and a launchd agent`,
    standalone: { run: (_dataDir, args, values, output, env) => runCollect(args, values, output, env) },
    run: async () => undefined,
  },
};
