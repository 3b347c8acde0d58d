import { existsSync } from 'node:fs';
import { afterRun, bisectRange, BisectRangeError, nextStep, runsLeft, startBisect, type BisectState, type CodeTurn, type Verdict } from '../lib/bisect/index.js';
import type { TimelineTurn } from '../lib/store/index.js';
import { runGit } from '../lib/store/index.js';
import { CliError, type CliBackend } from './backend.js';
import { BisectWorkspace } from './bisect-worktree.js';
import { usageError, type CommandSpec, type Output, type Values } from './command-spec.js';

export const BISECT_USAGE = 'bisect <session> [--good <turn>] [--bad <turn>] [--json] -- <command>…';
export const BISECT_SUMMARY =
  "find the first turn after which <command> fails (exits non-zero): the session's project checked out at turns' project commits in temporary git worktrees on this machine, at most ⌈log2 n⌉+1 runs; prints that turn's prompt, reply and diff";

/** What a bisect found: the first bad turn, what was said in it and what it changed. */
export interface BisectReport {
  sessionId: string;
  firstBadTurn: number;
  commits: string[];
  prompt: string;
  reply: string;
  diff: string;
  runs: number;
  steps: { turn: number; commit: string; verdict: Verdict }[];
}

/** The signals that stop a bisect, and the exit code each gives (128 + its number, as a shell reports it). */
const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

function turnOption(value: string | undefined, flag: string, command: CommandSpec): number | undefined {
  if (value === undefined) return undefined;
  const turn = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(turn)) throw usageError(`${flag} must be a turn number`, command);
  return turn;
}

/** Every turn of the session, oldest first, from the timeline's pages. */
async function allTurns(backend: CliBackend, sessionId: string): Promise<{ turns: TimelineTurn[]; projectId: string }> {
  const turns: TimelineTurn[] = [];
  let cursor: string | null = null;
  let projectId = '';
  do {
    const page = await backend.timelinePage(sessionId, cursor);
    turns.push(...page.commits);
    projectId = page.projectId;
    cursor = page.nextCursor;
  } while (cursor);
  return { turns: turns.reverse(), projectId };
}

/** Where the project's repository is on this machine, or why bisect cannot run here. */
async function projectFolder(backend: CliBackend, projectId: string): Promise<string> {
  const project = (await backend.listProjects()).find((candidate) => candidate.id === projectId);
  if (!project || project.isDefault) throw new CliError(`the session's project (${projectId}) has no folder to bisect in`, 'refused');
  if (!existsSync(project.path)) {
    throw new CliError(`the project folder ${project.path} is not on this machine: bisect runs the command here, in git worktrees of that folder`, 'unavailable');
  }
  return project.path;
}

/** The turn's prompt (the last user message when it ended) and the agent's reply (the assistant messages it added). */
async function conversationOf(backend: CliBackend, sessionId: string, turn: TimelineTurn): Promise<{ prompt: string; reply: string }> {
  const { messages } = await backend.sessionAt(sessionId, turn.sha);
  const lastPrompt = messages.findLastIndex((message) => message.role === 'user');
  const added = new Set(turn.nodeIds);
  let replies = messages.filter((message) => message.role === 'assistant' && added.has(message.id));
  if (replies.length === 0) replies = messages.slice(lastPrompt + 1).filter((message) => message.role === 'assistant');
  return { prompt: messages[lastPrompt]?.content ?? '', reply: replies.map((message) => message.content).join('\n\n') };
}

/** What the turn's project commits changed, as git shows them. */
async function diffOf(folder: string, commits: readonly string[]): Promise<string> {
  const shown = await Promise.all(commits.map((sha) => runGit(folder, ['show', '--no-color', '--format=commit %H%n%an%n%n    %s%n', sha])));
  return shown.map((result) => result.stdout.toString('utf8').trimEnd()).join('\n\n');
}

function printReport(report: BisectReport, output: Output): void {
  output.out(`turn ${report.firstBadTurn} is the first bad turn (${report.runs} ${report.runs === 1 ? 'run' : 'runs'} of the command)`);
  output.out('');
  output.out('prompt:');
  output.out(report.prompt === '' ? '(none)' : report.prompt);
  output.out('');
  output.out('reply:');
  output.out(report.reply === '' ? '(none)' : report.reply);
  output.out('');
  output.out('diff:');
  output.out(report.diff);
}

