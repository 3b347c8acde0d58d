import { parseArgs } from 'node:util';
import { CliError, type CliBackend } from './backend.js';

/** What every command is given: where it prints, its parsed options, how it refuses bad input. */

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** where a progress bar may draw (a terminal); without it progress is printed as lines */
  progressStream?: NodeJS.WriteStream;
}

export type Values = ReturnType<typeof parseCommandLine>['values'];

export interface CommandSpec {
  /** what follows `entity-memory` */
  usage: string;
  summary: string;
  /** a cluster command talks to the instances itself: no backend on the data directory is opened */
  standalone?: { run(dataDir: string, args: string[], values: Values, output: Output, env: NodeJS.ProcessEnv): Promise<void> };
  run(backend: CliBackend, args: string[], values: Values, output: Output): Promise<void>;
}

export function usageError(message: string, command?: CommandSpec): CliError {
  return new CliError(`${message}\n\nusage: entity-memory ${command ? command.usage : '<command>  (see entity-memory help)'}`, 'bad_input');
}

export function one(args: string[], what: string, command: CommandSpec): string {
  if (args.length !== 1 || !args[0]) throw usageError(`expected one ${what}`, command);
  return args[0];
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** Tab-separated with a header line: readable in a terminal, and `cut -f` still works. */
export function table(output: Output, header: string[], rows: string[][]): void {
  output.out(header.join('\t'));
  for (const row of rows) output.out(row.map((cell) => cell.replace(/[\t\n\r]+/g, ' ')).join('\t'));
}

export function parseCommandLine(argv: string[]) {
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
      resume: { type: 'string' },
      rollback: { type: 'string' },
      at: { type: 'string' },
      agent: { type: 'string' },
      cwd: { type: 'string' },
      by: { type: 'string' },
      since: { type: 'string' },
      good: { type: 'string' },
      bad: { type: 'string' },
      rev: { type: 'string' },
      server: { type: 'string' },
      token: { type: 'string' },
      once: { type: 'boolean' },
      install: { type: 'boolean' },
      project: { type: 'string' },
    },
  });
}
