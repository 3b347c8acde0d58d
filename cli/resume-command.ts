import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ResumeAgent, ResumeFile } from '../lib/resume/index.js';
import { CliError, type CliBackend } from './backend.js';

export const RESUME_USAGE = 'resume <session> [--at <turn>] [--agent claude|codex] [--cwd DIR]';
export const RESUME_SUMMARY =
  "continue a session in the agent itself: writes the branch up to a turn as a Claude Code transcript (~/.claude/projects/…) or a Codex rollout ($CODEX_HOME/sessions/…) and prints the command; the run is recorded as a branch of the session from that turn";

export interface ResumeValues {
  at?: string;
  agent?: string;
  cwd?: string;
  json?: boolean;
}

const AGENTS: readonly ResumeAgent[] = ['claude', 'codex'];

/** The agent's own folder on this machine: Claude Code's config folder, or CODEX_HOME. */
export function agentHome(agent: ResumeAgent, env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] || homedir();
  if (agent === 'claude') return env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
  return env['CODEX_HOME'] || join(home, '.codex');
}

function usage(message: string): CliError {
  return new CliError(`${message}\n\nusage: entity-memory ${RESUME_USAGE}`, 'bad_input');
}

/** Ask the server (or the data directory) for the transcript, write it where the agent looks, say how to continue. */
export async function runResume(backend: CliBackend, args: string[], values: ResumeValues, output: { out(line: string): void }, env: NodeJS.ProcessEnv = process.env): Promise<ResumeFile> {
  if (args.length !== 1 || !args[0]) throw usage('expected one session id');
  const agent = (values.agent ?? 'claude') as ResumeAgent;
  if (!AGENTS.includes(agent)) throw usage(`--agent must be one of ${AGENTS.join(', ')}`);
  let turn: number | undefined;
  if (values.at !== undefined) {
    turn = Number(values.at);
    if (!Number.isSafeInteger(turn) || turn < 1) throw usage('--at must be a turn number (1 or more)');
  }
  // The agent names the folder by its real path (its process.cwd()): a symlinked path would be another slug.
  const cwd = values.cwd ? await realpath(resolve(values.cwd)).catch(() => resolve(values.cwd!)) : undefined;
  const file = await backend.resume({ sessionId: args[0], agent, ...(turn !== undefined ? { turn } : {}), ...(cwd ? { cwd } : {}) });
  const segments = file.relativePath.split('/');
  // Only ever under the agent's own folder, whatever the server answered.
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) throw new CliError(`refused to write outside ${agentHome(agent, env)}: ${file.relativePath}`, 'refused');
  const path = join(agentHome(agent, env), ...segments);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // The agent's transcripts hold the conversation: readable by their owner only, as the agents write them.
  await writeFile(path, file.content, { mode: 0o600, flag: 'wx' });
  const { content: _content, ...shown } = file;
  if (values.json) output.out(JSON.stringify({ ...shown, path }));
  else {
    output.out(`Wrote ${path}: ${file.messages} messages of session ${file.sessionId} up to turn ${file.turn}`);
    output.out(file.command);
  }
  return file;
}
