/**
 * The state one crash run shares between its workload, its checks after each restart and its
 * runner: one object passed to each, so nothing of a run lives in a module.
 */
import { prng, type Client, type CrashFigures, type CrashOptions, type TrackedProject, type TrackedSession } from './crash-model.js';

export interface CrashRun {
  options: CrashOptions;
  /** every random choice draws from this, so a seed replays the same operation mix */
  random: () => number;
  dataDir: string;
  /** the server's URL */
  base: string;
  clients: Client[];
  /** every session written to, by id, with what the server acknowledged of it */
  sessions: Map<string, TrackedSession>;
  /** each client's project, by client index */
  projects: Map<number, TrackedProject>;
  figures: CrashFigures;
  /** why operations were refused, with how often: printed at the end, so a mix that stopped working shows */
  refusals: Map<string, number>;
  /** aborted when the server is killed, so the requests in flight end; a new one for every start */
  controller: AbortController;
  /** makes session ids, file names and message texts unique */
  sequence: number;
  /** acknowledged work gone after a restart */
  lost(message: string): void;
  /** a broken invariant */
  violation(message: string): void;
  /** counts why an operation was refused (not in figures.refused: a skipped project commit is noted too) */
  noteRefusal(reason: string): void;
}

export function createCrashRun(options: CrashOptions, dataDir: string, clients: Client[]): CrashRun {
  const figures: CrashFigures = {
    kills: 0,
    ops: 0,
    acked: 0,
    sessions: 0,
    appends: 0,
    commits: 0,
    chats: 0,
    proxied: 0,
    retries: 0,
    searched: 0,
    searchStale: 0,
    refused: 0,
    updates: 0,
    projectCommits: 0,
    projectSkipped: 0,
    lost: 0,
    violations: 0,
    errors5xx: 0,
    problems: [],
  };
  const refusals = new Map<string, number>();
  return {
    options,
    random: prng(options.seed),
    dataDir,
    base: `http://127.0.0.1:${options.port}`,
    clients,
    sessions: new Map(),
    projects: new Map(),
    figures,
    refusals,
    controller: new AbortController(),
    sequence: 0,
    lost(message) {
      figures.lost++;
      figures.problems.push(`LOST ${message}`);
    },
    violation(message) {
      figures.violations++;
      figures.problems.push(`VIOLATION ${message}`);
    },
    noteRefusal(reason) {
      refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    },
  };
}
