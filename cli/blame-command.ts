import { realpath } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import type { BlameLine, ProjectBlame } from '../lib/store/index.js';
import { CliError, type CliBackend } from './backend.js';

export const BLAME_USAGE = 'blame <file> [--rev REV] [--json]';
export const BLAME_SUMMARY =
  'per line of a project file: the commit that last changed it, and the session, turn, agent and prompt behind it ("person" for your own commits); tab-separated (header line; tab, newline and \\ in prompt and text escaped as \\t \\n \\\\) or --json as project.blame answers';

const COLUMNS = ['LINE', 'SHA', 'BY', 'SESSION', 'TURN', 'AGENT', 'PROMPT', 'TEXT'];

function usage(message: string): CliError {
  return new CliError(`${message}\n\nusage: entity-memory ${BLAME_USAGE}`, 'bad_input');
}

/** The file's project: the registered folder that holds it (the deepest one; Home only holds what no project does). */
async function projectOf(backend: CliBackend, file: string): Promise<{ projectId: string; path: string }> {
  const projects = await backend.listProjects();
  let best: { projectId: string; path: string; depth: number } | null = null;
  for (const project of projects) {
    if (project.isDefault || project.pathMissing) continue;
    const root = await realpath(project.path).catch(() => project.path);
    const inside = relative(root, file);
    if (inside === '' || inside.startsWith('..') || resolve(root, inside) !== file) continue;
    const depth = root.split(sep).length;
    if (!best || depth > best.depth) best = { projectId: project.id, path: inside.split(sep).join('/'), depth };
  }
  if (!best) throw new CliError(`${file} is not inside any of your projects (see entity-memory projects list)`, 'not_found');
  return { projectId: best.projectId, path: best.path };
}

const escapeCell = (value: string) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n|\r/g, '\\n');

export function blameRow(line: BlameLine): string {
  const cells = [String(line.line), line.sha, line.by, line.sessionId ?? '', line.turn === undefined ? '' : String(line.turn), line.agent ?? '', line.prompt ?? '', line.text];
  return cells.map(escapeCell).join('\t');
}

/** `entity-memory blame <file>`: the server's (or the data directory's) project.blame for the file here. */
export async function runBlame(backend: CliBackend, args: string[], values: { rev?: string; json?: boolean }, output: { out(line: string): void }): Promise<ProjectBlame> {
  if (args.length !== 1 || !args[0]) throw usage('expected one file');
  const given = resolve(args[0]);
  const file = await realpath(given).catch(() => {
    throw new CliError(`no file ${given}`, 'not_found');
  });
  const blame = await backend.blame({ ...(await projectOf(backend, file)), ...(values.rev ? { rev: values.rev } : {}) });
  if (values.json) output.out(JSON.stringify(blame));
  else {
    output.out(COLUMNS.join('\t'));
    for (const line of blame.lines) output.out(blameRow(line));
  }
  return blame;
}