/** Halve the turns until the first bad one is named; every step in a worktree removed before the next. */
async function search(workspace: BisectWorkspace, argv: readonly string[], turns: readonly CodeTurn[], start: BisectState, output: Output, stopped: () => StopSignal | null): Promise<{ state: BisectState; steps: BisectReport['steps'] }> {
  let state = start;
  const steps: BisectReport['steps'] = [];
  for (let step = nextStep(state); step.kind === 'run'; step = nextStep(state)) {
    const turn = turns[step.position]!;
    const commit = turn.commits[turn.commits.length - 1]!;
    const label = `step ${state.runs + 1}/${state.runs + runsLeft(state)}: turn ${turn.turn}`;
    // A Ctrl-C in a terminal reaches git too: its failure is then the stop, not an error.
    const cwd = await workspace.checkout(`turn-${turn.turn}`, commit).catch((error: unknown) => {
      if (stopped()) return null;
      throw error;
    });
    if (cwd === null || stopped()) break;
    output.err(`${label} (${commit.slice(0, 7)}) …`);
    const exit = await workspace.run(argv, cwd);
    if (stopped()) break;
    const verdict: Verdict = exit.code === 0 ? 'good' : 'bad';
    output.err(`${label} … ${verdict}${exit.code !== null && exit.code !== 0 ? ` (exit ${exit.code})` : exit.signal ? ` (${exit.signal})` : ''}`);
    steps.push({ turn: turn.turn, commit, verdict });
    state = afterRun(state, verdict);
  }
  return { state, steps };
}

export async function runBisect(backend: CliBackend, args: string[], values: Values, output: Output, command: CommandSpec): Promise<BisectReport> {
  const [sessionId, ...argv] = args;
  if (!sessionId) throw usageError('expected a session id', command);
  if (argv.length === 0) throw usageError('expected the command to run after --', command);
  const good = turnOption(values.good, '--good', command);
  const bad = turnOption(values.bad, '--bad', command);

  const { turns: timeline, projectId } = await allTurns(backend, sessionId);
  let range;
  try {
    range = bisectRange(sessionId, timeline, { ...(good !== undefined ? { good } : {}), ...(bad !== undefined ? { bad } : {}) });
  } catch (error) {
    if (error instanceof BisectRangeError) throw error.reason === 'bad_turn' ? usageError(error.message, command) : new CliError(error.message, 'refused');
    throw error;
  }
  const folder = await projectFolder(backend, projectId);
  const workspace = await BisectWorkspace.open(folder);
  let stopSignal: StopSignal | null = null;
  const onSignal = (signal: StopSignal): void => {
    stopSignal ??= signal;
    void workspace.stopCommand();
  };
  const handlers = Object.fromEntries((Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => [signal, () => onSignal(signal)])) as Record<StopSignal, () => void>;
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  try {
    const ends = [range.turns[range.bad]!, ...(range.good >= 0 ? [range.turns[range.good]!] : [])];
    const missing = (await Promise.all(ends.map(async (turn) => ((await workspace.hasCommit(turn.commits.at(-1)!)) ? null : turn)))).find((turn) => turn !== null);
    if (missing) throw new CliError(`the project at ${folder} does not hold turn ${missing.turn}'s commit ${missing.commits.at(-1)!.slice(0, 7)}`, 'unavailable');
    const from = range.good >= 0 ? `turn ${range.turns[range.good]!.turn}` : 'the project before the session';
    const candidates = range.bad - range.good;
    output.err(`bisecting ${candidates} ${candidates === 1 ? 'turn' : 'turns'} with project commits after ${from} (taken to be good) up to turn ${range.turns[range.bad]!.turn}`);
    const { state, steps } = await search(workspace, argv, range.turns, startBisect(range.good, range.bad), output, () => stopSignal);
    if (stopSignal) throw new CliError(`bisect stopped by ${stopSignal}; its worktree is removed`, 'refused', STOP_SIGNALS[stopSignal]);
    const outcome = nextStep(state);
    const found = range.turns[outcome.position]!;
    if (outcome.kind === 'bad-end-passes') throw new CliError(`turn ${found.turn} passes (the command exits 0 there): no bad turn to find`, 'refused');
    const report: BisectReport = {
      sessionId,
      firstBadTurn: found.turn,
      commits: found.commits,
      ...(await conversationOf(backend, sessionId, timeline.find((turn) => turn.turn === found.turn)!)),
      diff: await diffOf(folder, found.commits),
      runs: state.runs,
      steps,
    };
    if (values.json) output.out(JSON.stringify(report));
    else printReport(report, output);
    return report;
  } finally {
    await workspace.cleanUp();
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  }
}
